/* sp-image-limits.c: magic bytes and header dimensions of PNG, JPEG, GIF. */
#include <string.h>

#include "sp-image-limits.h"

static const uint8_t png_magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };

const char *
sp_image_sniff (const uint8_t *data, size_t len)
{
  if (len >= sizeof png_magic && memcmp (data, png_magic, sizeof png_magic) == 0)
    return "png";
  if (len >= 3 && data[0] == 0xff && data[1] == 0xd8 && data[2] == 0xff)
    return "jpeg";
  if (len >= 6 && (memcmp (data, "GIF87a", 6) == 0 || memcmp (data, "GIF89a", 6) == 0))
    return "gif";
  return NULL;
}

static uint32_t
be32 (const uint8_t *p)
{
  return (uint32_t) p[0] << 24 | (uint32_t) p[1] << 16 | (uint32_t) p[2] << 8 | p[3];
}

static unsigned
be16 (const uint8_t *p)
{
  return (unsigned) p[0] << 8 | p[1];
}

/* The first SOFn segment's size. Markers are walked by their lengths;
 * a JPEG without a frame header before the data runs out has no size. */
static bool
jpeg_size (const uint8_t *data, size_t len, int *width, int *height)
{
  size_t pos = 2;

  while (pos + 4 <= len)
    {
      uint8_t marker;

      if (data[pos] != 0xff)
        return false;
      marker = data[pos + 1];
      if (marker == 0xff)
        {
          pos++; /* fill byte */
          continue;
        }
      if (marker == 0xd8 || marker == 0x01 || (marker >= 0xd0 && marker <= 0xd7))
        {
          pos += 2; /* no length */
          continue;
        }
      if (marker >= 0xc0 && marker <= 0xcf && marker != 0xc4 && marker != 0xc8 && marker != 0xcc)
        {
          if (pos + 9 > len)
            return false;
          *height = (int) be16 (data + pos + 5);
          *width = (int) be16 (data + pos + 7);
          return true;
        }
      if (marker == 0xd9 || marker == 0xda)
        return false; /* end of image or scan data before any frame header */
      pos += 2 + be16 (data + pos + 2);
    }
  return false;
}

bool
sp_image_header_size (const uint8_t *data, size_t len, int *width, int *height)
{
  const char *type = sp_image_sniff (data, len);
  uint32_t w, h;

  if (type == NULL)
    return false;
  if (strcmp (type, "png") == 0)
    {
      if (len < 24 || memcmp (data + 12, "IHDR", 4) != 0)
        return false;
      w = be32 (data + 16);
      h = be32 (data + 20);
      /* PNG allows up to 2^31 - 1; anything larger is not an int here. */
      if (w > 0x7fffffffU || h > 0x7fffffffU)
        return false;
      *width = (int) w;
      *height = (int) h;
      return true;
    }
  if (strcmp (type, "gif") == 0)
    {
      if (len < 10)
        return false;
      *width = data[6] | data[7] << 8;
      *height = data[8] | data[9] << 8;
      return true;
    }
  return jpeg_size (data, len, width, height);
}

bool
sp_image_size_allowed (long width, long height)
{
  return width > 0 && height > 0 && width <= SP_IMAGE_MAX_SIDE && height <= SP_IMAGE_MAX_SIDE
         && width * height <= SP_IMAGE_MAX_PIXELS;
}
