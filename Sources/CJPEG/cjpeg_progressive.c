/* Incremental decoding in libjpeg's buffered-image mode: previews of each completed scan of a
 * multi-scan (progressive) stream, rows as they arrive for a single-scan stream. */
#include "cjpeg_internal.h"

int cjpeg_decoder_start_buffered(cjpeg_decoder *decoder, int scale_num, uint32_t *width, uint32_t *height,
                                 int *channels) {
    if (!decoder->header_read || decoder->started) return cjpeg_usage_error(decoder, "start outside the header state");
    if (scale_num < 1 || scale_num > 16) return cjpeg_usage_error(decoder, "scale_num outside 1...16");
    CJPEG_GUARD(decoder);
    cjpeg_configure_output(decoder, scale_num);
    decoder->cinfo.buffered_image = TRUE;
    /* In buffered-image mode this only sets up; it never waits for input. */
    if (!jpeg_start_decompress(&decoder->cinfo)) return CJPEG_SUSPENDED;
    decoder->buffered = 1;
    cjpeg_after_start(decoder, width, height, channels);
    return CJPEG_OK;
}

/* Reads the rest of the current output pass; all its input is present. */
static void cjpeg_read_whole_pass(cjpeg_decoder *decoder, uint8_t *dst, size_t stride) {
    j_decompress_ptr cinfo = &decoder->cinfo;
    while (cinfo->output_scanline < cinfo->output_height) {
        if (cjpeg_read_rows(decoder, dst, stride, 0, 16) == 0)
            cjpeg_fail((j_common_ptr)cinfo, CJPEG_FAILURE_CORRUPT, "libjpeg stalled in an output pass");
    }
}

int cjpeg_decoder_advance(cjpeg_decoder *decoder, uint8_t *dst, size_t stride, int *event) {
    *event = CJPEG_EVENT_NONE;
    if (!decoder->started || !decoder->buffered || decoder->finished)
        return cjpeg_usage_error(decoder, "advance outside a started incremental decode");
    CJPEG_GUARD(decoder);
    j_decompress_ptr cinfo = &decoder->cinfo;

    /* Absorb everything that has arrived. */
    while (!jpeg_input_complete(cinfo)) {
        int result = jpeg_consume_input(cinfo);
        if (cinfo->input_scan_number > CJPEG_MAX_SCANS)
            cjpeg_fail((j_common_ptr)cinfo, CJPEG_FAILURE_CORRUPT, "Corrupt JPEG data: more scans than the limit of 1000");
        if (result == JPEG_SUSPENDED || result == JPEG_REACHED_EOI) break;
    }

    if (jpeg_input_complete(cinfo)) {
        /* The final pass shows every scan. */
        if (decoder->output_open && cinfo->output_scan_number < cinfo->input_scan_number) {
            jpeg_finish_output(cinfo);
            decoder->output_open = 0;
        }
        if (!decoder->output_open) {
            jpeg_start_output(cinfo, cinfo->input_scan_number);
            decoder->output_open = 1;
        }
        cjpeg_read_whole_pass(decoder, dst, stride);
        jpeg_finish_output(cinfo);
        decoder->output_open = 0;
        jpeg_finish_decompress(cinfo);
        decoder->finished = 1;
        *event = CJPEG_EVENT_FINAL;
        return CJPEG_OK;
    }

    if (!decoder->multi_scan) {
        /* One scan: a single output pass follows the input row by row. */
        if (!decoder->output_open) {
            jpeg_start_output(cinfo, 1);
            decoder->output_open = 1;
        }
        JDIMENSION before = cinfo->output_scanline;
        while (cinfo->output_scanline < cinfo->output_height) {
            if (cjpeg_read_rows(decoder, dst, stride, 0, 16) == 0) break; /* waiting for input */
        }
        if (cinfo->output_scanline > before) *event = CJPEG_EVENT_PREVIEW;
        return CJPEG_OK;
    }

    /* Several scans: show the newest scan that is complete. Scan N is known complete once scan
     * N + 1 has started; then finishing its output pass never waits for input. */
    int completed = cinfo->input_scan_number - 1;
    if (completed > decoder->shown_scan) {
        jpeg_start_output(cinfo, completed);
        cjpeg_read_whole_pass(decoder, dst, stride);
        if (!jpeg_finish_output(cinfo))
            cjpeg_fail((j_common_ptr)cinfo, CJPEG_FAILURE_CORRUPT, "libjpeg suspended finishing a complete scan");
        decoder->shown_scan = completed;
        *event = CJPEG_EVENT_PREVIEW;
    }
    return CJPEG_OK;
}
