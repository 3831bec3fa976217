/* sp-image-limits.h: which images Sandpad shows, and how large.
 *
 * Plain C, no GLib: the decoding helper checks a file with these before
 * any decoder sees it. The runner applies the same bounds to what it
 * reports as images. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* At most this many pixels a side and in total (64 Mpx: 256 MiB as RGBA). */
#define SP_IMAGE_MAX_SIDE 16384
#define SP_IMAGE_MAX_PIXELS (64L * 1024 * 1024)
/* A file larger than this is not decoded at all. */
#define SP_DECODE_MAX_INPUT ((size_t) 64 * 1024 * 1024)

/* "png", "jpeg" or "gif" (gdk-pixbuf's loader names) by magic bytes, or
 * NULL for anything else, whatever the file is called. */
const char *sp_image_sniff (const uint8_t *data, size_t len);

/* The dimensions the header claims (PNG's IHDR, GIF's logical screen,
 * JPEG's first start-of-frame); false when there is none. */
bool sp_image_header_size (const uint8_t *data, size_t len, int *width, int *height);

bool sp_image_size_allowed (long width, long height);
