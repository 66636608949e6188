/* Error, source and progress managers for the decoder. */
#include <stdlib.h>
#include <string.h>

#include "cjpeg_internal.h"

/* ---- Errors: capture the message, classify it, jump back to the guard. ---- */

int cjpeg_classify_error(int msg_code, int eof_hit) {
    switch (msg_code) {
    case JERR_SOF_UNSUPPORTED: /* lossless, hierarchical, ... */
    case JERR_BAD_PRECISION:   /* 12-bit */
    case JERR_NOT_COMPILED:
    case JERR_ARITH_NOTIMPL:
    case JERR_CONVERSION_NOTIMPL:
    case JERR_IMAGE_TOO_BIG:
        return CJPEG_FAILURE_UNSUPPORTED;
    case JERR_OUT_OF_MEMORY:
        return CJPEG_FAILURE_NO_MEMORY;
    case JERR_BAD_STATE:
        return CJPEG_FAILURE_USAGE;
    default:
        return eof_hit ? CJPEG_FAILURE_TRUNCATED : CJPEG_FAILURE_CORRUPT;
    }
}

static void cjpeg_error_exit(j_common_ptr cinfo) {
    cjpeg_error_mgr *error = (cjpeg_error_mgr *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->message);
    error->failure = cjpeg_classify_error(error->pub.msg_code, error->eof_hit ? *error->eof_hit : 0);
    longjmp(error->jump, 1);
}

void cjpeg_fail(j_common_ptr cinfo, int failure, const char *message) {
    cjpeg_error_mgr *error = (cjpeg_error_mgr *)cinfo->err;
    snprintf(error->message, sizeof error->message, "%s", message);
    error->failure = failure;
    longjmp(error->jump, 1);
}

/* Warnings are counted and the first is kept; trace messages are dropped; nothing is printed. */
static void cjpeg_emit_message(j_common_ptr cinfo, int msg_level) {
    cjpeg_error_mgr *error = (cjpeg_error_mgr *)cinfo->err;
    if (msg_level >= 0) return;
    error->pub.num_warnings++;
    if (error->warnings++ == 0) (*cinfo->err->format_message)(cinfo, error->first_warning);
    switch (error->pub.msg_code) {
    case JWRN_HIT_MARKER:
    case JWRN_HUFF_BAD_CODE:
    case JWRN_ARITH_BAD_CODE:
    case JWRN_MUST_RESYNC:
    case JWRN_BOGUS_PROGRESSION:
        error->data_warnings++;
        break;
    default:
        break;
    }
}

static void cjpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

void cjpeg_install_error_mgr(cjpeg_error_mgr *error, const int *eof_hit) {
    jpeg_std_error(&error->pub);
    error->pub.error_exit = cjpeg_error_exit;
    error->pub.emit_message = cjpeg_emit_message;
    error->pub.output_message = cjpeg_output_message;
    error->eof_hit = eof_hit;
}

/* ---- Source: whole-file bytes, or a growing buffer that suspends when it runs dry. ---- */

static const JOCTET cjpeg_fake_eoi[2] = {0xFF, JPEG_EOI};

static void cjpeg_init_source(j_decompress_ptr cinfo) { (void)cinfo; }
static void cjpeg_term_source(j_decompress_ptr cinfo) { (void)cinfo; }

static boolean cjpeg_fill_input_buffer(j_decompress_ptr cinfo) {
    cjpeg_source_mgr *source = (cjpeg_source_mgr *)cinfo->src;
    if (source->incremental && !source->input_ended) return FALSE; /* suspend: wait for bytes */
    /* The file ended early: hand libjpeg an EOI so it can finish, and remember it. */
    source->eof_hit = 1;
    source->pub.next_input_byte = cjpeg_fake_eoi;
    source->pub.bytes_in_buffer = sizeof cjpeg_fake_eoi;
    return TRUE;
}

static void cjpeg_skip_input_data(j_decompress_ptr cinfo, long count) {
    cjpeg_source_mgr *source = (cjpeg_source_mgr *)cinfo->src;
    if (count <= 0) return;
    if ((size_t)count <= source->pub.bytes_in_buffer) {
        source->pub.next_input_byte += count;
        source->pub.bytes_in_buffer -= (size_t)count;
        return;
    }
    /* Past the bytes we have: skip the rest when (if) it arrives. */
    size_t missing = (size_t)count - source->pub.bytes_in_buffer;
    source->pub.next_input_byte += source->pub.bytes_in_buffer;
    source->pub.bytes_in_buffer = 0;
    if (source->incremental && !source->input_ended) source->skip_pending += missing;
}

void cjpeg_install_source_mgr(j_decompress_ptr cinfo, cjpeg_source_mgr *source) {
    source->pub.init_source = cjpeg_init_source;
    source->pub.fill_input_buffer = cjpeg_fill_input_buffer;
    source->pub.skip_input_data = cjpeg_skip_input_data;
    source->pub.resync_to_restart = jpeg_resync_to_restart;
    source->pub.term_source = cjpeg_term_source;
    source->pub.next_input_byte = NULL;
    source->pub.bytes_in_buffer = 0;
    cinfo->src = &source->pub;
}

/* ---- Progress: refuse streams with absurd numbers of scans while they are absorbed. ---- */

static void cjpeg_progress_monitor(j_common_ptr cinfo) {
    j_decompress_ptr dinfo = (j_decompress_ptr)cinfo;
    if (!cinfo->is_decompressor) return;
    if (dinfo->input_scan_number > CJPEG_MAX_SCANS)
        cjpeg_fail(cinfo, CJPEG_FAILURE_CORRUPT, "Corrupt JPEG data: more scans than the limit of 1000");
}

void cjpeg_install_scan_limit(cjpeg_decoder *decoder) {
    decoder->progress.progress_monitor = cjpeg_progress_monitor;
    decoder->cinfo.progress = &decoder->progress;
}
