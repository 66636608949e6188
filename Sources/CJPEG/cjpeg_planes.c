/* Whole Y'CbCr planes: libjpeg's raw (downsampled) output kept as it is, for a caller that
 * resamples the planes itself and writes them back with cjpeg_encode_planes (a JPEG → resize →
 * JPEG pipeline without colour conversion or chroma up- and downsampling). */
#include <stdlib.h>
#include <string.h>

#include "cjpeg_internal.h"

int cjpeg_decoder_raw_plane(cjpeg_decoder *decoder, int component, cjpeg_plane_geometry *geometry) {
    if (!decoder->started || !decoder->raw || component < 0 || component > 2)
        return cjpeg_usage_error(decoder, "raw_plane outside a started raw decode");
    j_decompress_ptr cinfo = &decoder->cinfo;
    jpeg_component_info *comp = &cinfo->comp_info[component];
    int group = cinfo->max_v_samp_factor * cinfo->min_DCT_scaled_size;
    JDIMENSION groups = (cinfo->output_height + group - 1) / group;
    geometry->width = comp->downsampled_width;
    geometry->height = comp->downsampled_height;
    /* libjpeg writes whole blocks: rows of the padded width, and whole row groups. */
    geometry->stride = ((size_t)comp->width_in_blocks + comp->h_samp_factor) * comp->DCT_scaled_size;
    geometry->rows = groups * (JDIMENSION)(comp->v_samp_factor * comp->DCT_scaled_size);
    /* Luma samples per sample of this plane, across and down (1 or 2 for the eligible samplings). */
    geometry->factor_h = (cinfo->max_h_samp_factor * cinfo->min_DCT_scaled_size) / (comp->h_samp_factor * comp->DCT_scaled_size);
    geometry->factor_v = (cinfo->max_v_samp_factor * cinfo->min_DCT_scaled_size) / (comp->v_samp_factor * comp->DCT_scaled_size);
    return CJPEG_OK;
}

int cjpeg_decoder_read_raw_planes(cjpeg_decoder *decoder, uint8_t *const planes[3], const size_t strides[3]) {
    return cjpeg_decoder_read_raw_planes_reporting(decoder, planes, strides, NULL, NULL);
}

int cjpeg_decoder_read_raw_planes_reporting(cjpeg_decoder *decoder, uint8_t *const planes[3], const size_t strides[3],
                                            void (*progress)(void *context, size_t rows), void *context) {
    if (!decoder->started || !decoder->raw || decoder->finished)
        return cjpeg_usage_error(decoder, "read_raw_planes outside a started raw decode");
    CJPEG_GUARD(decoder);
    j_decompress_ptr cinfo = &decoder->cinfo;
    int group = cinfo->max_v_samp_factor * cinfo->min_DCT_scaled_size;
    JSAMPROW pointers[3][2 * DCTSIZE * 2];
    JSAMPARRAY arrays[3] = {pointers[0], pointers[1], pointers[2]};
    size_t read_rows[3] = {0, 0, 0};
    while (cinfo->output_scanline < cinfo->output_height) {
        for (int c = 0; c < 3; c++) {
            jpeg_component_info *comp = &cinfo->comp_info[c];
            int rows = comp->v_samp_factor * comp->DCT_scaled_size;
            for (int r = 0; r < rows; r++) pointers[c][r] = planes[c] + (read_rows[c] + (size_t)r) * strides[c];
        }
        if (jpeg_read_raw_data(cinfo, arrays, (JDIMENSION)group) == 0) return CJPEG_SUSPENDED;
        for (int c = 0; c < 3; c++) read_rows[c] += (size_t)(cinfo->comp_info[c].v_samp_factor * cinfo->comp_info[c].DCT_scaled_size);
        if (progress != NULL) /* libjpeg counts whole row groups, past the height at the end */
            progress(context, cinfo->output_scanline < cinfo->output_height ? cinfo->output_scanline : cinfo->output_height);
    }
    return cjpeg_finish_one_shot(decoder);
}

/* Writes the planes an iMCU row at a time through a padded copy: libjpeg reads whole blocks, so
 * each plane's right edge and last rows are replicated out to them (as its own downsampler does). */
static void cjpeg_write_planes(j_compress_ptr cinfo, const void *context, uint8_t *scratch) {
    const cjpeg_planes_input *input = context;
    JSAMPROW pointers[3][2 * DCTSIZE];
    JSAMPARRAY arrays[3] = {pointers[0], pointers[1], pointers[2]};
    int group = cinfo->max_v_samp_factor * DCTSIZE;
    size_t offsets[3], offset = 0;
    for (int c = 0; c < 3; c++) {
        offsets[c] = offset;
        offset += (size_t)cinfo->comp_info[c].width_in_blocks * DCTSIZE * (size_t)(cinfo->comp_info[c].v_samp_factor * DCTSIZE);
    }
    for (JDIMENSION y = 0; y < cinfo->image_height; y += (JDIMENSION)group) {
        size_t row_group = y / (JDIMENSION)group;
        if (input->await_rows != NULL) {
            JDIMENSION end = y + (JDIMENSION)group;
            input->await_rows(input->await_context, end < cinfo->image_height ? end : cinfo->image_height);
        }
        for (int c = 0; c < 3; c++) {
            jpeg_component_info *comp = &cinfo->comp_info[c];
            size_t padded = (size_t)comp->width_in_blocks * DCTSIZE;
            size_t width = input->widths[c], height = input->heights[c];
            int rows = comp->v_samp_factor * DCTSIZE;
            for (int r = 0; r < rows; r++) {
                size_t source_row = row_group * (size_t)rows + (size_t)r;
                if (source_row >= height) source_row = height - 1;
                uint8_t *row = scratch + offsets[c] + (size_t)r * padded;
                const uint8_t *source = input->planes[c] + source_row * input->strides[c];
                memcpy(row, source, width);
                if (padded > width) memset(row + width, source[width - 1], padded - width);
                pointers[c][r] = row;
            }
        }
        jpeg_write_raw_data(cinfo, arrays, (JDIMENSION)group);
    }
}

static void cjpeg_configure_planes(j_compress_ptr cinfo, const cjpeg_encode_params *params, const void *context) {
    const cjpeg_planes_input *input = context;
    cinfo->image_width = params->width;
    cinfo->image_height = params->height;
    cinfo->input_components = 3;
    cinfo->in_color_space = JCS_YCbCr;
    jpeg_set_defaults(cinfo);
    jpeg_set_quality(cinfo, params->quality, TRUE);
    cinfo->comp_info[0].h_samp_factor = input->factor_h;
    cinfo->comp_info[0].v_samp_factor = input->factor_v;
    cinfo->raw_data_in = TRUE;
    if (params->progressive) jpeg_simple_progression(cinfo);
}

int cjpeg_encode_planes(const cjpeg_encode_params *params, const cjpeg_planes_input *input,
                        uint8_t **out, size_t *out_count, char *message, size_t message_capacity) {
    *out = NULL;
    *out_count = 0;
    int fh = input->factor_h, fv = input->factor_v;
    if ((fh != 1 && fh != 2) || (fv != 1 && fv != 2) || params->width == 0 || params->height == 0) {
        snprintf(message, message_capacity, "planes subsampled %dx%d at %ux%u: only 1 or 2 each way, and a size", fh, fv, params->width, params->height);
        return CJPEG_FAILED;
    }
    for (int c = 0; c < 3; c++) {
        size_t w = c == 0 ? params->width : (params->width + (uint32_t)fh - 1) / (uint32_t)fh;
        size_t h = c == 0 ? params->height : (params->height + (uint32_t)fv - 1) / (uint32_t)fv;
        if (input->widths[c] != w || input->heights[c] != h || input->strides[c] < w || input->planes[c] == NULL) {
            snprintf(message, message_capacity, "plane %d is %zux%zu, not %zux%zu", c, input->widths[c], input->heights[c], w, h);
            return CJPEG_FAILED;
        }
    }
    /* Scratch for one iMCU row of each plane, padded to whole blocks. */
    size_t scratch_bytes = 0;
    for (int c = 0; c < 3; c++) {
        size_t blocks = (input->widths[c] + DCTSIZE - 1) / DCTSIZE + 2; /* at least width_in_blocks */
        size_t rows = (c == 0 ? (size_t)fv : 1) * DCTSIZE;               /* v_samp_factor * DCTSIZE */
        scratch_bytes += blocks * DCTSIZE * rows;
    }
    uint8_t *scratch = malloc(scratch_bytes);
    if (scratch == NULL) {
        snprintf(message, message_capacity, "out of memory");
        return CJPEG_FAILED;
    }
    int status = cjpeg_encode_run(params, message, message_capacity, out, out_count, cjpeg_configure_planes, cjpeg_write_planes, input, scratch);
    free(scratch);
    return status;
}
