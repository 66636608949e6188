/* The codec floor of a cold render: what image-proxy's planar JPEG path must do at the least for
 * `resize:fill:W:H/q:Q/f:jpeg` of a JPEG source, on one core, without HTTP, fetching, caching or
 * threads. For every source (all read into memory first):
 *
 *   1. libjpeg-turbo decode to the raw Y'CbCr planes (raw_data_out, no colour conversion, no chroma
 *      upsampling), ISLOW IDCT, at the DCT scale the service picks (JPEGScalePlan.shrinkPlan: the
 *      smallest of 1/8, 2/8, 4/8 whose output still covers the fill box, else 8/8), saving the
 *      APP1/APP2/APP13 markers as the service's decoder does;
 *   2. the service's resize of the planes (ResizeTransformer.planeFilters): fill geometry, centre
 *      placement, Lanczos-3 weights computed as Pillow's precompute_coeffs (FilterWeights), in
 *      16-bit fixed point with Pillow-SIMD's precision (FixedPointTaps), the two passes in the
 *      order the service takes (SeparableFilter.fixedPointLayout) through a clamped 8-bit
 *      intermediate; chroma resampled onto the 4:2:0 grid of the output;
 *   3. libjpeg-turbo encode of the planes (raw_data_in), jpeg_set_defaults + jpeg_set_quality(Q),
 *      4:2:0, baseline, no optimize_coding, edges replicated to whole blocks (cjpeg_write_planes).
 *
 * The weights are computed once per source geometry (the service caches them, FilterAxisCache).
 * With AVX2 or better the passes run on the service's own kernels (Sources/CTransformKernels,
 * linked in by run.sh) in the order its transposed path takes; otherwise on plain C loops with the
 * same arithmetic (the service's portable level takes its direct path). Either way the same bytes.
 *
 *   floor [-w W] [-h H] [-q Q] [-r ROUNDS] [-o OUTDIR] FILE...
 *
 * Prints one line of key=value pairs: images, rounds, wall_s and cpu_s (process CPU) over the
 * renders (the reading excluded), cpu_us_per_image, the split decode/resize/encode (thread CPU), the mean
 * output bytes and the DCT scales used. With -o, writes each result as OUTDIR/<basename>. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jpeglib.h>

#include "floor_resize.h"

typedef struct {
    char *name;
    unsigned char *bytes;
    unsigned long count;
} source_t;

static double clock_now(clockid_t clock) {
    struct timespec ts;
    clock_gettime(clock, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void die(const char *what, const char *detail) {
    fprintf(stderr, "floor: %s%s%s\n", what, detail ? ": " : "", detail ? detail : "");
    exit(1);
}

static source_t read_source(const char *path) {
    FILE *f = fopen(path, "rb");
    if (f == NULL) die(path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    source_t s = {0};
    s.bytes = malloc((size_t)size);
    if (size <= 0 || s.bytes == NULL || fread(s.bytes, 1, (size_t)size, f) != (size_t)size) die(path, "cannot read");
    fclose(f);
    s.count = (unsigned long)size;
    const char *slash = strrchr(path, '/');
    s.name = strdup(slash ? slash + 1 : path);
    return s;
}

/* Libjpeg's scaled size, ceil(size * n / 8). */
static unsigned scaled(unsigned size, int n) { return (size * (unsigned)n + 7) / 8; }

/* One render; returns the encoded bytes (malloc'ed by jpeg_mem_dest) and sets *scale_used. */
static unsigned char *render(const source_t *s, const floor_box_t *box, int quality, unsigned long *out_count, int *scale_used,
                             floor_plan_cache_t *plans, double split[3]) {
    double t0 = clock_now(CLOCK_THREAD_CPUTIME_ID);
    struct jpeg_decompress_struct d;
    struct jpeg_error_mgr jerr;
    d.err = jpeg_std_error(&jerr);
    jpeg_create_decompress(&d);
    jpeg_save_markers(&d, JPEG_APP0 + 1, 0xFFFF);
    jpeg_save_markers(&d, JPEG_APP0 + 2, 0xFFFF);
    jpeg_save_markers(&d, JPEG_APP0 + 13, 0xFFFF);
    jpeg_mem_src(&d, s->bytes, s->count);
    jpeg_read_header(&d, TRUE);
    if (d.num_components != 3 || d.jpeg_color_space != JCS_YCbCr || d.comp_info[1].h_samp_factor != 1 || d.comp_info[1].v_samp_factor != 1)
        die(s->name, "not a three-component Y'CbCr JPEG with 1x1 chroma (the service's planar path does not take it)");
    int n = 8;
    for (int fast = 1; fast < 8; fast *= 2) /* the smallest fast scale whose output covers the fill box */
        if ((int)scaled(d.image_width, fast) >= box->width && (int)scaled(d.image_height, fast) >= box->height) {
            n = fast;
            break;
        }
    *scale_used = n;
    d.scale_num = (unsigned)n;
    d.scale_denom = 8;
    d.out_color_space = JCS_YCbCr;
    d.raw_data_out = TRUE;
    jpeg_start_decompress(&d);
    floor_planes_t in;
    int group = d.max_v_samp_factor * d.min_DCT_scaled_size;
    unsigned groups = (d.output_height + (unsigned)group - 1) / (unsigned)group;
    for (int c = 0; c < 3; c++) {
        jpeg_component_info *comp = &d.comp_info[c];
        in.width[c] = (int)comp->downsampled_width;
        in.height[c] = (int)comp->downsampled_height;
        in.stride[c] = ((size_t)comp->width_in_blocks + (size_t)comp->h_samp_factor) * (size_t)comp->DCT_scaled_size;
        in.plane[c] = malloc(in.stride[c] * groups * (size_t)(comp->v_samp_factor * comp->DCT_scaled_size));
        in.factor_h[c] = (d.max_h_samp_factor * d.min_DCT_scaled_size) / (comp->h_samp_factor * comp->DCT_scaled_size);
        in.factor_v[c] = (d.max_v_samp_factor * d.min_DCT_scaled_size) / (comp->v_samp_factor * comp->DCT_scaled_size);
    }
    JSAMPROW rows[3][2 * DCTSIZE * 2];
    JSAMPARRAY arrays[3] = {rows[0], rows[1], rows[2]};
    size_t done[3] = {0, 0, 0};
    while (d.output_scanline < d.output_height) {
        for (int c = 0; c < 3; c++) {
            int count = d.comp_info[c].v_samp_factor * d.comp_info[c].DCT_scaled_size;
            for (int r = 0; r < count; r++) rows[c][r] = in.plane[c] + (done[c] + (size_t)r) * in.stride[c];
            done[c] += (size_t)count;
        }
        jpeg_read_raw_data(&d, arrays, (JDIMENSION)group);
    }
    jpeg_finish_decompress(&d);
    jpeg_destroy_decompress(&d);
    double t1 = clock_now(CLOCK_THREAD_CPUTIME_ID);

    floor_planes_t out;
    floor_resize(&in, box, plans, &out);
    for (int c = 0; c < 3; c++) free(in.plane[c]);
    double t2 = clock_now(CLOCK_THREAD_CPUTIME_ID);

    struct jpeg_compress_struct e;
    e.err = jpeg_std_error(&jerr);
    jpeg_create_compress(&e);
    unsigned char *encoded = NULL;
    *out_count = 0;
    jpeg_mem_dest(&e, &encoded, out_count);
    e.image_width = (JDIMENSION)out.width[0];
    e.image_height = (JDIMENSION)out.height[0];
    e.input_components = 3;
    e.in_color_space = JCS_YCbCr;
    jpeg_set_defaults(&e);
    jpeg_set_quality(&e, quality, TRUE);
    e.comp_info[0].h_samp_factor = 2;
    e.comp_info[0].v_samp_factor = 2;
    e.raw_data_in = TRUE;
    jpeg_start_compress(&e, TRUE);
    floor_write_planes(&e, &out);
    jpeg_finish_compress(&e);
    jpeg_destroy_compress(&e);
    for (int c = 0; c < 3; c++) free(out.plane[c]);
    double t3 = clock_now(CLOCK_THREAD_CPUTIME_ID);
    split[0] += t1 - t0;
    split[1] += t2 - t1;
    split[2] += t3 - t2;
    return encoded;
}

int main(int argc, char **argv) {
    floor_box_t box = {300, 200};
    int quality = 80, rounds = 1, opt;
    const char *outdir = NULL;
    while ((opt = getopt(argc, argv, "w:h:q:r:o:")) != -1) {
        switch (opt) {
        case 'w': box.width = atoi(optarg); break;
        case 'h': box.height = atoi(optarg); break;
        case 'q': quality = atoi(optarg); break;
        case 'r': rounds = atoi(optarg); break;
        case 'o': outdir = optarg; break;
        default: die("usage: floor [-w W] [-h H] [-q Q] [-r ROUNDS] [-o OUTDIR] FILE...", NULL);
        }
    }
    if (optind >= argc || box.width < 1 || box.height < 1 || quality < 1 || quality > 100 || rounds < 1) die("usage: floor [-w W] [-h H] [-q Q] [-r ROUNDS] [-o OUTDIR] FILE...", NULL);
    int count = argc - optind;
    source_t *sources = calloc((size_t)count, sizeof *sources);
    for (int i = 0; i < count; i++) sources[i] = read_source(argv[optind + i]);

    floor_plan_cache_t plans = {0};
    double split[3] = {0, 0, 0};
    unsigned long total_bytes = 0;
    int scales[9] = {0};
    unsigned char **results = calloc((size_t)count, sizeof *results);
    unsigned long *result_counts = calloc((size_t)count, sizeof *result_counts);
    double start = clock_now(CLOCK_PROCESS_CPUTIME_ID), wall_start = clock_now(CLOCK_MONOTONIC);
    for (int r = 0; r < rounds; r++) {
        for (int i = 0; i < count; i++) {
            unsigned long n = 0;
            int scale = 8;
            unsigned char *encoded = render(&sources[i], &box, quality, &n, &scale, &plans, split);
            if (r == 0) {
                total_bytes += n;
                scales[scale]++;
            }
            if (r == 0 && outdir != NULL) { /* written after the clock stops */
                results[i] = encoded;
                result_counts[i] = n;
            } else {
                free(encoded);
            }
        }
    }
    double cpu = clock_now(CLOCK_PROCESS_CPUTIME_ID) - start, wall = clock_now(CLOCK_MONOTONIC) - wall_start;
    for (int i = 0; outdir != NULL && i < count; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", outdir, sources[i].name);
        FILE *f = fopen(path, "wb");
        if (f == NULL || fwrite(results[i], 1, result_counts[i], f) != result_counts[i] || fclose(f) != 0) die(path, "cannot write");
        free(results[i]);
    }
    double images = (double)count * rounds;
    printf("images=%d rounds=%d wall_s=%.4f cpu_s=%.4f cpu_us_per_image=%.1f decode_us=%.1f resize_us=%.1f encode_us=%.1f bytes_mean=%.0f scales=",
           count, rounds, wall, cpu, cpu / images * 1e6, split[0] / images * 1e6, split[1] / images * 1e6, split[2] / images * 1e6,
           (double)total_bytes / count);
    const char *sep = "";
    for (int n = 1; n <= 8; n++)
        if (scales[n]) {
            printf("%s%d/8:%d", sep, n, scales[n]);
            sep = ",";
        }
    printf("\n");
    return 0;
}
