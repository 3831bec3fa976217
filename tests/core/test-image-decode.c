/* test-image-decode.c: images decoded by the real sandpad-imagedecode, as
 * the app asks for them: round trips of PNG, JPEG and GIF, and every way a
 * hostile file can fail, none of which may take the caller down. */
#include "config.h"

#include <glib/gstdio.h>
#include <signal.h>
#include <sys/stat.h>

#include "sp-image-decode.h"
#include "sp-test-wait.h"

typedef struct
{
  gboolean done;
  SpDecodedImage *image;
  GError *error;
} Result;

static void
on_decoded (GObject *object, GAsyncResult *res, gpointer user_data)
{
  Result *r = user_data;

  r->image = sp_image_decode_finish (res, &r->error);
  r->done = TRUE;
}

static gboolean
is_done (gpointer data)
{
  return ((Result *) data)->done;
}

static void
result_clear (Result *r)
{
  g_clear_pointer (&r->image, sp_decoded_image_unref);
  g_clear_error (&r->error);
}

static char *
fixture (const char *name)
{
  return g_build_filename (g_getenv ("SANDPAD_TEST_IMAGES"), name, NULL);
}

static void
decode_path (const char *path, const char *const *argv, guint timeout_ms, Result *r)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *name = g_path_get_basename (path);

  memset (r, 0, sizeof *r);
  sp_image_decode_async (dir, name, argv, timeout_ms, NULL, on_decoded, r);
  g_assert_true (sp_test_wait_for (is_done, r, 20000));
}

static void
decode_fixture (const char *name, Result *r)
{
  g_autofree char *path = fixture (name);

  decode_path (path, NULL, 0, r);
}

static void
test_png_round_trip (void)
{
  static const guint8 expected[] = { 255, 0,   0,   255, 0, 255, 0, 255, 0, 0, 255, 255,
                                     255, 255, 255, 255, 0, 0,   0, 128, 0, 0, 0,   0 };
  Result r;
  gsize len = 0;
  const guint8 *pixels;

  decode_fixture ("rgba-3x2.png", &r);
  g_assert_no_error (r.error);
  g_assert_cmpint (sp_decoded_image_get_width (r.image), ==, 3);
  g_assert_cmpint (sp_decoded_image_get_height (r.image), ==, 2);
  g_assert_cmpuint (sp_decoded_image_get_stride (r.image), ==, 12);
  pixels = g_bytes_get_data (sp_decoded_image_get_pixels (r.image), &len);
  g_assert_cmpmem (pixels, len, expected, sizeof expected);
  result_clear (&r);
}

/* JPEG and GIF take their own loaders; both hold an 8x4 blue image. */
static void
check_blue (const char *name)
{
  Result r;
  gsize len = 0;
  const guint8 *pixels;

  decode_fixture (name, &r);
  g_assert_no_error (r.error);
  g_assert_cmpint (sp_decoded_image_get_width (r.image), ==, 8);
  g_assert_cmpint (sp_decoded_image_get_height (r.image), ==, 4);
  pixels = g_bytes_get_data (sp_decoded_image_get_pixels (r.image), &len);
  g_assert_cmpuint (len, ==, 8 * 4 * 4);
  for (gsize i = 0; i < len; i += 4)
    {
      g_assert_cmpuint (pixels[i], <, 8);
      g_assert_cmpuint (pixels[i + 1], <, 8);
      g_assert_cmpuint (pixels[i + 2], >, 247);
      g_assert_cmpuint (pixels[i + 3], ==, 255);
    }
  result_clear (&r);
}

static void
test_jpeg (void)
{
  check_blue ("blue-8x4.jpg");
}

static void
test_gif (void)
{
  check_blue ("blue-8x4.gif");
}

static void
expect_error (const char *name, SpImageDecodeError code)
{
  Result r;

  decode_fixture (name, &r);
  g_assert_null (r.image);
  g_assert_error (r.error, SP_IMAGE_DECODE_ERROR, (int) code);
  result_clear (&r);
}

/* A PNG cut off in its pixel data: the loader would accept it with rows
 * missing; the helper must not. */
static void
test_truncated (void)
{
  expect_error ("truncated.png", SP_IMAGE_DECODE_ERROR_INVALID);
}

/* A header claiming 100000 x 100000 is refused before any decoding. */
static void
test_huge_header (void)
{
  expect_error ("huge-header.png", SP_IMAGE_DECODE_ERROR_TOO_LARGE);
}

/* Named .png, but SVG: no loader is ever tried. */
static void
test_not_an_image (void)
{
  expect_error ("not-an-image.png", SP_IMAGE_DECODE_ERROR_UNSUPPORTED);
}

/* Noise behind a valid PNG header reaches the decoder, which refuses it. */
static void
test_garbage (void)
{
  expect_error ("garbage.png", SP_IMAGE_DECODE_ERROR_INVALID);
}

/* After its lockdown the helper tries to open a file: the seccomp filter
 * kills it (SIGSYS), and the caller gets an error and carries on. */
static void
test_decoder_crash (void)
{
  g_autofree char *helper = sp_image_decode_find_helper ();
  g_autofree char *path = fixture ("rgba-3x2.png");
  const char *argv[] = { helper, "--probe-forbidden", NULL };
  Result r;

  decode_path (path, argv, 0, &r);
  g_assert_error (r.error, SP_IMAGE_DECODE_ERROR, SP_IMAGE_DECODE_ERROR_CRASHED);
  g_assert_nonnull (strstr (r.error->message, "signal 31"));
  result_clear (&r);
  /* And the next image decodes as before. */
  test_png_round_trip ();
}

/* A helper that never answers is killed after the timeout. (sleep stands
 * in for a decoder stuck in a loop; the real one has RLIMIT_CPU too.) It
 * is the timeout that ends the wait: not before it, and not the helper's
 * own end, 60 s away, which decode_path's deadline of 20 s would turn
 * into a failure. */
static void
test_timeout (void)
{
  g_autofree char *path = fixture ("rgba-3x2.png");
  const char *argv[] = { "/bin/sleep", "60", NULL };
  gint64 start = g_get_monotonic_time ();
  Result r;

  decode_path (path, argv, 300, &r);
  g_assert_error (r.error, SP_IMAGE_DECODE_ERROR, SP_IMAGE_DECODE_ERROR_TIMED_OUT);
  g_assert_cmpint (g_get_monotonic_time () - start, >=, 300 * 1000);
  result_clear (&r);
}

/* A run could plant a symlink named like a plot, pointing at the user's
 * files, or a FIFO that never ends: neither is read. */
static void
test_symlink_and_fifo (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sp-image-XXXXXX", NULL);
  g_autofree char *target = fixture ("rgba-3x2.png");
  g_autofree char *link = g_build_filename (dir, "plot.png", NULL);
  g_autofree char *fifo = g_build_filename (dir, "fifo.png", NULL);
  Result r;

  g_assert_cmpint (symlink (target, link), ==, 0);
  g_assert_cmpint (mkfifo (fifo, 0600), ==, 0);
  decode_path (link, NULL, 0, &r);
  g_assert_error (r.error, SP_IMAGE_DECODE_ERROR, SP_IMAGE_DECODE_ERROR_FILE);
  result_clear (&r);
  decode_path (fifo, NULL, 0, &r);
  g_assert_error (r.error, SP_IMAGE_DECODE_ERROR, SP_IMAGE_DECODE_ERROR_FILE);
  result_clear (&r);
  g_unlink (link);
  g_unlink (fifo);
  g_rmdir (dir);
}

/* A PNG small on disk and large in pixels, written by python3 at test
 * time: the left half red, the right half blue, opaque. */
static char *
make_large_png (const char *dir, int width, int height)
{
  g_autofree char *path = g_strdup_printf ("%s/large-%dx%d.png", dir, width, height);
  g_autofree char *w = g_strdup_printf ("%d", width);
  g_autofree char *h = g_strdup_printf ("%d", height);
  const char *script
    = "import sys, zlib, struct\n"
      "w, h = int(sys.argv[2]), int(sys.argv[3])\n"
      "def chunk(t, d):\n"
      "    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))\n"
      "row = b'\\0' + b'\\xff\\0\\0' * (w // 2) + b'\\0\\0\\xff' * (w - w // 2)\n"
      "ihdr = struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)\n"
      "data = (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', ihdr)\n"
      "        + chunk(b'IDAT', zlib.compress(row * h, 9)) + chunk(b'IEND', b''))\n"
      "open(sys.argv[1], 'wb').write(data)\n";
  const char *argv[] = { "python3", "-c", script, path, w, h, NULL };
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL, NULL, &status,
                &error);
  g_assert_no_error (error);
  g_assert_true (g_spawn_check_wait_status (status, NULL));
  return g_steal_pointer (&path);
}

static void
decode_scaled (const char *path, guint max_side, const char *const *argv, Result *r)
{
  g_autofree char *dir = g_path_get_dirname (path);
  g_autofree char *name = g_path_get_basename (path);

  memset (r, 0, sizeof *r);
  sp_image_decode_scaled_async (dir, name, max_side, argv, 0, NULL, on_decoded, r);
  g_assert_true (sp_test_wait_for (is_done, r, 20000));
}

static const guint8 *
pixel_at (SpDecodedImage *image, int x, int y)
{
  const guint8 *pixels = g_bytes_get_data (sp_decoded_image_get_pixels (image), NULL);

  return pixels + (gsize) y * sp_decoded_image_get_stride (image) + (gsize) x * 4;
}

/* 8192 x 4096 asked for at most 1024 a side: the helper sends 1024 x 512
 * (2 MiB, not the 128 MiB of the full picture), each half still its
 * colour; the control, asked for nothing, sends it whole. */
static void
test_scaled_to_display (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sp-image-XXXXXX", NULL);
  g_autofree char *path = make_large_png (dir, 8192, 4096);
  g_autofree char *small = fixture ("rgba-3x2.png");
  Result r;

  decode_scaled (path, 1024, NULL, &r);
  g_assert_no_error (r.error);
  g_assert_cmpint (sp_decoded_image_get_width (r.image), ==, 1024);
  g_assert_cmpint (sp_decoded_image_get_height (r.image), ==, 512);
  g_assert_cmpuint (g_bytes_get_size (sp_decoded_image_get_pixels (r.image)), ==, 1024 * 512 * 4);
  g_assert_cmpmem (pixel_at (r.image, 0, 0), 4, "\xff\0\0\xff", 4);
  g_assert_cmpmem (pixel_at (r.image, 1023, 511), 4, "\0\0\xff\xff", 4);
  result_clear (&r);

  /* Tall pictures fit by their height. */
  g_unlink (path);
  g_free (path);
  path = make_large_png (dir, 300, 5000);
  decode_scaled (path, 100, NULL, &r);
  g_assert_no_error (r.error);
  g_assert_cmpint (sp_decoded_image_get_width (r.image), ==, 6);
  g_assert_cmpint (sp_decoded_image_get_height (r.image), ==, 100);
  result_clear (&r);

  /* A picture already small enough comes back as it is. */
  decode_scaled (small, 1024, NULL, &r);
  g_assert_no_error (r.error);
  g_assert_cmpint (sp_decoded_image_get_width (r.image), ==, 3);
  result_clear (&r);

  /* Control: without a bound, the full size. */
  decode_path (path, NULL, 0, &r);
  g_assert_no_error (r.error);
  g_assert_cmpint (sp_decoded_image_get_width (r.image), ==, 300);
  g_assert_cmpint (sp_decoded_image_get_height (r.image), ==, 5000);
  result_clear (&r);
  g_unlink (path);
  g_rmdir (dir);
}

/* A helper that ignores the size asked for (here the real one, started
 * without its --max-side) gets nothing past the app: more pixels than
 * asked for is a protocol error, never a larger texture. */
static void
test_scaled_answer_checked (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sp-image-XXXXXX", NULL);
  g_autofree char *path = make_large_png (dir, 640, 480);
  g_autofree char *helper = sp_image_decode_find_helper ();
  const char *argv[] = { "/bin/sh", "-c", "exec \"$0\"", helper, NULL };
  Result r;

  decode_scaled (path, 64, argv, &r);
  g_assert_null (r.image);
  g_assert_error (r.error, SP_IMAGE_DECODE_ERROR, SP_IMAGE_DECODE_ERROR_PROTOCOL);
  result_clear (&r);
  /* Control: the same wrapper passing the bound on is answered. */
  argv[2] = "exec \"$0\" \"$@\"";
  decode_scaled (path, 64, argv, &r);
  g_assert_no_error (r.error);
  g_assert_cmpint (sp_decoded_image_get_width (r.image), ==, 64);
  g_assert_cmpint (sp_decoded_image_get_height (r.image), ==, 48);
  result_clear (&r);
  g_unlink (path);
  g_rmdir (dir);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/image-decode/png-round-trip", test_png_round_trip);
  g_test_add_func ("/image-decode/jpeg", test_jpeg);
  g_test_add_func ("/image-decode/gif", test_gif);
  g_test_add_func ("/image-decode/truncated", test_truncated);
  g_test_add_func ("/image-decode/huge-header", test_huge_header);
  g_test_add_func ("/image-decode/not-an-image", test_not_an_image);
  g_test_add_func ("/image-decode/garbage", test_garbage);
  g_test_add_func ("/image-decode/decoder-crash", test_decoder_crash);
  g_test_add_func ("/image-decode/timeout", test_timeout);
  g_test_add_func ("/image-decode/symlink-and-fifo", test_symlink_and_fifo);
  g_test_add_func ("/image-decode/scaled-to-display", test_scaled_to_display);
  g_test_add_func ("/image-decode/scaled-answer-checked", test_scaled_answer_checked);
  return g_test_run ();
}
