#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <jpeglib.h>

#include "include/cbenchjpeg.h"

typedef struct {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
} bench_error;

static void bench_error_exit(j_common_ptr cinfo) { longjmp(((bench_error *)cinfo->err)->jump, 1); }
static void bench_output_message(j_common_ptr cinfo) { (void)cinfo; }

int cbench_jpeg_decode(const uint8_t *data, size_t count, int scale_num, uint8_t **pixels,
                       uint32_t *width, uint32_t *height, int *channels) {
    struct jpeg_decompress_struct cinfo;
    bench_error error;
    uint8_t *volatile buffer = NULL;
    cinfo.err = jpeg_std_error(&error.pub);
    error.pub.error_exit = bench_error_exit;
    error.pub.output_message = bench_output_message;
    if (setjmp(error.jump)) {
        jpeg_destroy_decompress(&cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)count);
    jpeg_read_header(&cinfo, TRUE);
    cinfo.out_color_space = cinfo.jpeg_color_space == JCS_GRAYSCALE ? JCS_GRAYSCALE : JCS_RGB;
    cinfo.scale_num = (unsigned int)scale_num;
    cinfo.scale_denom = 8;
    jpeg_start_decompress(&cinfo);
    size_t stride = (size_t)cinfo.output_width * cinfo.output_components;
    buffer = malloc(stride * cinfo.output_height);
    if (buffer == NULL) {
        jpeg_destroy_decompress(&cinfo);
        return -1;
    }
    JSAMPROW rows[16];
    while (cinfo.output_scanline < cinfo.output_height) {
        JDIMENSION left = cinfo.output_height - cinfo.output_scanline;
        JDIMENSION want = left < 16 ? left : 16;
        for (JDIMENSION i = 0; i < want; i++) rows[i] = buffer + (cinfo.output_scanline + i) * stride;
        jpeg_read_scanlines(&cinfo, rows, want);
    }
    jpeg_finish_decompress(&cinfo);
    *pixels = buffer;
    *width = cinfo.output_width;
    *height = cinfo.output_height;
    *channels = cinfo.output_components;
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

int cbench_jpeg_encode(const uint8_t *pixels, uint32_t width, uint32_t height, int channels,
                       int quality, int subsampling_444, int progressive, uint8_t **out, size_t *count) {
    struct jpeg_compress_struct cinfo;
    bench_error error;
    unsigned char *buffer = NULL;
    unsigned long size = 0;
    cinfo.err = jpeg_std_error(&error.pub);
    error.pub.error_exit = bench_error_exit;
    error.pub.output_message = bench_output_message;
    if (setjmp(error.jump)) {
        jpeg_destroy_compress(&cinfo);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, &buffer, &size);
    cinfo.image_width = width;
    cinfo.image_height = height;
    cinfo.input_components = channels;
    cinfo.in_color_space = channels == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&cinfo);
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (subsampling_444 && channels == 3) {
        cinfo.comp_info[0].h_samp_factor = 1;
        cinfo.comp_info[0].v_samp_factor = 1;
    }
    if (progressive) jpeg_simple_progression(&cinfo);
    jpeg_start_compress(&cinfo, TRUE);
    size_t stride = (size_t)width * channels;
    JSAMPROW rows[16];
    while (cinfo.next_scanline < cinfo.image_height) {
        JDIMENSION left = cinfo.image_height - cinfo.next_scanline;
        JDIMENSION want = left < 16 ? left : 16;
        for (JDIMENSION i = 0; i < want; i++) rows[i] = (JSAMPROW)(pixels + (cinfo.next_scanline + i) * stride);
        jpeg_write_scanlines(&cinfo, rows, want);
    }
    jpeg_finish_compress(&cinfo);
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *count = size;
    return 0;
}

void cbench_free(void *pointer) { free(pointer); }
