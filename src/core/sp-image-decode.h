/* sp-image-decode.h: a run's image, decoded in the sandboxed helper.
 *
 * The app never decodes a run's image itself: it opens the file (no
 * symlinks, regular files only), hands it to sandpad-imagedecode as its
 * stdin, and reads back width, height, stride and RGBA pixels, checking
 * every number against the same bounds the helper applies. Asynchronous
 * (GSubprocess, nothing blocks the main loop); a helper that fails,
 * crashes or takes longer than the timeout is killed and reported as an
 * SP_IMAGE_DECODE_ERROR, never more. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

#define SP_IMAGE_DECODE_ERROR (sp_image_decode_error_quark ())

typedef enum
{
  SP_IMAGE_DECODE_ERROR_FILE,        /* cannot open it, not a regular file, too large */
  SP_IMAGE_DECODE_ERROR_SPAWN,       /* the helper could not be started */
  SP_IMAGE_DECODE_ERROR_UNSUPPORTED, /* not PNG, JPEG or GIF by its magic bytes */
  SP_IMAGE_DECODE_ERROR_TOO_LARGE,   /* over 16384 a side or 64 Mpx */
  SP_IMAGE_DECODE_ERROR_INVALID,     /* the decoder refused it */
  SP_IMAGE_DECODE_ERROR_CRASHED,     /* killed by a signal (a seccomp kill, a fault) */
  SP_IMAGE_DECODE_ERROR_TIMED_OUT,   /* killed after the timeout */
  SP_IMAGE_DECODE_ERROR_PROTOCOL,    /* its output did not add up */
} SpImageDecodeError;

GQuark sp_image_decode_error_quark (void);

#define SP_IMAGE_DECODE_DEFAULT_TIMEOUT_MS 10000

/* SANDPAD_IMAGEDECODE (tests, development) first, then the installed
 * helper next to sandpad-runner, then the one in the build tree. */
char *sp_image_decode_find_helper (void);
/* The same for sandpad-runner (SANDPAD_RUNNER), as the app finds it. */
char *sp_runner_find_helper (void);

typedef struct _SpDecodedImage SpDecodedImage;

GType sp_decoded_image_get_type (void) G_GNUC_CONST;
#define SP_TYPE_DECODED_IMAGE (sp_decoded_image_get_type ())

SpDecodedImage *sp_decoded_image_ref (SpDecodedImage *self);
void sp_decoded_image_unref (SpDecodedImage *self);
int sp_decoded_image_get_width (SpDecodedImage *self);
int sp_decoded_image_get_height (SpDecodedImage *self);
gsize sp_decoded_image_get_stride (SpDecodedImage *self);
/* height * stride bytes, non-premultiplied RGBA, 8 bits a channel. */
GBytes *sp_decoded_image_get_pixels (SpDecodedImage *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpDecodedImage, sp_decoded_image_unref)

/* The file name beneath dir, opened by sp_run_file_open(); helper_argv:
 * the helper and its arguments (NULL: the one found by
 * sp_image_decode_find_helper()); timeout_ms 0: the default. The image at
 * its own size (up to the bounds above). */
void sp_image_decode_async (const char *dir, const char *name, const char *const *helper_argv,
                            guint timeout_ms, GCancellable *cancellable,
                            GAsyncReadyCallback callback, gpointer user_data);
/* The same, shrunk by the helper to fit max_side x max_side when it is
 * larger (0: its own size), so what the app receives is bounded by what
 * it shows, whatever the file claims; an answer larger than that is a
 * protocol error. */
void sp_image_decode_scaled_async (const char *dir, const char *name, guint max_side,
                                   const char *const *helper_argv, guint timeout_ms,
                                   GCancellable *cancellable, GAsyncReadyCallback callback,
                                   gpointer user_data);
/* The same for an image the app holds itself (a display result's PNG):
 * handed to the helper as a sealed memfd, never written to a named file. */
void sp_image_decode_bytes_scaled_async (GBytes *data, guint max_side,
                                         const char *const *helper_argv, guint timeout_ms,
                                         GCancellable *cancellable, GAsyncReadyCallback callback,
                                         gpointer user_data);
SpDecodedImage *sp_image_decode_finish (GAsyncResult *result, GError **error);

G_END_DECLS
