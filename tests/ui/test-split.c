/* test-split.c: the editor and the panel share the window by proportion,
 * stack below a width, and are never squeezed, in a real window under
 * Xvfb. Saves the narrow window as sandpad-narrow.png. From libadwaita 1.4
 * the window's AdwBreakpoint stacks them, before it the split itself. */
#include "config.h"

#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "sp-application.h"
#include "sp-test-wait.h"
#include "sp-window.h"

static SpApplication *app;

typedef struct
{
  GtkWidget *widget;
  int width;
} WidthWait;

/* The window's own width, less what its frame takes (no window manager
 * under Xvfb: GTK draws the frame). */
static gboolean
has_width (gpointer data)
{
  WidthWait *wait = data;
  int width = gtk_widget_get_width (wait->widget);

  return width > 0 && ABS (width - wait->width) <= 24;
}

static GtkWidget *
find_type (GtkWidget *widget, GType type)
{
  if (G_TYPE_CHECK_INSTANCE_TYPE (widget, type))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_type (child, type);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static GtkPaned *
paned_of (SpWindow *window)
{
  GtkWidget *paned = find_type (GTK_WIDGET (window), GTK_TYPE_PANED);

  g_assert_nonnull (paned);
  return GTK_PANED (paned);
}

static gboolean
is_stacked (gpointer data)
{
  return gtk_orientable_get_orientation (GTK_ORIENTABLE (paned_of (data)))
         == GTK_ORIENTATION_VERTICAL;
}

static gboolean
is_side_by_side (gpointer data)
{
  return !is_stacked (data);
}

/* Shows a window of the given size and waits until it has that width. */
static SpWindow *
open_sized (int width, int height)
{
  SpWindow *window = sp_window_new (app);
  WidthWait wait = { GTK_WIDGET (window), width };

  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (has_width, &wait, 10000));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  return window;
}

static void
resize (SpWindow *window, int width, int height)
{
  WidthWait wait = { GTK_WIDGET (window), width };

  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  g_assert_true (sp_test_wait_for (has_width, &wait, 10000));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
}

/* Whether the window's narrow breakpoint is what applies (libadwaita 1.4
 * and later; before it there is none, and the split decides). */
static gboolean
breakpoint_applies (SpWindow *window)
{
#if ADW_CHECK_VERSION(1, 4, 0)
  return adw_application_window_get_current_breakpoint (ADW_APPLICATION_WINDOW (window)) != NULL;
#else
  return is_stacked (window);
#endif
}

static double
editor_share (SpWindow *window)
{
  GtkPaned *paned = paned_of (window);

  return (double) gtk_widget_get_width (gtk_paned_get_start_child (paned))
         / gtk_widget_get_width (GTK_WIDGET (paned));
}

static void
save_png (SpWindow *window, const char *name)
{
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (GTK_WIDGET (window));
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *path = NULL;
  const char *dir = g_getenv ("SANDPAD_SCREENSHOT_DIR");
  GtkSnapshot *snapshot = gtk_snapshot_new ();

  gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (GTK_WIDGET (window)),
                          gtk_widget_get_height (GTK_WIDGET (window)));
  node = gtk_snapshot_free_to_node (snapshot);
  g_assert_nonnull (node);
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node, NULL);
  path = g_build_filename (dir ? dir : g_get_tmp_dir (), name, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
}

static void
close_window (SpWindow *window)
{
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), FALSE);
  gtk_window_close (GTK_WINDOW (window));
}

static void
test_proportion (void)
{
  GSettings *settings = sp_application_get_settings (app);
  SpWindow *window = open_sized (1000, 700);
  GtkPaned *paned = paned_of (window);
  double stored;

  g_assert_true (is_side_by_side (window));
  g_test_message ("editor share at first: %.3f", editor_share (window));
  g_assert_cmpfloat (ABS (editor_share (window) - 0.55), <, 0.03);

  /* The divider dragged to 30 %: stored as that share, not as pixels. */
  gtk_paned_set_position (paned, (int) (0.3 * gtk_widget_get_width (GTK_WIDGET (paned))));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  stored = g_settings_get_double (settings, "panel-fraction");
  g_test_message ("stored share: %.3f", stored);
  g_assert_cmpfloat (ABS (stored - 0.3), <, 0.01);

  /* Narrowed once, and closed: the share is what was chosen, not what a
   * narrow window left. */
  resize (window, 800, 700);
  g_assert_true (is_side_by_side (window));
  g_assert_cmpfloat (ABS (editor_share (window) - 0.3), <, 0.03);
  g_assert_cmpfloat (ABS (g_settings_get_double (settings, "panel-fraction") - 0.3), <, 0.01);
  close_window (window);

  window = open_sized (1200, 700);
  g_test_message ("editor share in a new, wider window: %.3f", editor_share (window));
  g_assert_cmpfloat (ABS (editor_share (window) - 0.3), <, 0.03);
  close_window (window);
  g_settings_reset (settings, "panel-fraction");
}

static void
test_narrow_stacks (void)
{
  SpWindow *window = open_sized (1000, 700);
  GtkPaned *paned;
  GtkWidget *editor, *panel;

  g_assert_true (is_side_by_side (window));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)),
                            "print('a narrow window')\n", -1);
  /* As a person drags the window's edge: below the threshold first (side
   * by side still fits there), then narrower than side by side could be. */
  resize (window, 640, 760);
  g_assert_true (sp_test_wait_for (is_stacked, window, 10000));
  g_assert_true (breakpoint_applies (window));
  resize (window, 480, 760);
  g_assert_true (is_stacked (window));
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  paned = paned_of (window);
  editor = gtk_paned_get_start_child (paned);
  panel = sp_window_get_exec_panel (window);
  g_test_message ("narrow: editor %dx%d, panel %dx%d", gtk_widget_get_width (editor),
                  gtk_widget_get_height (editor), gtk_widget_get_width (panel),
                  gtk_widget_get_height (panel));
  /* Both usable: the full width each, and a fair share of the height. */
  g_assert_cmpint (gtk_widget_get_width (editor), >=, 400);
  g_assert_cmpint (gtk_widget_get_width (panel), >=, 400);
  g_assert_cmpint (gtk_widget_get_height (editor), >=, 160);
  g_assert_cmpint (gtk_widget_get_height (panel), >=, 160);
  save_png (window, "sandpad-narrow.png");

  /* Wide again: side by side again. */
  resize (window, 1000, 700);
  g_assert_true (sp_test_wait_for (is_side_by_side, window, 10000));
  g_assert_false (breakpoint_applies (window));
  close_window (window);
}

int
main (int argc, char **argv)
{
  int ret;

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_print ("1..0 # SKIP no display\n");
      return 0;
    }
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  g_test_add_func ("/Sandpad/Split/proportion", test_proportion);
  g_test_add_func ("/Sandpad/Split/narrow-stacks", test_narrow_stacks);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
