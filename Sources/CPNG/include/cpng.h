#ifndef CPNG_H
#define CPNG_H

/*
 * CPNG: the C side of CoderPNG.
 *
 * libpng reports errors by longjmp. Swift frames must never be crossed by a longjmp, so every
 * libpng call that may longjmp is made from the functions below, each of which sets its own
 * setjmp boundary. Swift sees only a cpng_status and a message; no callback into Swift exists.
 */

#include <stddef.h>
#include <stdint.h>

/* The outcome of a cpng call. Negative values are failures; *_message() explains them. */
typedef enum cpng_status {
    CPNG_OK = 0,
    /* Progressive reading: all bytes so far were consumed, the image is not complete yet. */
    CPNG_NEED_MORE = 1,
    /* Progressive reading: IEND was reached, the image is complete. */
    CPNG_DONE = 2,
    /* The bytes are not a valid PNG (bad signature, CRC, zlib data, chunk layout, ...). */
    CPNG_ERR_CORRUPT = -1,
    /* The bytes end before the image does. */
    CPNG_ERR_TRUNCATED = -2,
    /* The header declares more pixels (or a wider/taller image) than allowed. */
    CPNG_ERR_LIMIT = -3,
    /* An allocation failed. */
    CPNG_ERR_NOMEM = -4,
    /* The caller passed parameters libpng cannot encode. */
    CPNG_ERR_ARGUMENT = -5,
} cpng_status;

/* Keep 16-bit samples (in host byte order) instead of keeping only their high byte. */
#define CPNG_FLAG_PRESERVE_16 1

/* What a decode produces, after the expansion transforms. */
typedef struct cpng_header {
    uint32_t width;
    uint32_t height;
    /* Samples per pixel after transforms: 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA. */
    uint32_t channels;
    /* Bits per sample after transforms: 8 or 16. */
    uint32_t bit_depth;
    /* Non-zero for an Adam7 interlaced file. */
    uint32_t interlaced;
    /* Bytes in one output row without padding. */
    size_t rowbytes;
} cpng_header;

/* ---- One-shot decoding from memory ---------------------------------------------------- */

typedef struct cpng_decoder cpng_decoder;

/* A decoder reading `size` bytes at `data`; the bytes must outlive the decoder. Images wider or
 * taller than `max_dimension` are refused from the header. NULL when out of memory. */
cpng_decoder *cpng_decoder_create(const void *data, size_t size, uint32_t max_dimension, int flags);
/* Reads every chunk before the image data and fills `header`. */
cpng_status cpng_decoder_read_header(cpng_decoder *decoder, cpng_header *header);
/* Decodes the pixels into `pixels`, `stride` bytes per row (>= header.rowbytes), then reads the
 * chunks after the image data. Call once, after a successful cpng_decoder_read_header. */
cpng_status cpng_decoder_read_image(cpng_decoder *decoder, void *pixels, size_t stride);
/* Row by row, for non-interlaced files only (an interlaced file needs the whole image: use
 * cpng_decoder_read_image): decodes the next `count` rows into `rows`, `stride` bytes apart
 * (>= header.rowbytes). Call after a successful cpng_decoder_read_header, instead of
 * cpng_decoder_read_image, until every row is read; after a failure, call nothing else. */
cpng_status cpng_decoder_read_rows(cpng_decoder *decoder, void *rows, size_t stride, uint32_t count);
/* After the last row of cpng_decoder_read_rows: reads the chunks after the image data. */
cpng_status cpng_decoder_finish(cpng_decoder *decoder);
/* The message of the last failure (libpng's own where it has one), never NULL. */
const char *cpng_decoder_message(const cpng_decoder *decoder);
/* The decompressed iCCP profile, or NULL. Valid until the decoder is destroyed. */
const uint8_t *cpng_decoder_icc_profile(const cpng_decoder *decoder, size_t *length);
/* The eXIf chunk's bytes (a TIFF structure), or NULL. Valid until the decoder is destroyed. */
const uint8_t *cpng_decoder_exif(const cpng_decoder *decoder, size_t *length);

/* The colour chunks other than iCCP: cICP's four code points, whether there is an sRGB chunk,
 * and gAMA (x100000; 0 when absent). */
typedef struct {
    uint8_t cicp[4];
    int32_t has_cicp;
    int32_t has_srgb;
    /* gAMA × 100000 (45455 for 1/2.2), 0 when absent. */
    int32_t gamma;
    int32_t has_chrm;
    /* cHRM × 100000: white x, y, red x, y, green x, y, blue x, y. */
    int32_t chrm[8];
} cpng_color_info;
int cpng_decoder_color(const cpng_decoder *decoder, cpng_color_info *color);
void cpng_decoder_destroy(cpng_decoder *decoder);

/* ---- Progressive decoding (libpng's push reader) --------------------------------------- */

typedef struct cpng_progressive cpng_progressive;

/* A push decoder refusing images over `pixel_limit` pixels (checked from IHDR before the pixel
 * buffer is allocated). NULL when out of memory. */
cpng_progressive *cpng_progressive_create(uint32_t max_dimension, uint64_t pixel_limit, int flags);
/* Feeds the next bytes. Returns CPNG_NEED_MORE, CPNG_DONE or a failure; after a failure every
 * later call returns the same failure. Bytes after IEND are ignored. */
cpng_status cpng_progressive_feed(cpng_progressive *decoder, const void *data, size_t size);
/* Non-zero once the header is known; then fills `header`. */
int cpng_progressive_header(const cpng_progressive *decoder, cpng_header *header);
/* The pixel buffer (header.rowbytes * header.height bytes), NULL before the header. Rows not
 * decoded yet are zero; for interlaced files earlier passes fill whole Adam7 blocks. */
const uint8_t *cpng_progressive_pixels(const cpng_progressive *decoder);
/* How many rows libpng has delivered so far (counting every pass of an interlaced file). */
uint64_t cpng_progressive_rows_delivered(const cpng_progressive *decoder);
/* The Adam7 pass now being decoded (0 for non-interlaced files). */
int cpng_progressive_pass(const cpng_progressive *decoder);
const char *cpng_progressive_message(const cpng_progressive *decoder);
const uint8_t *cpng_progressive_icc_profile(const cpng_progressive *decoder, size_t *length);
int cpng_progressive_color(const cpng_progressive *decoder, cpng_color_info *color);
const uint8_t *cpng_progressive_exif(const cpng_progressive *decoder, size_t *length);
void cpng_progressive_destroy(cpng_progressive *decoder);

/* ---- Encoding ------------------------------------------------------------------------- */

typedef struct cpng_encode_params {
    const void *pixels;
    /* Bytes from one row to the next. */
    size_t stride;
    uint32_t width;
    uint32_t height;
    /* 1 gray, 2 gray+alpha, 3 RGB, 4 RGBA. */
    uint32_t channels;
    /* 8, or 16 with samples in host byte order. */
    uint32_t bit_depth;
    /* zlib level 0...9. */
    int compression_level;
    /* Non-zero writes an Adam7 interlaced file. */
    int interlace;
    /* An ICC profile to write as iCCP, or NULL. */
    const void *icc_profile;
    size_t icc_length;
    /* Colour code points to write as cICP when has_cicp (and no ICC profile is written). */
    uint8_t cicp[4];
    int32_t has_cicp;
} cpng_encode_params;

/* The encoded file: `data` is malloc'd, release it with free(). */
typedef struct cpng_encoded {
    uint8_t *data;
    size_t length;
    char message[256];
} cpng_encoded;

cpng_status cpng_encode(const cpng_encode_params *params, cpng_encoded *result);

/* ---- Box-average kernels for 8-bit thumbnails (no libpng) ----------------------------- */

/* The largest divisor the kernels below take: rounded quotients (x + d/2) / d of x < 256·d. */
#define CPNG_BOX_LARGEST_DIVISOR (1u << 22)

/* 32-bit reciprocal of 1 ≤ d < 2^32: `(x · m) >> s` is `x / d` for every x < 2^30
 * (proof in cpng_box.c). */
static inline void cpng_box_reciprocal(uint32_t d, uint32_t *m, uint32_t *s) {
    uint32_t lg = 31u - (uint32_t)__builtin_clz(d);
    *s = 31u + lg;
    *m = (uint32_t)((1ull << *s) / d) + 1u;
}

/* Adds one row of `pixels` 8-bit pixels into `sums` (one per sample), or with `first` non-zero
 * stores it (whatever `sums` held); with 2 or 4 channels the colour is premultiplied by alpha
 * (last channel). */
void cpng_box_accumulate_u8(const uint8_t *row, uint32_t *sums, size_t pixels, uint32_t channels, int first);

/* Writes one output row of `width` pixels from the column sums over `rows` source rows: output
 * column x sums `narrow` pixels from sample offset `starts[x]`, plus one more where `masks[x]` is
 * all ones (`sums` has one pixel of zero padding past its last column). Rounds to nearest;
 * with 2 or 4 channels colour is divided by the box's alpha sum. Every divisor (box pixels, and
 * 255 × box pixels with alpha) must be at most CPNG_BOX_LARGEST_DIVISOR. Given `scratch`
 * (width × channels + 4 entries), RGB and RGBA boxes are summed by SSE2 vectors, and without alpha,
 * given `sample_masks` (masks[x] repeated per sample, width × channels), divided by them too;
 * `sums` then needs one more sample of padding (zero) past its padding pixel. */
void cpng_box_emit_u8(const uint32_t *sums, const int32_t *starts, const uint32_t *masks, size_t width, uint32_t narrow,
                      uint32_t rows, uint32_t channels, const uint32_t *alpha_table, const uint32_t *sample_masks,
                      uint32_t *scratch, uint8_t *out);

/* Fills `table[d]` for d < count with the multiplier of d (0 for d = 0), for cpng_box_emit_u8's
 * `alpha_table` (NULL: one double division per pixel instead), which needs an entry for every
 * possible alpha sum (255 × box pixels). */
void cpng_box_alpha_table(uint32_t *table, size_t count);

/* x / d (d = 0 gives 0) through the per-pixel reciprocal of cpng_box_emit_u8; exact for
 * x < 2^30, d ≤ CPNG_BOX_LARGEST_DIVISOR. For tests. */
uint32_t cpng_box_divide_u32(uint32_t x, uint32_t d);

#endif /* CPNG_H */
