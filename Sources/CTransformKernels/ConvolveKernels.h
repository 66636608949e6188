// The convolution kernels, compiled once per instruction set: the including file defines
// IK_TARGET (the function attribute), IK_NAME(base) (the function's name) and
// IK_DOT(acc, x, c) (acc plus the pairwise products of x and c, as `vpmaddwd` then `vpaddd`, or
// one `vpdpwssd`).
//
// Both passes multiply 16-bit samples by 16-bit coefficients in pairs and sum in 32 bits, as
// Pillow-SIMD does: the horizontal pass puts two rows in the two 128-bit lanes of a register,
// and four rows share each broadcast coefficient pair; the vertical pass interleaves two source
// rows so each product applies two taps to eight samples.

static inline int32_t load_pair(const int16_t *k) {
    int32_t v;
    memcpy(&v, k, sizeof v);
    return v;
}

static inline void store_pixel(uint8_t *out, uint32_t v, int channels, int last) {
    if (channels == 4 || !last) memcpy(out, &v, 4); // RGB: the 4th byte is overwritten by the next pixel
    else memcpy(out, &v, 3);
}

/// The shuffles of the horizontal kernels: samples of pixels 0,1 (`pair` 0) or 2,3 (`pair` 1) of
/// four loaded pixels, as 16-bit pairs per channel, (p0.c, p1.c) for c in 0..<4; the fourth
/// channel of RGB stays zero.
IK_TARGET static inline __m256i pixel_pairs(int channels, int pair) {
    if (channels == 4) {
        return pair ? _mm256_setr_epi8(8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1, 8, -1, 12, -1, 9, -1, 13, -1, 10, -1, 14, -1, 11, -1, 15, -1)
                    : _mm256_setr_epi8(0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1, 0, -1, 4, -1, 1, -1, 5, -1, 2, -1, 6, -1, 3, -1, 7, -1);
    }
    return pair ? _mm256_setr_epi8(6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1, 6, -1, 9, -1, 7, -1, 10, -1, 8, -1, 11, -1, -1, -1, -1, -1)
                : _mm256_setr_epi8(0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1, 0, -1, 3, -1, 1, -1, 4, -1, 2, -1, 5, -1, -1, -1, -1, -1);
}

/// Stores output pixel `i` of up to four rows from the horizontal kernels' sums: rows 0 and 1 in
/// the lanes of `sum01`, rows 2 and 3 in those of `sum23`, with `shift` fractional bits.
IK_TARGET static inline void store_output(
    uint8_t *const *out, int rows, int channels, int32_t i, int last, __m256i sum01, __m256i sum23, __m128i shift) {
    // Lane 0: row 0 then row 2; lane 1: row 1 then row 3.
    __m256i s = _mm256_packs_epi32(_mm256_sra_epi32(sum01, shift), _mm256_sra_epi32(sum23, shift));
    s = _mm256_packus_epi16(s, s);
    uint32_t px[8];
    _mm256_storeu_si256((__m256i *)px, s);
    const size_t at = (size_t)i * channels;
    store_pixel(out[0] + at, px[0], channels, last);
    if (rows > 1) store_pixel(out[1] + at, px[4], channels, last);
    if (rows > 2) store_pixel(out[2] + at, px[1], channels, last);
    if (rows > 3) store_pixel(out[3] + at, px[5], channels, last);
}

IK_TARGET void IK_NAME(ik_convolve_rows_u8)(const uint8_t *const *in, uint8_t *const *out, int rows, int channels, const ik_taps *t) {
    const __m256i first = pixel_pairs(channels, 0), second = pixel_pairs(channels, 1);
    const __m256i round = _mm256_set1_epi32(1 << (t->precision - 1));
    const __m128i shift = _mm_cvtsi32_si128(t->precision);
    // Rows 0,1 share one register (one per 128-bit lane), rows 2,3 another; missing rows repeat
    // row 0 and are not stored.
    const uint8_t *r0 = in[0], *r1 = rows > 1 ? in[1] : r0, *r2 = rows > 2 ? in[2] : r0, *r3 = rows > 3 ? in[3] : r0;
    const int32_t count = t->count;
    for (int32_t i = 0; i < count; i++) {
        const size_t start = (size_t)t->starts[i] * channels;
        const uint8_t *p0 = r0 + start, *p1 = r1 + start, *p2 = r2 + start, *p3 = r3 + start;
        const int16_t *k = t->coefficients + t->offsets[i];
        const int32_t n = t->counts[i];
        __m256i a01 = round, b01 = _mm256_setzero_si256(), a23 = round, b23 = _mm256_setzero_si256();
        for (int32_t j = 0; j < n; j += 4) {
            const size_t at = (size_t)j * channels;
            const __m256i c01 = _mm256_set1_epi32(load_pair(k + j)), c23 = _mm256_set1_epi32(load_pair(k + j + 2));
            const __m256i x01 = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p0 + at))), _mm_loadu_si128((const __m128i *)(p1 + at)), 1);
            const __m256i x23 = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p2 + at))), _mm_loadu_si128((const __m128i *)(p3 + at)), 1);
            a01 = IK_DOT(a01, _mm256_shuffle_epi8(x01, first), c01);
            b01 = IK_DOT(b01, _mm256_shuffle_epi8(x01, second), c23);
            a23 = IK_DOT(a23, _mm256_shuffle_epi8(x23, first), c01);
            b23 = IK_DOT(b23, _mm256_shuffle_epi8(x23, second), c23);
        }
        store_output(out, rows, channels, i, i == count - 1, _mm256_add_epi32(a01, b01), _mm256_add_epi32(a23, b23), shift);
    }
}

#ifndef IK_WIDE_COLUMNS  // the including file has its own column kernels
IK_TARGET void IK_NAME(ik_convolve_columns_u8)(
    const uint8_t *const *rows, int32_t count, const int16_t *coefficients, int32_t precision, uint8_t *out, size_t bytes) {
    const int32_t rounding = 1 << (precision - 1);
    const __m256i round = _mm256_set1_epi32(rounding);
    const __m256i zero = _mm256_setzero_si256();
    const __m128i shift = _mm_cvtsi32_si128(precision);
    size_t x = 0;
    for (; x + 32 <= bytes; x += 32) {
        __m256i s0 = round, s1 = round, s2 = round, s3 = round;
        int32_t k = 0;
        for (; k + 2 <= count; k += 2) {
            const __m256i a = _mm256_loadu_si256((const __m256i *)(rows[k] + x));
            const __m256i b = _mm256_loadu_si256((const __m256i *)(rows[k + 1] + x));
            const __m256i c = _mm256_set1_epi32(load_pair(coefficients + k));
            const __m256i lo = _mm256_unpacklo_epi8(a, b), hi = _mm256_unpackhi_epi8(a, b);
            s0 = IK_DOT(s0, _mm256_unpacklo_epi8(lo, zero), c);
            s1 = IK_DOT(s1, _mm256_unpackhi_epi8(lo, zero), c);
            s2 = IK_DOT(s2, _mm256_unpacklo_epi8(hi, zero), c);
            s3 = IK_DOT(s3, _mm256_unpackhi_epi8(hi, zero), c);
        }
        if (k < count) {
            const __m256i a = _mm256_loadu_si256((const __m256i *)(rows[k] + x));
            const __m256i c = _mm256_set1_epi32((uint16_t)coefficients[k]);
            const __m256i lo = _mm256_unpacklo_epi8(a, zero), hi = _mm256_unpackhi_epi8(a, zero);
            s0 = IK_DOT(s0, _mm256_unpacklo_epi8(lo, zero), c);
            s1 = IK_DOT(s1, _mm256_unpackhi_epi8(lo, zero), c);
            s2 = IK_DOT(s2, _mm256_unpacklo_epi8(hi, zero), c);
            s3 = IK_DOT(s3, _mm256_unpackhi_epi8(hi, zero), c);
        }
        const __m256i p0 = _mm256_packs_epi32(_mm256_sra_epi32(s0, shift), _mm256_sra_epi32(s1, shift));
        const __m256i p1 = _mm256_packs_epi32(_mm256_sra_epi32(s2, shift), _mm256_sra_epi32(s3, shift));
        _mm256_storeu_si256((__m256i *)(out + x), _mm256_packus_epi16(p0, p1));
    }
    for (; x < bytes; x++) {
        int32_t s = rounding;
        for (int32_t k = 0; k < count; k++) s += (int32_t)rows[k][x] * coefficients[k];
        out[x] = ik_clamp_u8(s, precision);
    }
}

IK_TARGET void IK_NAME(ik_convolve_columns2_u8)(
    const uint8_t *const *rows, int32_t count, const int16_t *k0, const int16_t *k1, int32_t precision, uint8_t *out0, uint8_t *out1,
    size_t bytes) {
    // As ik_convolve_columns_u8 for two outputs over the same rows: the rows are loaded and
    // widened once (the shuffles are what bound the single-output kernel) and multiplied twice.
    const int32_t rounding = 1 << (precision - 1);
    const __m256i round = _mm256_set1_epi32(rounding);
    const __m256i zero = _mm256_setzero_si256();
    const __m128i shift = _mm_cvtsi32_si128(precision);
    size_t x = 0;
    for (; x + 32 <= bytes; x += 32) {
        __m256i s0 = round, s1 = round, s2 = round, s3 = round;
        __m256i t0 = round, t1 = round, t2 = round, t3 = round;
        for (int32_t k = 0; k < count; k += 2) {
            const __m256i a = _mm256_loadu_si256((const __m256i *)(rows[k] + x));
            const int pair = k + 1 < count;
            const __m256i b = pair ? _mm256_loadu_si256((const __m256i *)(rows[k + 1] + x)) : zero;
            const __m256i c = _mm256_set1_epi32(pair ? load_pair(k0 + k) : (uint16_t)k0[k]);
            const __m256i d = _mm256_set1_epi32(pair ? load_pair(k1 + k) : (uint16_t)k1[k]);
            const __m256i lo = _mm256_unpacklo_epi8(a, b), hi = _mm256_unpackhi_epi8(a, b);
            const __m256i w0 = _mm256_unpacklo_epi8(lo, zero), w1 = _mm256_unpackhi_epi8(lo, zero);
            const __m256i w2 = _mm256_unpacklo_epi8(hi, zero), w3 = _mm256_unpackhi_epi8(hi, zero);
            s0 = IK_DOT(s0, w0, c);
            s1 = IK_DOT(s1, w1, c);
            s2 = IK_DOT(s2, w2, c);
            s3 = IK_DOT(s3, w3, c);
            t0 = IK_DOT(t0, w0, d);
            t1 = IK_DOT(t1, w1, d);
            t2 = IK_DOT(t2, w2, d);
            t3 = IK_DOT(t3, w3, d);
        }
        const __m256i p0 = _mm256_packs_epi32(_mm256_sra_epi32(s0, shift), _mm256_sra_epi32(s1, shift));
        const __m256i p1 = _mm256_packs_epi32(_mm256_sra_epi32(s2, shift), _mm256_sra_epi32(s3, shift));
        _mm256_storeu_si256((__m256i *)(out0 + x), _mm256_packus_epi16(p0, p1));
        const __m256i q0 = _mm256_packs_epi32(_mm256_sra_epi32(t0, shift), _mm256_sra_epi32(t1, shift));
        const __m256i q1 = _mm256_packs_epi32(_mm256_sra_epi32(t2, shift), _mm256_sra_epi32(t3, shift));
        _mm256_storeu_si256((__m256i *)(out1 + x), _mm256_packus_epi16(q0, q1));
    }
    for (; x < bytes; x++) {
        int32_t s = rounding, t = rounding;
        for (int32_t k = 0; k < count; k++) {
            s += (int32_t)rows[k][x] * k0[k];
            t += (int32_t)rows[k][x] * k1[k];
        }
        out0[x] = ik_clamp_u8(s, precision);
        out1[x] = ik_clamp_u8(t, precision);
    }
}

#endif

IK_TARGET void IK_NAME(ik_convolve_rows_paired_u8)(
    const uint8_t *const *in, uint8_t *const *out, int rows, int channels, const ik_pair_taps *t) {
    // As ik_convolve_rows_u8, with each pixel group shuffled once for two outputs.
    const __m256i first = pixel_pairs(channels, 0), second = pixel_pairs(channels, 1);
    const __m256i round = _mm256_set1_epi32(1 << (t->precision - 1));
    const __m128i shift = _mm_cvtsi32_si128(t->precision);
    const uint8_t *r0 = in[0], *r1 = rows > 1 ? in[1] : r0, *r2 = rows > 2 ? in[2] : r0, *r3 = rows > 3 ? in[3] : r0;
    const int32_t outputs = t->outputs;
    for (int32_t p = 0; p < t->count; p++) {
        const size_t start = (size_t)t->starts[p] * channels;
        const uint8_t *p0 = r0 + start, *p1 = r1 + start, *p2 = r2 + start, *p3 = r3 + start;
        const int16_t *k = t->coefficients + t->offsets[p], *l = k + t->strides[p];
        const int32_t n = t->counts[p];
        __m256i a01 = round, b01 = _mm256_setzero_si256(), a23 = round, b23 = _mm256_setzero_si256();
        __m256i e01 = round, f01 = _mm256_setzero_si256(), e23 = round, f23 = _mm256_setzero_si256();
        for (int32_t j = 0; j < n; j += 4) {
            const size_t at = (size_t)j * channels;
            const __m256i x01 = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p0 + at))), _mm_loadu_si128((const __m128i *)(p1 + at)), 1);
            const __m256i x23 = _mm256_inserti128_si256(
                _mm256_castsi128_si256(_mm_loadu_si128((const __m128i *)(p2 + at))), _mm_loadu_si128((const __m128i *)(p3 + at)), 1);
            const __m256i lo01 = _mm256_shuffle_epi8(x01, first), hi01 = _mm256_shuffle_epi8(x01, second);
            const __m256i lo23 = _mm256_shuffle_epi8(x23, first), hi23 = _mm256_shuffle_epi8(x23, second);
            const __m256i c01 = _mm256_set1_epi32(load_pair(k + j)), c23 = _mm256_set1_epi32(load_pair(k + j + 2));
            a01 = IK_DOT(a01, lo01, c01);
            b01 = IK_DOT(b01, hi01, c23);
            a23 = IK_DOT(a23, lo23, c01);
            b23 = IK_DOT(b23, hi23, c23);
            const __m256i d01 = _mm256_set1_epi32(load_pair(l + j)), d23 = _mm256_set1_epi32(load_pair(l + j + 2));
            e01 = IK_DOT(e01, lo01, d01);
            f01 = IK_DOT(f01, hi01, d23);
            e23 = IK_DOT(e23, lo23, d01);
            f23 = IK_DOT(f23, hi23, d23);
        }
        for (int o = 0; o < 2; o++) {
            const int32_t i = 2 * p + o;
            if (i >= outputs) break;
            if (o) store_output(out, rows, channels, i, i == outputs - 1, _mm256_add_epi32(e01, f01), _mm256_add_epi32(e23, f23), shift);
            else store_output(out, rows, channels, i, i == outputs - 1, _mm256_add_epi32(a01, b01), _mm256_add_epi32(a23, b23), shift);
        }
    }
}

/// One output of the one-channel horizontal pass, before rounding: the products of `count`
/// samples from `p` and coefficients from `k` (zero-padded to a multiple of four), summed into
/// four 32-bit lanes. Reads up to 8 samples past the last tap (within the row padding).
IK_TARGET static inline __m128i gray_dot(const uint8_t *p, const int16_t *k, int32_t count) {
    __m128i acc = _mm_setzero_si128();
    int32_t j = 0;
    for (; j + 4 < count; j += 8) {
        // 5...8 taps left: the coefficients are padded to 8 (a multiple of four past `count`).
        const __m128i x = _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(p + j)));
        acc = _mm_add_epi32(acc, _mm_madd_epi16(x, _mm_loadu_si128((const __m128i *)(k + j))));
    }
    if (j < count) {
        // 1...4 taps left: four coefficients (the upper four lanes zero, so samples 4...7 add nothing).
        const __m128i x = _mm_cvtepu8_epi16(_mm_loadl_epi64((const __m128i *)(p + j)));
        acc = _mm_add_epi32(acc, _mm_madd_epi16(x, _mm_loadl_epi64((const __m128i *)(k + j))));
    }
    return acc;
}

/// One output of up to 16 taps as eight 32-bit partial sums: 16 samples widened to 16 bits and
/// multiplied by the coefficients (masked to `count`, since the next output's may follow).
IK_TARGET static inline __m256i gray_dot16(const uint8_t *p, const int16_t *k, int32_t count, __m256i lanes) {
    const __m256i x = _mm256_cvtepu8_epi16(_mm_loadu_si128((const __m128i *)p));
    const __m256i c = _mm256_and_si256(_mm256_loadu_si256((const __m256i *)k), _mm256_cmpgt_epi16(_mm256_set1_epi16((int16_t)count), lanes));
    return _mm256_madd_epi16(x, c);
}

/// The horizontal pass for one channel: eight outputs at a time when each has at most 16 taps
/// (one widened load and one `pmaddwd` per output, the eight sums gathered by `phaddd`), four at
/// a time otherwise; rounded, shifted and saturated together (the portable kernel's bytes
/// exactly). Reads up to 16 samples from each output's first tap (within the row padding) and
/// up to 16 coefficients from each output's first (the table's allocation is padded for it).
IK_TARGET void IK_NAME(ik_convolve_rows_gray_u8)(const uint8_t *const *in, uint8_t *const *out, int rows, const ik_taps *t) {
    const __m128i round = _mm_set1_epi32(1 << (t->precision - 1));
    const __m128i shift = _mm_cvtsi32_si128(t->precision);
    const __m256i round8 = _mm256_set1_epi32(1 << (t->precision - 1));
    const __m256i lanes = _mm256_setr_epi16(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    const int32_t n = t->count;
    int narrow = 1;
    for (int32_t i = 0; i < n && narrow; i++) narrow = t->counts[i] <= 16;
    for (int r = 0; r < rows; r++) {
        const uint8_t *src = in[r];
        uint8_t *dst = out[r];
        int32_t i = 0;
        if (narrow) {
            for (; i + 8 <= n; i += 8) {
                __m256i v[8];
                for (int q = 0; q < 8; q++) v[q] = gray_dot16(src + t->starts[i + q], t->coefficients + t->offsets[i + q], t->counts[i + q], lanes);
                const __m256i s0123 = _mm256_hadd_epi32(_mm256_hadd_epi32(v[0], v[1]), _mm256_hadd_epi32(v[2], v[3]));
                const __m256i s4567 = _mm256_hadd_epi32(_mm256_hadd_epi32(v[4], v[5]), _mm256_hadd_epi32(v[6], v[7]));
                // Each 128-bit lane holds half of each output's sum: add the halves across lanes.
                __m256i s = _mm256_add_epi32(_mm256_permute2x128_si256(s0123, s4567, 0x20), _mm256_permute2x128_si256(s0123, s4567, 0x31));
                s = _mm256_sra_epi32(_mm256_add_epi32(s, round8), shift);
                const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(s), _mm256_extracti128_si256(s, 1));
                _mm_storel_epi64((__m128i *)(dst + i), _mm_packus_epi16(words, words));
            }
        }
        for (; i + 4 <= n; i += 4) {
            __m128i v[4];
            for (int q = 0; q < 4; q++) v[q] = gray_dot(src + t->starts[i + q], t->coefficients + t->offsets[i + q], t->counts[i + q]);
            __m128i s = _mm_hadd_epi32(_mm_hadd_epi32(v[0], v[1]), _mm_hadd_epi32(v[2], v[3]));
            s = _mm_sra_epi32(_mm_add_epi32(s, round), shift);
            s = _mm_packus_epi16(_mm_packs_epi32(s, s), s);
            const int32_t bytes = _mm_cvtsi128_si32(s);
            memcpy(dst + i, &bytes, 4);
        }
        for (; i < n; i++) {
            __m128i v = gray_dot(src + t->starts[i], t->coefficients + t->offsets[i], t->counts[i]);
            v = _mm_hadd_epi32(v, v);
            v = _mm_hadd_epi32(v, v);
            dst[i] = ik_clamp_u8(_mm_cvtsi128_si32(v) + (1 << (t->precision - 1)), t->precision);
        }
    }
}
