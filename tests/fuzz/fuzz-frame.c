/* fuzz-frame.c: SpFrameReader on arbitrary byte streams in arbitrary
 * chunkings, against a model of the framing rules.
 *
 * The first input byte picks the frame cap (1 to 256 bytes, so both
 * sides of it are reached with short inputs), the second seeds the
 * chunking: piece sizes from 0 to 32 bytes, and after each piece the
 * harness drains the reader, or leaves frames buffered for later.
 * The rest is the stream. The model splits the whole stream at '\n' at
 * once; the reader, however the bytes arrive, must report exactly the
 * model's sequence of frames and errors, then hold exactly the model's
 * unfinished tail:
 * - a line loses one trailing '\r'; an empty line is a keep-alive;
 * - a line longer than the cap is one frame_too_large, in its place;
 * - a line with a NUL is one nul_byte;
 * - an unfinished tail longer than the cap + 1 (one byte of slack for a
 *   '\r') is already reported as too large and no longer held. */
#include <string.h>

#include "fuzz-check.h"
#include "sp-frame.h"

typedef struct
{
  int rc; /* 1 frame, -1 error */
  SpProtoErrorCode code;
  const char *frame;
  size_t len;
} Expected;

typedef struct
{
  Expected *items;
  size_t n, next;
} Model;

static void
model_push (Model *model, int rc, SpProtoErrorCode code, const char *frame, size_t len)
{
  model->items[model->n++] = (Expected){ rc, code, frame, len };
}

/* Returns the length of the unfinished tail the reader should hold. */
static size_t
model_build (Model *model, const char *s, size_t size, size_t cap)
{
  size_t start = 0;

  for (;;)
    {
      const char *nl = memchr (s + start, '\n', size - start);
      if (nl == NULL)
        break;
      size_t len = (size_t) (nl - (s + start));
      if (len > 0 && s[start + len - 1] == '\r')
        len--;
      if (len > cap)
        model_push (model, -1, SP_ERR_FRAME_TOO_LARGE, NULL, 0);
      else if (memchr (s + start, '\0', len) != NULL)
        model_push (model, -1, SP_ERR_NUL_BYTE, NULL, 0);
      else if (len > 0)
        model_push (model, 1, SP_ERR_NONE, s + start, len);
      start = (size_t) (nl - s) + 1;
    }
  if (size - start > cap + 1)
    {
      model_push (model, -1, SP_ERR_FRAME_TOO_LARGE, NULL, 0);
      return 0;
    }
  return size - start;
}

static void
drain (SpFrameReader *reader, Model *model)
{
  const char *frame;
  size_t len;
  SpProtoError err;
  int rc;

  while ((rc = sp_frame_reader_next (reader, &frame, &len, &err)) != 0)
    {
      FUZZ_REQUIRE (model->next < model->n);
      const Expected *want = &model->items[model->next++];
      FUZZ_REQUIRE (rc == want->rc);
      if (rc < 0)
        FUZZ_REQUIRE (err.code == want->code);
      else
        FUZZ_REQUIRE (len == want->len && memcmp (frame, want->frame, len) == 0);
    }
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  if (size < 2)
    return 0;

  size_t cap = (size_t) data[0] + 1;
  uint32_t seed = data[1];
  const char *stream = (const char *) data + 2;
  size_t len = size - 2;
  Model model = { calloc (len + 1, sizeof (Expected)), 0, 0 };
  FUZZ_REQUIRE (model.items != NULL);
  size_t tail = model_build (&model, stream, len, cap);
  SpFrameReader *reader = sp_frame_reader_new (cap);

  for (size_t pos = 0; pos < len;)
    {
      uint32_t r = fuzz_next (&seed);
      size_t step = r % 33;

      if (step > len - pos)
        step = len - pos;
      /* A fresh copy per piece, so ASan sees any read past its end. */
      char *piece = malloc (step ? step : 1);
      FUZZ_REQUIRE (piece != NULL);
      memcpy (piece, stream + pos, step);
      sp_frame_reader_feed (reader, piece, step);
      free (piece);
      pos += step;
      if ((r >> 8) % 4 != 0)
        drain (reader, &model);
    }
  drain (reader, &model);
  FUZZ_REQUIRE (model.next == model.n);
  FUZZ_REQUIRE (sp_frame_reader_pending (reader) == tail);

  sp_frame_reader_free (reader);
  free (model.items);
  return 0;
}
