/* test-images.c: a run that makes many PNGs of 4096 x 4096, in a real
 * window against the real runner and decoder (issue 29): only the images
 * in view are decoded, scrolling brings the others in and lets the far
 * ones go, the decoded pixels stay within the window's budget and the
 * app's resident memory stays bounded; an image withheld for want of room
 * shows a placeholder whose Show decodes it alone. */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>
#include <signal.h>
#include <unistd.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-image-budget.h"
#include "sp-image-loader.h"
#include "sp-output-item.h"
#include "sp-stall-meter.h"
#include "sp-transcript.h"
#include "sp-test-tree.h"
#include "sp-test-wait.h"
#include "sp-ui-stall.h"
#include "sp-ui-test.h"
#include "sp-window.h"

#define N_IMAGES 60
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

/* Counts the image rows shown, withheld, failed and not decoded. */
static void
count_images (SpWindow *window, guint *shown, guint *withheld, guint *idle)
{
  GListModel *model = sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));

  *shown = *withheld = *idle = 0;
  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      GObject *image = sp_output_item_get_image (item);

      if (sp_output_item_get_kind (item) != SP_OUTPUT_IMAGE)
        continue;
      g_assert_null (sp_output_item_get_image_error (item));
      if (image != NULL)
        {
          (*shown)++;
          g_assert_cmpint (gdk_texture_get_width (GDK_TEXTURE (image)), <=,
                           SP_IMAGE_DISPLAY_MAX_SIDE);
        }
      else if (sp_output_item_get_image_withheld (item))
        (*withheld)++;
      else
        (*idle)++;
    }
}

/* The image items of the output, in its order. */
static GPtrArray *
image_items (SpWindow *window)
{
  GListModel *model = sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
  GPtrArray *items = g_ptr_array_new_with_free_func (g_object_unref);

  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      if (sp_output_item_get_kind (item) == SP_OUTPUT_IMAGE)
        g_ptr_array_add (items, g_steal_pointer (&item));
    }
  return items;
}

static SpImageLoader *
loader_of (SpWindow *window)
{
  return sp_exec_panel_get_image_loader (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
}

static gboolean
loader_settled (gpointer data)
{
  return !sp_image_loader_get_busy (loader_of (data));
}

static gboolean
has_image (gpointer data)
{
  return sp_output_item_get_image (data) != NULL;
}

static gboolean
is_withheld (gpointer data)
{
  return sp_output_item_get_image_withheld (data);
}

/* A run writing n PNGs of side x side (one compressed once, written n
 * times: big0.png, big1.png ...). */
static void
run_pngs (SpWindow *window, guint n, guint side)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  g_autofree char *code = g_strdup_printf (
    "import zlib, struct\n"
    "w = h = %u\n"
    "def chunk(t, d):\n"
    "    return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))\n"
    "row = b'\\0' + b'\\x20\\x80\\xe0' * w\n"
    "ihdr = struct.pack('>IIBBBBB', w, h, 8, 2, 0, 0, 0)\n"
    "data = (b'\\x89PNG\\r\\n\\x1a\\n' + chunk(b'IHDR', ihdr)\n"
    "        + chunk(b'IDAT', zlib.compress(row * h, 6)) + chunk(b'IEND', b''))\n"
    "for i in range(%u):\n"
    "    open('big%%02d.png' %% i, 'wb').write(data)\n"
    "print(len(data))\n",
    side, n);

  gtk_text_buffer_set_text (buffer, code, -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 15000));
  g_assert_true (sp_test_wait_for (is_idle, window, 60000));
}

static GtkEventController *
find_scroll_controller (GtkWidget *widget)
{
  g_autoptr (GListModel) controllers = gtk_widget_observe_controllers (widget);

  for (guint i = 0; i < g_list_model_get_n_items (controllers); i++)
    {
      g_autoptr (GtkEventController) controller = g_list_model_get_item (controllers, i);
      if (GTK_IS_EVENT_CONTROLLER_SCROLL (controller)
          && gtk_event_controller_get_propagation_phase (controller) == GTK_PHASE_CAPTURE)
        return controller;
    }
  return NULL;
}

static GtkScrolledWindow *
find_scroller (GtkWidget *widget)
{
  if (GTK_IS_SCROLLED_WINDOW (widget) && gtk_widget_has_css_class (widget, "sp-output"))
    return GTK_SCROLLED_WINDOW (widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkScrolledWindow *found = find_scroller (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* As the person does it: a wheel turned up (the view stops following
 * the end), then the view moved to the top. */
static void
scroll_to_top (SpWindow *window)
{
  SpTranscript *transcript = sp_exec_panel_get_transcript (
    SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
  GtkScrolledWindow *scroller = find_scroller (GTK_WIDGET (transcript));
  GtkEventController *scroll = find_scroll_controller (GTK_WIDGET (scroller));
  gboolean handled = FALSE;

  g_assert_nonnull (scroll);
  g_signal_emit_by_name (scroll, "scroll", 0.0, -1.0, &handled);
  gtk_adjustment_set_value (gtk_scrolled_window_get_vadjustment (scroller), 0);
  g_assert_false (sp_transcript_get_following (transcript));
}

static SpWindow *
new_window (void)
{
  SpWindow *window = sp_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  return window;
}

/* The control for test_lazy's stall figures (sp-ui-stall.h): the same
 * steps with as many pictures of 64 x 64, which the helper decodes at
 * once and the window shows at their size. */
static SpStall
small_pictures_stall (void)
{
  SpWindow *window = new_window ();
  SpStallMeter *meter = sp_application_get_stall_meter (app);
  g_autoptr (GPtrArray) items = NULL;
  SpStall stall;

  sp_stall_meter_reset (meter);
  run_pngs (window, N_IMAGES, 64);
  items = image_items (window);
  g_assert_cmpuint (items->len, ==, N_IMAGES);
  g_assert_true (sp_test_wait_for (has_image, g_ptr_array_index (items, items->len - 1), 60000));
  g_assert_true (sp_test_wait_for (loader_settled, window, 60000));
  scroll_to_top (window);
  g_assert_true (sp_test_wait_for (has_image, g_ptr_array_index (items, 0), 60000));
  g_assert_true (sp_test_wait_for (loader_settled, window, 60000));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  stall = sp_stall_take (meter);
  close_window (window);
  return stall;
}

/* 60 images of 4096 x 4096 (64 Mpx as RGBA each): before, the first eight
 * were decoded as they arrived, wherever the view was, and the other 52
 * withheld for good, even when scrolled to. */
static void
test_lazy (void)
{
  SpStall control = small_pictures_stall ();
  SpWindow *window = new_window ();
  SpStallMeter *meter = sp_application_get_stall_meter (app);
  g_autoptr (GPtrArray) items = NULL;
  SpOutputItem *first, *last;
  SpImageBudget *budget;
  guint shown, withheld, idle, decodes_at_end, decodes;
  guint64 before, after;
  SpStall stall;

  before = rss_bytes ();
  sp_stall_meter_reset (meter);
  run_pngs (window, N_IMAGES, SIDE);
  items = image_items (window);
  g_assert_cmpuint (items->len, ==, N_IMAGES);
  first = g_ptr_array_index (items, 0);
  last = g_ptr_array_index (items, items->len - 1);

  /* The view follows the output to its end: the last images are seen. */
  g_assert_true (sp_test_wait_for (has_image, last, 60000));
  g_assert_true (sp_test_wait_for (loader_settled, window, 60000));
  count_images (window, &shown, &withheld, &idle);
  decodes_at_end = sp_image_loader_get_n_decodes (loader_of (window));
  budget = sp_image_loader_get_budget (loader_of (window));
  g_test_message ("at the end: %u decoded (%u helpers), %u withheld, %u not decoded", shown,
                  decodes_at_end, withheld, idle);
  g_assert_cmpuint (withheld, ==, 0);
  g_assert_cmpuint (shown, >=, 1);
  /* A screenful (with its margin), far from all 60; GTK 4.18's list view
   * may map a row for a frame while it settles, so one or two decoded
   * and dropped again are allowed. */
  g_assert_cmpuint (decodes_at_end, >=, shown);
  g_assert_cmpuint (decodes_at_end, <=, shown + 2);
  g_assert_cmpuint (shown, <=, 12);
  g_assert_cmpuint (idle, ==, N_IMAGES - shown);
  g_assert_null (sp_output_item_get_image (first));
  g_assert_cmpuint (sp_image_budget_get_run_used (budget), <=, SP_IMAGE_BUDGET_RUN_PIXELS);
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), <=,
                    (guint64) shown * SP_IMAGE_DISPLAY_MAX_SIDE * SP_IMAGE_DISPLAY_MAX_SIDE);

  /* Scrolled to the top: the first images come in, the last go. */
  scroll_to_top (window);
  g_assert_true (sp_test_wait_for (has_image, first, 60000));
  g_assert_true (sp_test_wait_for (loader_settled, window, 60000));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  count_images (window, &shown, &withheld, &idle);
  decodes = sp_image_loader_get_n_decodes (loader_of (window));
  after = rss_bytes ();
  g_test_message ("at the top: %u decoded, %u helpers in all; RSS %" G_GUINT64_FORMAT
                  " MiB before, %" G_GUINT64_FORMAT " MiB after",
                  shown, decodes, before >> 20, after >> 20);
  g_assert_null (sp_output_item_get_image (last));
  g_assert_cmpuint (withheld, ==, 0);
  g_assert_cmpuint (shown, <=, 12);
  g_assert_cmpuint (decodes, ==, decodes_at_end + shown);
  g_assert_cmpuint (sp_image_budget_get_run_used (budget), <=, SP_IMAGE_BUDGET_RUN_PIXELS);
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), <=,
                    (guint64) shown * SP_IMAGE_DISPLAY_MAX_SIDE * SP_IMAGE_DISPLAY_MAX_SIDE);
  /* Generous: a screenful at display size, a copy per texture upload and
   * the allocator's slack, far under what 60 full-size pictures take. */
  g_assert_cmpuint (after > before ? after - before : 0, <, 512 * 1024 * 1024);
  /* And the window kept responding all along: the run, the decodes as the
   * rows came into view and went, the scroll back, against the same with
   * small pictures. */
  stall = sp_stall_take (meter);
  sp_stall_assert_within ("60 pictures of 4096 x 4096", &stall, &control);

  close_window (window);
}

static void
collect_show_buttons (GtkWidget *widget, GPtrArray *found)
{
  if (GTK_IS_BUTTON (widget) && g_str_equal (gtk_widget_get_name (widget), "show")
      && gtk_widget_get_mapped (widget))
    g_ptr_array_add (found, widget);
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect_show_buttons (child, found);
}

/* The window's share is held elsewhere (as Full Size windows of earlier
 * runs hold theirs): the images in view are withheld with a placeholder,
 * and Show decodes the one asked for, alone. */
static void
test_show_withheld (void)
{
  SpWindow *window = sp_window_new (app);
  g_autoptr (GPtrArray) items = NULL;
  g_autoptr (GPtrArray) buttons = g_ptr_array_new ();
  g_autoptr (GPtrArray) elsewhere = g_ptr_array_new_with_free_func (g_object_unref);
  SpImageBudget *budget;
  SpOutputItem *asked = NULL;
  GtkWidget *row_label;
  guint shown, withheld, idle, decodes;
  guint64 one = (guint64) SP_IMAGE_DISPLAY_MAX_SIDE * SP_IMAGE_DISPLAY_MAX_SIDE;

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 700);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  /* A first run, so the panel has the window's budget. */
  run_pngs (window, 1, 64);
  items = image_items (window);
  g_assert_true (sp_test_wait_for (has_image, g_ptr_array_index (items, 0), 60000));
  budget = sp_image_loader_get_budget (loader_of (window));
  g_clear_pointer (&items, g_ptr_array_unref);

  /* Held before the run (the first run's small picture is let go of
   * later: no room for a display-size one all the same). */
  while (sp_image_budget_get_window_used (budget) < SP_IMAGE_BUDGET_WINDOW_PIXELS)
    {
      g_autoptr (GObject) held = g_object_new (G_TYPE_OBJECT, NULL);
      guint64 left = SP_IMAGE_BUDGET_WINDOW_PIXELS - sp_image_budget_get_window_used (budget);

      /* Each earlier run within its own share. */
      sp_image_budget_begin_run (budget);
      g_assert_true (sp_image_budget_take (budget, MIN (left, SP_IMAGE_BUDGET_RUN_PIXELS), held));
      g_ptr_array_add (elsewhere, g_steal_pointer (&held));
    }
  run_pngs (window, 3, SIDE);
  items = image_items (window);
  g_assert_cmpuint (items->len, ==, 3);
  g_assert_true (sp_test_wait_for (is_withheld, g_ptr_array_index (items, 2), 60000));
  g_assert_true (sp_test_wait_for (loader_settled, window, 60000));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  count_images (window, &shown, &withheld, &idle);
  g_assert_cmpuint (shown, ==, 0);
  g_assert_cmpuint (withheld, >=, 1);

  /* The placeholder: the name, the size, and Show. */
  collect_show_buttons (GTK_WIDGET (window), buttons);
  g_assert_cmpuint (buttons->len, ==, withheld);
  row_label = gtk_widget_get_first_child (
    gtk_widget_get_parent (gtk_widget_get_parent (g_ptr_array_index (buttons, 0))));
  g_assert_true (GTK_IS_LABEL (row_label));
  g_assert_true (gtk_widget_get_visible (row_label));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (row_label)), "big0"));
  g_assert_nonnull (strstr (gtk_label_get_text (GTK_LABEL (row_label)), "kB"));
  for (guint i = 0; i < items->len; i++)
    if (strstr (gtk_label_get_text (GTK_LABEL (row_label)),
                sp_output_item_get_label (g_ptr_array_index (items, i)))
        != NULL)
      asked = g_ptr_array_index (items, i);
  g_assert_nonnull (asked);

  decodes = sp_image_loader_get_n_decodes (loader_of (window));
  g_assert_true (gtk_widget_activate (g_ptr_array_index (buttons, 0)));
  g_assert_true (sp_test_wait_for (has_image, asked, 60000));
  g_assert_true (sp_test_wait_for (loader_settled, window, 60000));
  count_images (window, &shown, &withheld, &idle);
  /* That one alone, within one image past the window's bound. */
  g_assert_cmpuint (shown, ==, 1);
  g_assert_cmpuint (sp_image_loader_get_n_decodes (loader_of (window)), ==, decodes + 1);
  g_assert_false (sp_output_item_get_image_withheld (asked));
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), <=,
                    SP_IMAGE_BUDGET_WINDOW_PIXELS + SP_IMAGE_BUDGET_ON_DEMAND_PIXELS);
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), >, SP_IMAGE_BUDGET_WINDOW_PIXELS);
  g_assert_cmpuint (sp_image_budget_get_window_used (budget), <=,
                    SP_IMAGE_BUDGET_WINDOW_PIXELS + one);

  g_ptr_array_set_size (elsewhere, 0);
  close_window (window);
}

/* A display()ed image, shown, then the app killed with SIGKILL (in a new
 * process of its own, the child below): nothing of it is left in the
 * temporary folder. The images of display events were once written to
 * $TMPDIR/sandpad-display-XXXXXX, removed only when the window closed, so
 * a killed app left them for any later process of the person to read. */
static void
test_display_killed (void)
{
  const char *tmp = g_getenv ("TMPDIR");
  g_autoptr (GDir) dir = NULL;
  g_autoptr (GString) left = g_string_new (NULL);
  const char *name;

  g_test_trap_subprocess ("/Sandpad/Images/display-killed-child", 120 * G_USEC_PER_SEC,
                          G_TEST_SUBPROCESS_INHERIT_STDERR);
  /* It got as far as showing the image, then died of the signal. */
  g_test_trap_assert_failed ();
  g_test_trap_assert_stdout ("*image shown*");
  dir = g_dir_open (tmp, 0, NULL);
  g_assert_nonnull (dir);
  while ((name = g_dir_read_name (dir)) != NULL)
    if (g_str_has_prefix (name, "sandpad-display") || g_str_has_prefix (name, "sandpad-output"))
      g_string_append_printf (left, "%s ", name);
  g_assert_cmpstr (left->str, ==, "");
}

static void
test_display_killed_child (void)
{
  GtkTextBuffer *buffer;
  g_autoptr (GPtrArray) items = NULL;
  SpWindow *window;

  if (!g_test_subprocess ())
    {
      g_test_skip ("runs only as the display-killed test's new process");
      return;
    }
  window = sp_window_new (app);
  buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_text_buffer_set_text (buffer,
                            "from PIL import Image\n"
                            "display(Image.new('RGB', (16, 16), 'red'))\n",
                            -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 15000));
  g_assert_true (sp_test_wait_for (is_idle, window, 60000));
  items = image_items (window);
  g_assert_cmpuint (items->len, ==, 1);
  g_assert_true (sp_test_wait_for (has_image, items->pdata[0], 60000));
  g_assert_null (sp_output_item_get_image_error (items->pdata[0]));
  g_print ("image shown\n");
  fflush (stdout);
  kill (getpid (), SIGKILL);
}

int
main (int argc, char **argv)
{
  g_autofree char *tmp = NULL;
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  /* A temporary folder of the test's own, shared with its display-killed
   * child (which inherits the environment), so what another test leaves
   * in /tmp meanwhile is not taken for the app's. The runner makes its
   * run directories there too, and a root runner's runs are nobody's:
   * they must be able to pass through it. */
  if (g_getenv ("SP_TEST_TMP_OWNED") == NULL)
    {
      tmp = g_dir_make_tmp ("sp-images-ui-XXXXXX", NULL);
      g_assert_nonnull (tmp);
      g_assert_cmpint (g_chmod (tmp, 0711), ==, 0);
      g_setenv ("TMPDIR", tmp, TRUE);
      g_setenv ("SP_TEST_TMP_OWNED", "1", TRUE);
    }
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  /* The child is a Sandpad of its own while this one still runs on the
   * test's bus: unique, it would hand itself over to this one. */
  if (tmp == NULL)
    g_application_set_flags (G_APPLICATION (app), g_application_get_flags (G_APPLICATION (app))
                                                    | G_APPLICATION_NON_UNIQUE);
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  g_test_add_func ("/Sandpad/Images/lazy", test_lazy);
  g_test_add_func ("/Sandpad/Images/show-withheld", test_show_withheld);
  g_test_add_func ("/Sandpad/Images/display-killed", test_display_killed);
  g_test_add_func ("/Sandpad/Images/display-killed-child", test_display_killed_child);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  if (tmp != NULL)
    sp_test_remove_tree (tmp);
  return ret;
}
