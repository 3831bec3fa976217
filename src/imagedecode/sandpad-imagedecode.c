/* sandpad-imagedecode: decodes one image a run made, where a hostile file
 * cannot hurt the app.
 *
 * A run's files are the attacker's data. Image decoders are large C
 * parsers with a long history of memory bugs, so the app never decodes a
 * run's image in its own process: it starts this helper per image with
 * the file on stdin and reads raw pixels back. The helper
 *
 *   1. reads at most SP_DECODE_MAX_INPUT bytes from stdin;
 *   2. checks the magic bytes itself and accepts only PNG, JPEG and GIF
 *      (never gdk-pixbuf's sniffing, which would reach every installed
 *      loader: TIFF, ICNS, ANI, XPM, ...);
 *   3. reads the dimensions from the header and refuses anything over
 *      16384 pixels a side or 64 megapixels, before any decoding;
 *   4. loads the one gdk-pixbuf loader for that type (dlopen and all
 *      file access happen here, while it still may);
 *   5. locks itself down: rlimits on memory and CPU, no new fds,
 *      no_new_privs, and a seccomp allow list that kills the
 *      process on any system call beyond reading stdin, writing stdout and
 *      stderr, and managing its memory;
 *   6. decodes (the loader's size-prepared signal checks the bounds again)
 *      and writes the header below and the RGBA pixels to stdout;
 *   7. with --max-side N, first shrinks a larger picture to fit N x N
 *      (a box filter: each pixel the alpha-weighted mean of the ones it
 *      covers), so the full-size pixels of a small file that claims a
 *      huge picture never reach the app: only what it can show does.
 *
 * Output (host byte order, the reader is on the same machine):
 *   "SPIMG\0\0\1", uint32 width, uint32 height, uint32 stride,
 *   then height * stride bytes of non-premultiplied RGBA, stride = width*4.
 * Exit status: 0 decoded; 2 not PNG, JPEG or GIF; 3 over the bounds;
 * 4 the decoder failed; 5 setup failed; 1 usage. A crash or a seccomp
 * kill is a signal; the app treats every failure alike.
 *
 * --max-side N (1..16384): the largest side sent back, see 7.
 * --probe-forbidden (tests): after the lockdown, try to open a file; a
 * working filter kills the process before the open returns. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <gdk-pixbuf/gdk-pixbuf.h>
#include <seccomp.h>

#include "sp-image-limits.h"

enum
{
  EXIT_USAGE = 1,
  EXIT_UNSUPPORTED = 2,
  EXIT_TOO_LARGE = 3,
  EXIT_DECODE = 4,
  EXIT_SETUP = 5,
};

/* The address space the decoder may use: the largest image allowed as
 * RGBA (256 MiB) plus the input, the loader's working memory and the
 * mapped libraries. */
#define ADDRESS_SPACE_MAX (1024UL * 1024 * 1024)
#define CPU_SECONDS_MAX 10

static void __attribute__ ((noreturn)) fail (int status, const char *message)
{
  /* Only write(2): this may run after the lockdown. */
  static const char prefix[] = "sandpad-imagedecode: ";
  ssize_t ignored;

  ignored = write (STDERR_FILENO, prefix, sizeof prefix - 1);
  ignored = write (STDERR_FILENO, message, strlen (message));
  ignored = write (STDERR_FILENO, "\n", 1);
  (void) ignored;
  _exit (status);
}

static uint8_t *
read_input (size_t *len)
{
  size_t cap = 64 * 1024, n = 0;
  uint8_t *buf = malloc (cap);

  if (buf == NULL)
    fail (EXIT_SETUP, "out of memory");
  for (;;)
    {
      ssize_t got;

      if (n == cap)
        {
          if (cap > SP_DECODE_MAX_INPUT)
            fail (EXIT_TOO_LARGE, "the file is larger than allowed");
          cap *= 2;
          buf = realloc (buf, cap);
          if (buf == NULL)
            fail (EXIT_SETUP, "out of memory");
        }
      got = read (STDIN_FILENO, buf + n, cap - n);
      if (got < 0 && errno == EINTR)
        continue;
      if (got < 0)
        fail (EXIT_SETUP, "cannot read the image");
      if (got == 0)
        break;
      n += (size_t) got;
    }
  if (n > SP_DECODE_MAX_INPUT)
    fail (EXIT_TOO_LARGE, "the file is larger than allowed");
  *len = n;
  return buf;
}

static void
write_all (const void *data, size_t len)
{
  const uint8_t *p = data;

  while (len > 0)
    {
      ssize_t n = write (STDOUT_FILENO, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        fail (EXIT_SETUP, "cannot write the pixels");
      p += n;
      len -= (size_t) n;
    }
}

/* GLib's default log writer checks whether stderr is a terminal (an
 * ioctl the filter forbids): libpng's warnings go out as plain lines. */
static GLogWriterOutput
log_writer (GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
  static const char prefix[] = "sandpad-imagedecode: ";
  ssize_t ignored;

  for (gsize i = 0; i < n_fields; i++)
    if (g_str_equal (fields[i].key, "MESSAGE") && fields[i].length < 0)
      {
        ignored = write (STDERR_FILENO, prefix, sizeof prefix - 1);
        ignored = write (STDERR_FILENO, fields[i].value, strlen (fields[i].value));
        ignored = write (STDERR_FILENO, "\n", 1);
      }
  (void) ignored;
  return G_LOG_WRITER_HANDLED;
}

static void
limit (int resource, rlim_t value)
{
  struct rlimit rl = { value, value };

  if (setrlimit (resource, &rl) != 0)
    fail (EXIT_SETUP, "cannot set a resource limit");
}

static void
add_rule (scmp_filter_ctx ctx, int syscall, unsigned n_args, const struct scmp_arg_cmp *args)
{
  if (seccomp_rule_add_array (ctx, SCMP_ACT_ALLOW, syscall, n_args, args) != 0)
    fail (EXIT_SETUP, "cannot build the seccomp filter");
}

/* What the decoder may do once it has the data: read stdin, write stdout
 * and stderr, manage memory (never executable), wait on a futex (GLib's
 * locks), read the clock, mask signals, and exit. Anything else, opening a file,
 * sockets, exec, ptrace, kills the process. */
static void
install_filter (void)
{
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_KILL_PROCESS);
  const struct scmp_arg_cmp stdin_only[] = { SCMP_A0 (SCMP_CMP_EQ, STDIN_FILENO) };
  const struct scmp_arg_cmp stdout_only[] = { SCMP_A0 (SCMP_CMP_EQ, STDOUT_FILENO) };
  const struct scmp_arg_cmp stderr_only[] = { SCMP_A0 (SCMP_CMP_EQ, STDERR_FILENO) };
  /* No new executable memory: a corrupted decoder gets no place for
   * injected code. */
  const struct scmp_arg_cmp no_exec[] = { SCMP_A2 (SCMP_CMP_MASKED_EQ, PROT_EXEC, 0) };
  static const int plain[] = {
    SCMP_SYS (munmap),
    SCMP_SYS (brk),
    SCMP_SYS (mremap),
    SCMP_SYS (madvise),
    SCMP_SYS (futex),
    SCMP_SYS (clock_gettime),
    SCMP_SYS (gettimeofday),
    SCMP_SYS (rt_sigreturn),
    SCMP_SYS (exit),
    SCMP_SYS (exit_group),
    /* The JPEG loader's sigsetjmp and siglongjmp save and restore the
     * signal mask: its own, nothing outside. */
    SCMP_SYS (rt_sigprocmask),
  };

  if (ctx == NULL)
    fail (EXIT_SETUP, "cannot build the seccomp filter");
  add_rule (ctx, SCMP_SYS (read), 1, stdin_only);
  add_rule (ctx, SCMP_SYS (write), 1, stdout_only);
  add_rule (ctx, SCMP_SYS (write), 1, stderr_only);
  add_rule (ctx, SCMP_SYS (mmap), 1, no_exec);
  add_rule (ctx, SCMP_SYS (mprotect), 1, no_exec);
  for (size_t i = 0; i < G_N_ELEMENTS (plain); i++)
    add_rule (ctx, plain[i], 0, NULL);
  if (seccomp_load (ctx) != 0)
    fail (EXIT_SETUP, "cannot load the seccomp filter");
  seccomp_release (ctx);
}

static void
lock_down (void)
{
  /* The app hands over stdin, stdout and stderr only; anything else
   * inherited by mistake goes before the decoder runs. */
  if (close_range (3, ~0U, 0) != 0)
    fail (EXIT_SETUP, "cannot close inherited descriptors");
  limit (RLIMIT_AS, ADDRESS_SPACE_MAX);
  limit (RLIMIT_DATA, ADDRESS_SPACE_MAX);
  limit (RLIMIT_CPU, CPU_SECONDS_MAX);
  limit (RLIMIT_NOFILE, 3);
  limit (RLIMIT_CORE, 0);
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    fail (EXIT_SETUP, "cannot set no_new_privs");
  install_filter ();
}

static void
on_size_prepared (GdkPixbufLoader *loader, int width, int height, gpointer user_data)
{
  /* The header check already passed; this is what the decoder itself
   * found, before it allocates the pixels. */
  if (!sp_image_size_allowed (width, height))
    fail (EXIT_TOO_LARGE, "the image is larger than allowed");
}

/* The PNG loader accepts a file that ends early and leaves the missing
 * rows as they were: a picture is complete only once its last row was
 * decoded. */
static void
on_area_updated (GdkPixbufLoader *loader, int x, int y, int width, int height, gpointer user_data)
{
  int *bottom = user_data;

  if (y + height > *bottom)
    *bottom = y + height;
}

/* Rows as packed RGBA, whatever the pixbuf's layout. */
static void
write_pixels (GdkPixbuf *pixbuf)
{
  const char magic[8] = { 'S', 'P', 'I', 'M', 'G', 0, 0, 1 };
  uint32_t width = (uint32_t) gdk_pixbuf_get_width (pixbuf);
  uint32_t height = (uint32_t) gdk_pixbuf_get_height (pixbuf);
  uint32_t stride = width * 4;
  uint32_t header[3] = { width, height, stride };
  int channels = gdk_pixbuf_get_n_channels (pixbuf);
  int rowstride = gdk_pixbuf_get_rowstride (pixbuf);
  const guint8 *pixels = gdk_pixbuf_read_pixels (pixbuf);
  uint8_t *row;

  if (gdk_pixbuf_get_bits_per_sample (pixbuf) != 8 || (channels != 3 && channels != 4)
      || !sp_image_size_allowed ((int) width, (int) height))
    fail (EXIT_DECODE, "unexpected pixel layout");
  row = malloc (stride);
  if (row == NULL)
    fail (EXIT_DECODE, "out of memory");
  write_all (magic, sizeof magic);
  write_all (header, sizeof header);
  for (uint32_t y = 0; y < height; y++)
    {
      const guint8 *src = pixels + (size_t) y * (size_t) rowstride;
      for (uint32_t x = 0; x < width; x++)
        {
          row[x * 4] = src[x * channels];
          row[x * 4 + 1] = src[x * channels + 1];
          row[x * 4 + 2] = src[x * channels + 2];
          row[x * 4 + 3] = channels == 4 ? src[x * channels + 3] : 0xff;
        }
      write_all (row, stride);
    }
  free (row);
}

/* The output size of a width x height picture that must fit max x max,
 * the aspect kept (each side at least one pixel). */
static void
fit_size (uint32_t width, uint32_t height, uint32_t max, uint32_t *out_w, uint32_t *out_h)
{
  *out_w = width;
  *out_h = height;
  if (max == 0 || (width <= max && height <= max))
    return;
  if (width >= height)
    {
      *out_w = max;
      *out_h = (uint32_t) (((uint64_t) height * max + width / 2) / width);
    }
  else
    {
      *out_h = max;
      *out_w = (uint32_t) (((uint64_t) width * max + height / 2) / height);
    }
  if (*out_w == 0)
    *out_w = 1;
  if (*out_h == 0)
    *out_h = 1;
}

/* One output row of the box filter: the source rows [y0, y1) summed per
 * output column [xs[x], xs[x + 1]), colour weighted by alpha so that a
 * transparent pixel's colour does not bleed into its neighbours. */
static void
box_row (GdkPixbuf *pixbuf, const uint32_t *xs, uint32_t out_w, uint32_t y0, uint32_t y1,
         uint64_t *acc, uint8_t *row)
{
  int channels = gdk_pixbuf_get_n_channels (pixbuf);
  int rowstride = gdk_pixbuf_get_rowstride (pixbuf);
  const guint8 *pixels = gdk_pixbuf_read_pixels (pixbuf);

  memset (acc, 0, (size_t) out_w * 4 * sizeof *acc);
  for (uint32_t y = y0; y < y1; y++)
    {
      const guint8 *src = pixels + (size_t) y * (size_t) rowstride;
      for (uint32_t x = 0; x < out_w; x++)
        for (uint32_t sx = xs[x]; sx < xs[x + 1]; sx++)
          {
            const guint8 *p = src + (size_t) sx * (size_t) channels;
            uint64_t a = channels == 4 ? p[3] : 0xff;
            acc[x * 4] += p[0] * a;
            acc[x * 4 + 1] += p[1] * a;
            acc[x * 4 + 2] += p[2] * a;
            acc[x * 4 + 3] += a;
          }
    }
  for (uint32_t x = 0; x < out_w; x++)
    {
      uint64_t n = (uint64_t) (xs[x + 1] - xs[x]) * (y1 - y0);
      uint64_t a = acc[x * 4 + 3];
      for (int c = 0; c < 3; c++)
        row[x * 4 + c] = a ? (uint8_t) ((acc[x * 4 + c] + a / 2) / a) : 0;
      row[x * 4 + 3] = (uint8_t) ((a + n / 2) / n);
    }
}

/* The picture shrunk to out_w x out_h (both at most its own size). */
static void
write_scaled (GdkPixbuf *pixbuf, uint32_t out_w, uint32_t out_h)
{
  const char magic[8] = { 'S', 'P', 'I', 'M', 'G', 0, 0, 1 };
  uint32_t width = (uint32_t) gdk_pixbuf_get_width (pixbuf);
  uint32_t height = (uint32_t) gdk_pixbuf_get_height (pixbuf);
  uint32_t header[3] = { out_w, out_h, out_w * 4 };
  uint32_t *xs = malloc (((size_t) out_w + 1) * sizeof *xs);
  uint64_t *acc = malloc ((size_t) out_w * 4 * sizeof *acc);
  uint8_t *row = malloc ((size_t) out_w * 4);
  int channels = gdk_pixbuf_get_n_channels (pixbuf);

  if (gdk_pixbuf_get_bits_per_sample (pixbuf) != 8 || (channels != 3 && channels != 4))
    fail (EXIT_DECODE, "unexpected pixel layout");
  if (xs == NULL || acc == NULL || row == NULL)
    fail (EXIT_DECODE, "out of memory");
  /* Every source column and row falls in exactly one box. */
  for (uint32_t x = 0; x <= out_w; x++)
    xs[x] = (uint32_t) ((uint64_t) x * width / out_w);
  write_all (magic, sizeof magic);
  write_all (header, sizeof header);
  for (uint32_t y = 0; y < out_h; y++)
    {
      box_row (pixbuf, xs, out_w, (uint32_t) ((uint64_t) y * height / out_h),
               (uint32_t) ((uint64_t) (y + 1) * height / out_h), acc, row);
      write_all (row, (size_t) out_w * 4);
    }
  free (row);
  free (acc);
  free (xs);
}

static void
parse_args (int argc, char **argv, gboolean *probe, uint32_t *max_side)
{
  for (int i = 1; i < argc; i++)
    {
      char *end = NULL;
      unsigned long n;

      if (strcmp (argv[i], "--probe-forbidden") == 0)
        {
          *probe = TRUE;
          continue;
        }
      if (strcmp (argv[i], "--max-side") != 0 || i + 1 >= argc)
        fail (EXIT_USAGE, "usage: sandpad-imagedecode [--max-side N] [--probe-forbidden] < IMAGE");
      errno = 0;
      n = strtoul (argv[++i], &end, 10);
      if (errno != 0 || end == argv[i] || *end != '\0' || n == 0 || n > SP_IMAGE_MAX_SIDE)
        fail (EXIT_USAGE, "--max-side takes 1 to 16384");
      *max_side = (uint32_t) n;
    }
}

int
main (int argc, char **argv)
{
  gboolean probe = FALSE;
  uint32_t max_side = 0, out_w, out_h;
  g_autoptr (GdkPixbufLoader) loader = NULL;
  g_autoptr (GError) error = NULL;
  const char *type;
  uint8_t *data;
  size_t len = 0;
  int width = 0, height = 0, bottom = 0;
  GdkPixbuf *pixbuf;

  parse_args (argc, argv, &probe, &max_side);
  g_log_set_writer_func (log_writer, NULL, NULL);

  data = read_input (&len);
  type = sp_image_sniff (data, len);
  if (type == NULL)
    fail (EXIT_UNSUPPORTED, "not a PNG, JPEG or GIF image");
  if (!sp_image_header_size (data, len, &width, &height))
    fail (EXIT_UNSUPPORTED, "the image's header holds no size");
  if (!sp_image_size_allowed (width, height))
    fail (EXIT_TOO_LARGE, "the image is larger than allowed");

  /* The one loader this type needs, chosen by us, never by sniffing. */
  loader = gdk_pixbuf_loader_new_with_type (type, &error);
  if (loader == NULL)
    fail (EXIT_SETUP, "no loader for this type");
  g_signal_connect (loader, "size-prepared", G_CALLBACK (on_size_prepared), NULL);
  g_signal_connect (loader, "area-updated", G_CALLBACK (on_area_updated), &bottom);

  lock_down ();
  if (probe)
    {
      int fd = open ("/etc/hostname", O_RDONLY | O_CLOEXEC);
      fail (9, fd >= 0 ? "the filter let open() through" : "open() failed but was not killed");
    }

  if (!gdk_pixbuf_loader_write (loader, data, len, &error)
      || !gdk_pixbuf_loader_close (loader, &error))
    fail (EXIT_DECODE, "the image could not be decoded");
  pixbuf = gdk_pixbuf_loader_get_pixbuf (loader);
  if (pixbuf == NULL)
    fail (EXIT_DECODE, "the image could not be decoded");
  if (bottom < gdk_pixbuf_get_height (pixbuf))
    fail (EXIT_DECODE, "the image ends early");
  fit_size ((uint32_t) gdk_pixbuf_get_width (pixbuf), (uint32_t) gdk_pixbuf_get_height (pixbuf),
            max_side, &out_w, &out_h);
  if (out_w == (uint32_t) gdk_pixbuf_get_width (pixbuf)
      && out_h == (uint32_t) gdk_pixbuf_get_height (pixbuf))
    write_pixels (pixbuf);
  else
    write_scaled (pixbuf, out_w, out_h);
  _exit (0);
}
