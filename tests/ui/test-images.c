/* test-images.c: a run that makes many small PNGs claiming 4096 x 4096
 * each, in a real window against the real runner and decoder: the app's
 * resident memory stays bounded, the first images show at display size
 * and the rest say they are too large to show (issue 29). */
#include "config.h"

#include <gtksourceview/gtksource.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-image-budget.h"
#include "sp-output-item.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

#define N_IMAGES 16
#define SIDE 4096

static SpApplication *app;

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static guint64
rss_bytes (void)
{
  g_autofree char *status = NULL;
  const char *line;

  g_assert_true (g_file_get_contents ("/proc/self/status", &status, NULL, NULL));
  line = strstr (status, "VmRSS:");
  g_assert_nonnull (line);
  return g_ascii_strtoull (line + 6, NULL, 10) * 1024;
}

/* Counts the image rows shown, withheld (too large) and not done yet. */
static void
count_images (SpWindow *window, guint *shown, guint *withheld, guint *pending)
{
  GListModel *model = sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));

  *shown = *withheld = *pending = 0;
  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      GObject *image = sp_output_item_get_image (item);
      const char *error = sp_output_item_get_image_error (item);

      if (sp_output_item_get_kind (item) != SP_OUTPUT_IMAGE)
        continue;
      if (image != NULL)
        {
          (*shown)++;
          g_assert_cmpint (gdk_texture_get_width (GDK_TEXTURE (image)), <=,
                           SP_IMAGE_DISPLAY_MAX_SIDE);
        }
      else if (error != NULL)
        {
          g_assert_nonnull (strstr (error, "too large to show"));
          (*withheld)++;
        }
      else
        (*pending)++;
    }
}

static gboolean
all_done (gpointer data)
{
  guint shown, withheld, pending;

  count_images (data, &shown, &withheld, &pending);
  return shown + withheld == N_IMAGES && pending == 0;
}

static void
test_many_large_pngs (void)
{
  SpWindow *window = sp_window_new (app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  g_autofree char *code = g_strdup_printf (
    "import zlib, struct\n"
    "w = h = %d\n"
    "def chunk(t, d):\n"
    "    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))\n"
    "row = b'\\0' + b'\\x20\\x80\\xe0' * w\n"
    "ihdr = struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)\n"
    "data = (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', ihdr)\n"
    "        + chunk(b'IDAT', zlib.compress(row * h, 9)) + chunk(b'IEND', b''))\n"
    "for i in range(%d):\n"
    "    open('big%%02d.png' %% i, 'wb').write(data)\n"
    "print(len(data))\n",
    SIDE, N_IMAGES);
  /* What the old path kept: every picture at full size as RGBA. */
  guint64 unbounded = (guint64) N_IMAGES * SIDE * SIDE * 4;
  guint64 before, after;
  guint shown, withheld, pending;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_text_buffer_set_text (buffer, code, -1);
  before = rss_bytes ();
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_idle, window, 60000));
  g_assert_true (sp_test_wait_for (all_done, window, 120000));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  after = rss_bytes ();
  count_images (window, &shown, &withheld, &pending);
  g_test_message ("RSS %" G_GUINT64_FORMAT " MiB before, %" G_GUINT64_FORMAT
                  " MiB after; %u shown, %u too large; unbounded: %" G_GUINT64_FORMAT " MiB",
                  before >> 20, after >> 20, shown, withheld, unbounded >> 20);
  /* Eight display-size images fit a run's budget; the rest wait. */
  g_assert_cmpuint (shown, ==, SP_IMAGE_BUDGET_RUN_PIXELS
                                 / (SP_IMAGE_DISPLAY_MAX_SIDE * SP_IMAGE_DISPLAY_MAX_SIDE));
  g_assert_cmpuint (withheld, ==, N_IMAGES - shown);
  /* Generous: the budget's 128 MiB of pixels, a copy per texture upload
   * and the allocator's slack, far under the 1 GiB the old path kept. */
  g_assert_cmpuint (after > before ? after - before : 0, <, unbounded / 2);
  g_assert_cmpuint (after > before ? after - before : 0, <, 512 * 1024 * 1024);

  gtk_text_buffer_set_modified (buffer, FALSE);
  gtk_window_destroy (GTK_WINDOW (window));
}

int
main (int argc, char **argv)
{
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  g_test_add_func ("/Sandpad/Images/many-large-pngs", test_many_large_pngs);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
