/*
 * CJPEG: the C side of CoderJPEG.
 *
 * Every libjpeg call that may longjmp (through error_exit) is made here, behind a setjmp in the
 * same C frame; Swift only ever sees a status and a captured message. No libjpeg type appears
 * in this header, so Swift never touches a jpeg_decompress_struct.
 */
#ifndef CJPEG_H
#define CJPEG_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Results of the calls below. */
typedef enum {
    CJPEG_OK = 0,
    CJPEG_SUSPENDED = 1, /* incremental input only: more bytes are needed */
    CJPEG_FAILED = -1    /* see cjpeg_decoder_failure / cjpeg_decoder_message */
} cjpeg_status;

/* Why a call failed. */
typedef enum {
    CJPEG_FAILURE_NONE = 0,
    CJPEG_FAILURE_CORRUPT = 1,     /* not a valid JPEG stream */
    CJPEG_FAILURE_TRUNCATED = 2,   /* the bytes end before the image does */
    CJPEG_FAILURE_UNSUPPORTED = 3, /* valid, but lossless, 12-bit, hierarchical, ... */
    CJPEG_FAILURE_NO_MEMORY = 4,   /* libjpeg could not allocate */
    CJPEG_FAILURE_USAGE = 5        /* the caller broke the call order (a bug) */
} cjpeg_failure;

typedef enum {
    CJPEG_SPACE_UNKNOWN = 0,
    CJPEG_SPACE_GRAY = 1,
    CJPEG_SPACE_RGB = 2,
    CJPEG_SPACE_YCBCR = 3,
    CJPEG_SPACE_CMYK = 4,
    CJPEG_SPACE_YCCK = 5
} cjpeg_color_space;

/* What the frame header says. */
typedef struct {
    uint32_t width;
    uint32_t height;
    int32_t components;
    int32_t color_space;    /* cjpeg_color_space of the stored data */
    int32_t progressive;    /* SOF2 / SOF10 */
    int32_t multi_scan;     /* more than one scan (progressive or non-interleaved) */
    int32_t arithmetic;     /* arithmetic entropy coding */
    int32_t adobe_inverted; /* an Adobe APP14 marker: CMYK/YCCK samples are stored inverted */
} cjpeg_header;

/* Events of cjpeg_decoder_advance. */
typedef enum {
    CJPEG_EVENT_NONE = 0,    /* nothing new to show */
    CJPEG_EVENT_PREVIEW = 1, /* the destination holds a new preview */
    CJPEG_EVENT_FINAL = 2    /* the destination holds the finished image */
} cjpeg_event;

/* The most scans a stream may have; more is treated as corrupt (a CPU-exhaustion guard). */
#define CJPEG_MAX_SCANS 1000

typedef struct cjpeg_decoder cjpeg_decoder;

/* A new decoder, or NULL when out of memory. */
cjpeg_decoder *cjpeg_decoder_create(void);
void cjpeg_decoder_destroy(cjpeg_decoder *decoder);

/* Whole-file input: borrows bytes that must stay valid until destroy. The end of the bytes is
 * the end of the file. */
void cjpeg_decoder_set_source(cjpeg_decoder *decoder, const uint8_t *bytes, size_t count);
/* Incremental input: copies the bytes. Until cjpeg_decoder_end_input, running out of bytes
 * suspends instead of ending the file. Returns CJPEG_OK or CJPEG_FAILED (out of memory). */
int cjpeg_decoder_append(cjpeg_decoder *decoder, const uint8_t *bytes, size_t count);
/* Incremental input: no more bytes will come; running out now ends the file. */
void cjpeg_decoder_end_input(cjpeg_decoder *decoder);
/* Incremental input: whether the bytes after the first scan started contain an EOI marker. */
int cjpeg_decoder_saw_eoi_bytes(const cjpeg_decoder *decoder);

/* Reads markers up to the first scan. Saves APP1, APP2 and APP13 markers for the caller. */
int cjpeg_decoder_read_header(cjpeg_decoder *decoder, cjpeg_header *header);
/* The output size at scale scale_num/8 (1...16), after read_header. */
int cjpeg_decoder_scaled_size(cjpeg_decoder *decoder, int scale_num, uint32_t *width, uint32_t *height);

/* Saved APP1/APP2/APP13 markers, after read_header. Pure reads; never fail mid-way. */
size_t cjpeg_decoder_marker_count(const cjpeg_decoder *decoder);
int cjpeg_decoder_marker_at(const cjpeg_decoder *decoder, size_t index, int *marker,
                            const uint8_t **bytes, size_t *count);

/* One-shot decode: starts decompression at scale_num/8 and reports the output size and
 * channels (1 gray, 3 RGB; CMYK/YCCK become RGB). */
int cjpeg_decoder_start(cjpeg_decoder *decoder, int scale_num, uint32_t *width, uint32_t *height,
                        int *channels);
/* One-shot decode: writes every row into dst (rows stride bytes apart) and finishes. A stream
 * whose data ran out before the image was complete fails with CJPEG_FAILURE_TRUNCATED. */
int cjpeg_decoder_read_pixels(cjpeg_decoder *decoder, uint8_t *dst, size_t stride);

/* One-shot decode, a strip at a time: writes up to capacity rows into dst (its first row is the
 * next row of the image) and reports how many. After the last row it finishes as read_pixels
 * does; *rows is 0 only once the image is complete. */
int cjpeg_decoder_read_strip(cjpeg_decoder *decoder, uint8_t *dst, size_t stride, uint32_t capacity,
                             uint32_t *rows);
/* Before start: merged (non-fancy) chroma upsampling, which libjpeg-turbo does in SIMD and which
 * is cheaper at full scale, for output that is averaged down afterwards. A full-size decode must
 * not use it: its pixels then differ from djpeg's default. */
void cjpeg_decoder_set_fast_upsampling(cjpeg_decoder *decoder, int enabled);
/* Before start: CMYK and YCCK streams deliver CMYK samples, 4 channels (stored inverted when the
 * header's adobe_inverted says so), instead of RGB by the naive formula; for a caller that
 * converts them through the file's ICC profile. Other streams are unaffected. */
void cjpeg_decoder_set_cmyk_output(cjpeg_decoder *decoder, int enabled);

/* Raw thumbnails: libjpeg's downsampled YCbCr planes, each area-averaged straight to the target
 * size and converted to RGB there (no full-size chroma upsampling or colour conversion).
 * Eligible after read_header: a 3-component YCbCr stream with luma sampling 1x1, 2x1 or 2x2 and
 * chroma 1x1, at scale 1, 2, 4 or 8/8. */
int cjpeg_decoder_raw_eligible(const cjpeg_decoder *decoder, int scale_num);
/* Like start, for an eligible stream; the output is always 3 channels (RGB). */
int cjpeg_decoder_start_raw(cjpeg_decoder *decoder, int scale_num, uint32_t *width, uint32_t *height);
/* Decodes every row, writes the target_width x target_height RGB image into dst (rows dst_stride
 * bytes apart) and finishes as read_pixels does. */
int cjpeg_decoder_read_raw_resampled(cjpeg_decoder *decoder, uint32_t target_width, uint32_t target_height,
                                     uint8_t *dst, size_t dst_stride);

/* Whole raw planes (after start_raw): component c's plane at the output scale is width x height
 * samples; the caller gives it `rows` rows of at least `stride` bytes (libjpeg writes whole
 * blocks and row groups, beyond the plane's own size). One sample of it spans factor_h x
 * factor_v luma samples (1 or 2 each: chroma may keep luma's grid at a reduced scale). */
typedef struct {
    uint32_t width;
    uint32_t height;
    size_t stride;
    uint32_t rows;
    int32_t factor_h;
    int32_t factor_v;
} cjpeg_plane_geometry;
int cjpeg_decoder_raw_plane(cjpeg_decoder *decoder, int component, cjpeg_plane_geometry *geometry);
/* Decodes every row into planes[c] (rows strides[c] apart, laid out as raw_plane says) and
 * finishes as read_pixels does. */
int cjpeg_decoder_read_raw_planes(cjpeg_decoder *decoder, uint8_t *const planes[3], const size_t strides[3]);
/* read_raw_planes, calling progress(context, rows) after each row group with the luma rows
 * (at the output scale) complete so far: rows 0 ..< rows of Y and the matching chroma rows
 * (rows / factor_v, rounded up) hold their final samples. A consumer on another thread may read
 * them once it has seen the count (with the ordering of a lock or an acquire). */
int cjpeg_decoder_read_raw_planes_reporting(cjpeg_decoder *decoder, uint8_t *const planes[3], const size_t strides[3],
                                            void (*progress)(void *context, size_t rows), void *context);

/* Incremental decode (buffered-image mode): like start, after read_header. */
int cjpeg_decoder_start_buffered(cjpeg_decoder *decoder, int scale_num, uint32_t *width,
                                 uint32_t *height, int *channels);
/* Incremental decode: consumes the bytes appended so far and, when more of the image became
 * visible, writes it into dst and reports CJPEG_EVENT_PREVIEW; at the end of the image it
 * writes the final image and reports CJPEG_EVENT_FINAL. Rows not yet decoded are left alone. */
int cjpeg_decoder_advance(cjpeg_decoder *decoder, uint8_t *dst, size_t stride, int *event);

/* Why the last call failed, and libjpeg's message. */
int cjpeg_decoder_failure(const cjpeg_decoder *decoder);
const char *cjpeg_decoder_message(const cjpeg_decoder *decoder);

/* Encoder input description. */
typedef struct {
    uint32_t width;
    uint32_t height;
    int32_t components;      /* 1 (gray) or 3 (RGB), 8 bits per sample */
    int32_t quality;         /* 1...100 */
    int32_t progressive;     /* jpeg_simple_progression */
    int32_t subsampling_444; /* no chroma subsampling */
    const uint8_t *icc;      /* optional ICC profile, written as APP2 */
    size_t icc_count;
    /* optional markers written right after the JFIF APP0, in order: each one byte of marker
     * code (0xE0...0xEF), two bytes of payload length (big-endian, at most 65533) and the payload */
    const uint8_t *markers;
    size_t markers_count;
} cjpeg_encode_params;

/* Y'CbCr planes to encode: Y at the image's size, Cb and Cr at ceil(width / factor_h) x
 * ceil(height / factor_v) (factors 1 or 2), rows strides[c] bytes apart. */
typedef struct {
    const uint8_t *planes[3];
    size_t strides[3];
    size_t widths[3];
    size_t heights[3];
    int32_t factor_h;
    int32_t factor_v;
    /* Optional: called before each row group is read with the luma rows the encoder needs so
     * far (rows 0 ..< rows of Y and the matching chroma rows); it returns once they hold their
     * final samples, so planes can be encoded while they are still being produced. */
    void (*await_rows)(void *context, size_t rows);
    void *await_context;
} cjpeg_planes_input;
/* Encodes planes as they are (libjpeg's raw data input: no colour conversion or downsampling),
 * with params' size, quality, progression and ICC profile (components and subsampling_444 are
 * ignored). Output and failures as cjpeg_encode. */
int cjpeg_encode_planes(const cjpeg_encode_params *params, const cjpeg_planes_input *input,
                        uint8_t **out, size_t *out_count, char *message, size_t message_capacity);

/* Encodes rows stride bytes apart. On success *out is a malloc'd buffer for cjpeg_free.
 * On failure returns CJPEG_FAILED with the message in message (NUL-terminated). */
int cjpeg_encode(const cjpeg_encode_params *params, const uint8_t *pixels, size_t stride,
                 uint8_t **out, size_t *out_count, char *message, size_t message_capacity);
void cjpeg_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
