/* Shared internals of the CJPEG shim: the decoder object, error and source managers. */
#ifndef CJPEG_INTERNAL_H
#define CJPEG_INTERNAL_H

#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>

#include "include/cjpeg.h"

#define CJPEG_MESSAGE_CAPACITY JMSG_LENGTH_MAX

/* The shim hands 8-bit rows to Swift as uint8_t. */
_Static_assert(BITS_IN_JSAMPLE == 8, "CJPEG needs libjpeg built for 8-bit samples");
_Static_assert(sizeof(JSAMPLE) == sizeof(uint8_t), "JSAMPLE must be one byte");

/* The error manager: libjpeg's fields first, then where to jump and what was said. */
typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    int failure;                               /* cjpeg_failure of the last error */
    int warnings;                              /* warnings so far */
    int data_warnings;                         /* warnings about damaged entropy data */
    char message[CJPEG_MESSAGE_CAPACITY];      /* the last error */
    char first_warning[CJPEG_MESSAGE_CAPACITY];
    const int *eof_hit;                        /* the source's flag, to classify errors */
} cjpeg_error_mgr;

/* The source: either borrowed whole-file bytes or an owned, growing buffer. */
typedef struct {
    struct jpeg_source_mgr pub;
    const uint8_t *bytes;    /* all bytes so far (borrowed or owned) */
    size_t count;
    uint8_t *owned;          /* non-NULL in incremental mode */
    size_t capacity;
    int incremental;         /* running out suspends unless input_ended */
    int input_ended;
    int eof_hit;             /* ran out of bytes with the file ended: a fake EOI was supplied */
    size_t skip_pending;     /* bytes still to skip beyond the data so far (incremental) */
    size_t eoi_scan_from;    /* where the search for an EOI marker resumes */
    int saw_eoi;
} cjpeg_source_mgr;

struct cjpeg_decoder {
    struct jpeg_decompress_struct cinfo;
    cjpeg_error_mgr error;
    cjpeg_source_mgr source;
    struct jpeg_progress_mgr progress;
    int header_read;
    int multi_scan;       /* jpeg_has_multiple_scans, kept for after finish */
    int started;
    int buffered;
    int finished;
    int cmyk;             /* output converts CMYK to RGB */
    int inverted;         /* CMYK samples are stored inverted (Adobe) */
    JSAMPARRAY cmyk_row;  /* one CMYK row, in libjpeg's image pool */
    int output_open;      /* buffered mode: an output pass is running */
    int shown_scan;       /* buffered mode: the scan the last preview showed */
    int cmyk_output;      /* CMYK/YCCK sources deliver their CMYK samples (4 channels), not RGB */
    int fast_upsampling;  /* merged chroma upsampling: cheaper, not djpeg's default pixels */
    int poisoned;         /* a call failed: libjpeg's state is no longer usable */
    int raw;              /* a raw (planar YCbCr) thumbnail decode */
    void *raw_blocks[16]; /* its malloc'd planes and tables, freed when it ends or at destroy */
    int raw_block_count;
};

/* Error and source managers (cjpeg_managers.c). */
void cjpeg_install_error_mgr(cjpeg_error_mgr *error, const int *eof_hit);
/* Fails the current call from inside libjpeg's dynamic extent (jumps to the guard). */
void cjpeg_fail(j_common_ptr cinfo, int failure, const char *message);
void cjpeg_install_source_mgr(j_decompress_ptr cinfo, cjpeg_source_mgr *source);
void cjpeg_install_scan_limit(cjpeg_decoder *decoder);
int cjpeg_classify_error(int msg_code, int eof_hit);

/* Every decoder entry point that calls libjpeg opens with this guard, in its own frame. A
 * failure poisons the decoder: libjpeg's state after a longjmp is only fit for jpeg_destroy. */
#define CJPEG_GUARD(decoder)                                                \
    do {                                                                    \
        if ((decoder)->poisoned) return CJPEG_FAILED;                       \
        if (setjmp((decoder)->error.jump)) {                                \
            (decoder)->poisoned = 1;                                        \
            return CJPEG_FAILED;                                            \
        }                                                                   \
    } while (0)

/* Records a call-order mistake and poisons the decoder. */
int cjpeg_usage_error(cjpeg_decoder *decoder, const char *message);

/* Output helpers (cjpeg_decode.c), to be called inside a setjmp guard. */
void cjpeg_configure_output(cjpeg_decoder *decoder, int scale_num);
void cjpeg_after_start(cjpeg_decoder *decoder, uint32_t *width, uint32_t *height, int *channels);
/* Reads up to max_rows (at most 16) rows at the current scanline; dst holds row first_row. */
JDIMENSION cjpeg_read_rows(cjpeg_decoder *decoder, uint8_t *dst, size_t stride, JDIMENSION first_row,
                           JDIMENSION max_rows);

/* Finishes a one-shot decode after its last row, with the truncation check. */
int cjpeg_finish_one_shot(cjpeg_decoder *decoder);
/* Encoding (cjpeg_encode.c): sets up, calls `configure` and `write` inside the setjmp guard,
 * and hands back the output; shared by interleaved rows and raw planes (cjpeg_planes.c). */
typedef void (*cjpeg_configure_fn)(j_compress_ptr cinfo, const cjpeg_encode_params *params, const void *context);
typedef void (*cjpeg_write_fn)(j_compress_ptr cinfo, const void *context, uint8_t *scratch);
int cjpeg_encode_run(const cjpeg_encode_params *params, char *message, size_t message_capacity, uint8_t **out, size_t *out_count,
                     cjpeg_configure_fn configure, cjpeg_write_fn write, const void *context, uint8_t *scratch);

/* Frees the raw decode's buffers (cjpeg_raw.c). */
void cjpeg_raw_release(cjpeg_decoder *decoder);

#endif
