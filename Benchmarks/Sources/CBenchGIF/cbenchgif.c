#include "cbenchgif.h"

#include <gif_lib.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *data;
    size_t size, offset;
} source;

static int read_source(GifFileType *gif, GifByteType *buffer, int length) {
    source *s = gif->UserData;
    size_t left = s->size - s->offset;
    size_t count = (size_t)length < left ? (size_t)length : left;
    memcpy(buffer, s->data + s->offset, count);
    s->offset += count;
    return (int)count;
}

static int skip_blocks(GifFileType *gif, GifByteType *block, int extension) {
    while (block != NULL)
        if ((extension ? DGifGetExtensionNext(gif, &block) : DGifGetCodeNext(gif, &block)) == GIF_ERROR) return 1;
    return 0;
}

int cbenchgif_decode(const uint8_t *data, size_t size, int *width, int *height, int *frame_count, uint8_t **frames) {
    source s = {data, size, 0};
    int error;
    GifFileType *gif = DGifOpen(&s, read_source, &error);
    if (gif == NULL) return 1;
    int w = gif->SWidth, h = gif->SHeight;
    size_t canvas_size = (size_t)w * h;
    uint32_t *canvas = calloc(canvas_size, 4), *saved = malloc(canvas_size * 4);
    uint8_t *row = malloc(65536), *out = NULL;
    size_t count = 0, capacity = 0;
    int disposal = 0, delay = 0, transparent = -1, status = 1;
    (void)delay;
    for (;;) {
        GifRecordType type;
        if (DGifGetRecordType(gif, &type) == GIF_ERROR) goto done;
        if (type == TERMINATE_RECORD_TYPE) break;
        if (type == EXTENSION_RECORD_TYPE) {
            int code;
            GifByteType *block;
            if (DGifGetExtension(gif, &code, &block) == GIF_ERROR) goto done;
            if (code == GRAPHICS_EXT_FUNC_CODE && block != NULL && block[0] == 4) {
                disposal = (block[1] >> 2) & 7;
                delay = block[2] | block[3] << 8;
                transparent = (block[1] & 1) ? block[4] : -1;
            }
            if (skip_blocks(gif, block, 1)) goto done;
            continue;
        }
        if (type != IMAGE_DESC_RECORD_TYPE || DGifGetImageDesc(gif) == GIF_ERROR) goto done;
        GifImageDesc *desc = &gif->Image;
        ColorMapObject *map = desc->ColorMap ? desc->ColorMap : gif->SColorMap;
        uint32_t palette[256];
        for (int i = 0; i < 256; i++) {
            if (map == NULL) palette[i] = (uint32_t)i * 0x010101u | 0xFF000000u;
            else if (i < map->ColorCount)
                palette[i] = map->Colors[i].Red | map->Colors[i].Green << 8 | (uint32_t)map->Colors[i].Blue << 16 | 0xFF000000u;
            else palette[i] = 0xFF000000u;
        }
        if (disposal == 3) memcpy(saved, canvas, canvas_size * 4);
        int left = desc->Left, top = desc->Top, fw = desc->Width, fh = desc->Height;
        int visible = left < w ? (fw < w - left ? fw : w - left) : 0;
        static const int starts[] = {0, 4, 2, 1}, steps[] = {8, 8, 4, 2};
        int passes = desc->Interlace ? 4 : 1;
        for (int pass = 0; pass < passes; pass++) {
            for (int y = desc->Interlace ? starts[pass] : 0; y < fh; y += desc->Interlace ? steps[pass] : 1) {
                if (DGifGetLine(gif, row, fw) == GIF_ERROR) goto done;
                if (top + y >= h) continue;
                uint32_t *dst = canvas + (size_t)(top + y) * w + left;
                if (transparent >= 0) {
                    for (int x = 0; x < visible; x++) if (row[x] != transparent) dst[x] = palette[row[x]];
                } else {
                    for (int x = 0; x < visible; x++) dst[x] = palette[row[x]];
                }
            }
        }
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 16;
            uint8_t *grown = realloc(out, capacity * canvas_size * 4);
            if (grown == NULL) goto done;
            out = grown;
        }
        memcpy(out + count * canvas_size * 4, canvas, canvas_size * 4);
        count++;
        if (disposal == 2 && left < w && top < h) {
            for (int y = top; y < h && y < top + fh; y++) memset(canvas + (size_t)y * w + left, 0, (size_t)visible * 4);
        } else if (disposal == 3) {
            memcpy(canvas, saved, canvas_size * 4);
        }
        disposal = 0;
        transparent = -1;
    }
    status = 0;
done:
    DGifCloseFile(gif, &error);
    free(canvas);
    free(saved);
    free(row);
    if (status != 0) {
        free(out);
        return 1;
    }
    *width = w;
    *height = h;
    *frame_count = (int)count;
    *frames = out;
    return 0;
}

#define CBENCHGIF_STRING(x) #x
#define CBENCHGIF_VERSION(a, b, c) CBENCHGIF_STRING(a) "." CBENCHGIF_STRING(b) "." CBENCHGIF_STRING(c)

const char *cbenchgif_version(void) { return CBENCHGIF_VERSION(GIFLIB_MAJOR, GIFLIB_MINOR, GIFLIB_RELEASE); }
