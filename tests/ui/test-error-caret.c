/* test-error-caret.c: a failing run never moves the caret nor the view
 * (issue 38, item 3), in a real window under Xvfb against the real
 * runner, typed as real keys through XTEST. A person types at the end of
 * line 4 while the run fails on line 2: what they type stays at the end
 * of line 4, the view stays where they are, line 2 is marked, and Ctrl+E
 * or the error's frame takes them there when they ask. */
#include "config.h"

#include <gtksourceview/gtksource.h>
#include <string.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-test-wait.h"
#include "sp-ui-keys.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static GtkTextView *
editor_of (SpWindow *window)
{
  return GTK_TEXT_VIEW (sp_ui_test_find_of_type (GTK_WIDGET (window), GTK_SOURCE_TYPE_VIEW));
}

static gboolean
line_2_marked (gpointer data)
{
  g_autofree char *lines = sp_ui_test_marked_lines (data);

  return g_str_equal (lines, "2");
}

/* The caret as "line:column", both from 1. */
static char *
caret (SpWindow *window)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextIter at;

  gtk_text_buffer_get_iter_at_mark (buffer, &at, gtk_text_buffer_get_insert (buffer));
  return g_strdup_printf ("%d:%d", gtk_text_iter_get_line (&at) + 1,
                          gtk_text_iter_get_line_offset (&at) + 1);
}

typedef struct
{
  SpWindow *window;
  const char *where;
} CaretWait;

static gboolean
caret_is (gpointer data)
{
  CaretWait *wait = data;
  g_autofree char *now = caret (wait->window);

  return g_str_equal (now, wait->where);
}

static void
wait_caret (SpWindow *window, const char *where)
{
  CaretWait wait = { window, where };

  if (!sp_test_wait_for (caret_is, &wait, 10000))
    {
      g_autofree char *now = caret (window);
      g_assert_cmpstr (now, ==, where);
    }
}

static gboolean
has_focus_within (gpointer data)
{
  return sp_ui_keys_has_focus_within (data);
}

/* Whether line (from 1) is in the part of the editor shown. */
static gboolean
line_in_view (GtkTextView *view, int line)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (view);
  GdkRectangle visible, at;
  GtkTextIter iter;

  gtk_text_buffer_get_iter_at_line (buffer, &iter, line - 1);
  gtk_text_view_get_visible_rect (view, &visible);
  gtk_text_view_get_iter_location (view, &iter, &at);
  return at.y >= visible.y && at.y + at.height <= visible.y + visible.height;
}

static gboolean
line_2_in_view (gpointer data)
{
  return line_in_view (data, 2);
}

/* A window with code whose editor has the keyboard of a window that has
 * the X focus, as after a click into the code. */
static SpWindow *
open_typing (const char *code, int width, int height)
{
  SpWindow *window = sp_window_new (app);
  GtkWidget *view;

  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), code, -1);
  sp_ui_keys_focus_window (GTK_WINDOW (window));
  view = GTK_WIDGET (editor_of (window));
  gtk_widget_grab_focus (view);
  g_assert_true (sp_test_wait_for (has_focus_within, view, 5000));
  return window;
}

/* The error's frame "Line 2, in <module>" as shown: mapped and laid out
 * (the list view may hold other rows with it, unshown). */
static GtkWidget *
frame_button (GtkWidget *widget)
{
  if (GTK_IS_BUTTON (widget) && gtk_widget_get_mapped (widget) && gtk_widget_get_width (widget) > 0
      && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (widget)), "Line 2, in <module>") == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = frame_button (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
has_frame_button (gpointer data)
{
  return frame_button (data) != NULL;
}

/* The person types at the end of line 4, presses Run, goes on typing as
 * the run fails on line 2, and once it has: every key lands at the end of
 * line 4, the caret stays there, line 2 is marked. Then Ctrl+E takes the
 * caret to line 2, and so does a click on the error's frame. Before, the
 * failure put the caret at the start of line 2 and "c" landed there. */
static void
test_typing_stays (void)
{
  const char *code = "print(\"start\")\n1 / 0\nx = 3\ny = 4\n";
  SpWindow *window = open_typing (code, 1000, 700);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkWidget *view = GTK_WIDGET (editor_of (window));
  GtkWidget *panel = sp_window_get_exec_panel (window);
  g_autofree char *lines = NULL;

  /* To the end of line 4 as a person goes there: from the top, down three
   * lines, End. */
  sp_ui_keys_press_ctrl (XK_Home);
  sp_ui_keys_press (XK_Down);
  sp_ui_keys_press (XK_Down);
  sp_ui_keys_press (XK_Down);
  sp_ui_keys_press (XK_End);
  wait_caret (window, "4:6");
  sp_ui_keys_type (" # a");
  sp_ui_keys_wait_text (buffer, "print(\"start\")\n1 / 0\nx = 3\ny = 4 # a\n");

  /* Run, and typing on at once, before or as the error comes. */
  sp_ui_keys_press_ctrl (XK_Return);
  sp_ui_keys_type ("b");
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  g_assert_true (sp_test_wait_for (has_frame_button, panel, 10000));
  /* Once it has come. */
  sp_ui_keys_type ("c");
  sp_ui_keys_wait_text (buffer, "print(\"start\")\n1 / 0\nx = 3\ny = 4 # abc\n");
  wait_caret (window, "4:12");
  g_assert_false (gtk_text_buffer_get_has_selection (buffer));
  g_assert_true (has_focus_within (view));
  /* The error's line is marked, and only it. */
  lines = sp_ui_test_marked_lines (window);
  g_assert_cmpstr (lines, ==, "2");

  /* Ctrl+E: to the error's line, when asked. */
  sp_ui_keys_press_ctrl (XK_e);
  wait_caret (window, "2:1");
  g_assert_true (has_focus_within (view));

  /* Back to line 4 by keys, then the error's frame clicked. */
  sp_ui_keys_press (XK_Down);
  sp_ui_keys_press (XK_Down);
  sp_ui_keys_press (XK_End);
  wait_caret (window, "4:12");
  sp_ui_keys_click (frame_button (panel));
  wait_caret (window, "2:1");
  g_assert_true (sp_test_wait_for (has_focus_within, view, 5000));
  g_assert_true (line_2_marked (window));
  close_window (window);
}

/* Where the view is: its vertical scroll value. */
static double
scroll_of (GtkTextView *view)
{
  return gtk_adjustment_get_value (gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view)));
}

/* Waits until the view stands still with line in it: the same scroll
 * value and height on two frames in a row (GTK measures lines and
 * animates a scroll over frames, from the frame after it is asked for).
 * FALSE when it never does. */
static gboolean
view_settles_on (GtkTextView *view, int line)
{
  GtkAdjustment *adj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  double last = -1, last_upper = -1;

  for (int frames = 0; frames < 600; frames++)
    {
      double now, upper;

      gtk_test_widget_wait_for_draw (GTK_WIDGET (view));
      now = gtk_adjustment_get_value (adj);
      upper = gtk_adjustment_get_upper (adj);
      if (G_APPROX_VALUE (now, last, 0.01) && G_APPROX_VALUE (upper, last_upper, 0.01)
          && line_in_view (view, line))
        return TRUE;
      last = now;
      last_upper = upper;
    }
  {
    GdkRectangle visible, at;
    GtkTextIter iter;

    gtk_text_buffer_get_iter_at_line (gtk_text_view_get_buffer (view), &iter, line - 1);
    gtk_text_view_get_visible_rect (view, &visible);
    gtk_text_view_get_iter_location (view, &iter, &at);
    g_test_message ("line %d at y %d (%d high); shown %d to %d; scroll %.0f of %.0f, page %.0f",
                    line, at.y, at.height, visible.y, visible.y + visible.height,
                    gtk_adjustment_get_value (adj), gtk_adjustment_get_upper (adj),
                    gtk_adjustment_get_page_size (adj));
  }
  return FALSE;
}

/* Whether the view has measured its text down to the last line. */
static gboolean
view_measured (gpointer data)
{
  GtkTextView *view = data;
  GtkAdjustment *adj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (view));
  GtkTextIter end;
  GdkRectangle at;

  gtk_text_buffer_get_end_iter (gtk_text_view_get_buffer (view), &end);
  gtk_text_view_get_iter_location (view, &end, &at);
  return at.y + at.height <= gtk_adjustment_get_upper (adj);
}

/* Sixty lines, typing at the end of the last, out of sight of line 2
 * that fails: the view stays where the person types. Before, it scrolled
 * up to line 2. Ctrl+E brings line 2 into view. */
static void
test_view_stays (void)
{
  g_autoptr (GString) code = g_string_new ("print(\"start\")\n1 / 0\n");
  g_autofree char *typed = NULL;
  g_autofree char *lines = NULL;
  SpWindow *window;
  GtkTextView *view;
  GtkTextBuffer *buffer;
  double before;

  for (int i = 3; i <= 60; i++)
    g_string_append_printf (code, "x%d = %d%s", i, i, i < 60 ? "\n" : "");
  typed = g_strconcat (code->str, "  # z", NULL);
  window = open_typing (code->str, 1000, 500);
  view = editor_of (window);
  buffer = gtk_text_view_get_buffer (view);

  /* Once the view has measured its lines: GTK 4.8 drops a scroll to the
   * caret asked for before (Ctrl+End then leaves the view at the top). */
  g_assert_true (sp_test_wait_for (view_measured, view, 10000));
  g_assert_true (view_settles_on (view, 1));
  sp_ui_keys_press_ctrl (XK_End);
  wait_caret (window, "60:9");
  g_assert_true (view_settles_on (view, 60));
  g_assert_cmpfloat (scroll_of (view), >, 0);
  g_assert_false (line_in_view (view, 2));
  before = scroll_of (view);

  sp_ui_keys_press_ctrl (XK_Return);
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  g_assert_true (sp_test_wait_for (has_frame_button, sp_window_get_exec_panel (window), 10000));
  /* Frames drawn since the error came: a scroll asked for would have
   * happened. */
  g_assert_true (view_settles_on (view, 60));
  g_test_message ("scroll before the run %.0f, after %.0f", before, scroll_of (view));
  g_assert_cmpfloat_with_epsilon (scroll_of (view), before, 0.5);
  /* And typing goes on where it was, the view with it. */
  sp_ui_keys_type ("  # z");
  sp_ui_keys_wait_text (buffer, typed);
  g_assert_true (view_settles_on (view, 60));
  g_assert_cmpfloat_with_epsilon (scroll_of (view), before, 0.5);
  wait_caret (window, "60:14");
  lines = sp_ui_test_marked_lines (window);
  g_assert_cmpstr (lines, ==, "2");

  /* Ctrl+E: line 2 comes into view with the caret. */
  sp_ui_keys_press_ctrl (XK_e);
  wait_caret (window, "2:1");
  g_assert_true (sp_test_wait_for (line_2_in_view, view, 10000));
  close_window (window);
}

/* The mark stays on its line as lines come and go above it, and goes with
 * the line's text (a reload puts other code there) and at the next run. */
static void
test_mark_follows_text (void)
{
  SpWindow *window = open_typing ("x = 1\n1 / 0\n", 1000, 700);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextIter at;
  g_autofree char *moved = NULL;
  g_autofree char *kept = NULL;
  g_autofree char *gone = NULL;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (line_2_marked, window, 20000));
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  /* A line typed at the top: the mark goes down with its code. */
  gtk_text_buffer_get_start_iter (buffer, &at);
  gtk_text_buffer_place_cursor (buffer, &at);
  sp_ui_keys_type ("# top\n");
  sp_ui_keys_wait_text (buffer, "# top\nx = 1\n1 / 0\n");
  moved = sp_ui_test_marked_lines (window);
  g_assert_cmpstr (moved, ==, "3");
  /* Typing on the marked line keeps it marked. */
  sp_ui_keys_press (XK_Down);
  sp_ui_keys_press (XK_End);
  sp_ui_keys_type (" + 1");
  sp_ui_keys_wait_text (buffer, "# top\nx = 1\n1 / 0 + 1\n");
  kept = sp_ui_test_marked_lines (window);
  g_assert_cmpstr (kept, ==, "3");
  /* The text replaced as a reload does: no mark on what is there now,
   * and Ctrl+E goes nowhere (the "d" typed after it lands at the end). */
  gtk_text_buffer_set_text (buffer, "a = 1\nb = 2\nc = 3\n", -1);
  gone = sp_ui_test_marked_lines (window);
  g_assert_cmpstr (gone, ==, "");
  gtk_text_buffer_get_end_iter (buffer, &at);
  gtk_text_buffer_place_cursor (buffer, &at);
  sp_ui_keys_press_ctrl (XK_e);
  sp_ui_keys_type ("d");
  sp_ui_keys_wait_text (buffer, "a = 1\nb = 2\nc = 3\nd");
  close_window (window);
}

/* Ctrl+E is the error jump's and nothing else's, and the Shortcuts window
 * lists it. */
static void
test_shortcut_listed (void)
{
  g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                 "win.goto-error");
  g_auto (GStrv) actions = NULL;
  g_autoptr (GtkBuilder) builder = gtk_builder_new_from_resource (
    "/io/github/sandpad/Sandpad/gtk/help-overlay.ui");
  GObject *overlay = gtk_builder_get_object (builder, "help_overlay");
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();
  gboolean listed = FALSE;

  g_assert_cmpuint (g_strv_length (accels), ==, 1);
  g_assert_cmpstr (accels[0], ==, "<Control>e");
  actions = gtk_application_get_actions_for_accel (GTK_APPLICATION (app), accels[0]);
  g_assert_cmpuint (g_strv_length (actions), ==, 1);
  g_assert_nonnull (overlay);
  g_ptr_array_add (stack, overlay);
  while (stack->len > 0)
    {
      GtkWidget *w = g_ptr_array_steal_index (stack, stack->len - 1);
      if (GTK_IS_SHORTCUTS_SHORTCUT (w))
        {
          g_autofree char *accel = NULL;
          g_object_get (w, "accelerator", &accel, NULL);
          listed |= g_strcmp0 (accel, "<ctrl>e") == 0;
        }
      for (GtkWidget *c = gtk_widget_get_first_child (w); c != NULL;
           c = gtk_widget_get_next_sibling (c))
        g_ptr_array_add (stack, c);
    }
  g_assert_true (listed);
  gtk_window_destroy (GTK_WINDOW (overlay));
}

int
main (int argc, char **argv)
{
  int ret;

  if (g_getenv ("DISPLAY") == NULL)
    {
      g_print ("1..0 # SKIP no X display\n");
      return 0;
    }
  gdk_set_allowed_backends ("x11");
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  if (!sp_ui_keys_available ())
    {
      g_print ("1..0 # SKIP the X server has no XTEST to type with\n");
      return 0;
    }
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  g_test_add_func ("/Sandpad/ErrorCaret/typing-stays", test_typing_stays);
  g_test_add_func ("/Sandpad/ErrorCaret/view-stays", test_view_stays);
  g_test_add_func ("/Sandpad/ErrorCaret/mark-follows-text", test_mark_follows_text);
  g_test_add_func ("/Sandpad/ErrorCaret/shortcut-listed", test_shortcut_listed);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
