/* test-keys.c: the run shortcuts, pressed as real keys (the X server's
 * XTEST extension under Xvfb), never edit the code. */
#include "config.h"

#include <X11/Xlib.h>
#include <X11/XKBlib.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
#include <gdk/x11/gdkx.h>
#include <gtksourceview/gtksource.h>
#include <string.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-image-window.h"
#include "sp-indenter.h"
#include "sp-output-item.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static gboolean
printed_one (gpointer data)
{
  GListModel *model = sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (data)));

  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      if (sp_output_item_get_kind (item) == SP_OUTPUT_STDOUT
          && g_str_equal (sp_output_item_get_text (item), "1\n"))
        return TRUE;
    }
  return FALSE;
}

static gboolean
has_focus (gpointer data)
{
  return gtk_widget_has_focus (data);
}

/* Lets GTK see what the X server did, however long that takes. */
static void
settle (void)
{
  gint64 until = g_get_monotonic_time () + 300 * 1000;

  while (g_get_monotonic_time () < until)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
}

/* Presses keysym alone. */
static void
press (KeySym keysym)
{
  Display *dpy = gdk_x11_display_get_xdisplay (gdk_display_get_default ());
  KeyCode key = XKeysymToKeycode (dpy, keysym);

  XTestFakeKeyEvent (dpy, key, True, CurrentTime);
  XTestFakeKeyEvent (dpy, key, False, CurrentTime);
  XFlush (dpy);
  settle ();
}

/* Presses keysym with Control (and Shift), as a person would. */
static void
press_ctrl (KeySym keysym, gboolean shift)
{
  Display *dpy = gdk_x11_display_get_xdisplay (gdk_display_get_default ());
  KeyCode ctrl = XKeysymToKeycode (dpy, XK_Control_L);
  KeyCode shift_key = XKeysymToKeycode (dpy, XK_Shift_L);
  KeyCode key = XKeysymToKeycode (dpy, keysym);

  g_assert_cmpint (key, !=, 0);
  XTestFakeKeyEvent (dpy, ctrl, True, CurrentTime);
  if (shift)
    XTestFakeKeyEvent (dpy, shift_key, True, CurrentTime);
  XTestFakeKeyEvent (dpy, key, True, CurrentTime);
  XTestFakeKeyEvent (dpy, key, False, CurrentTime);
  if (shift)
    XTestFakeKeyEvent (dpy, shift_key, False, CurrentTime);
  XTestFakeKeyEvent (dpy, ctrl, False, CurrentTime);
  XFlush (dpy);
  settle ();
}

/* Presses keysym with Shift. */
static void
press_shift (KeySym keysym)
{
  Display *dpy = gdk_x11_display_get_xdisplay (gdk_display_get_default ());
  KeyCode shift_key = XKeysymToKeycode (dpy, XK_Shift_L);
  KeyCode key = XKeysymToKeycode (dpy, keysym);

  XTestFakeKeyEvent (dpy, shift_key, True, CurrentTime);
  XTestFakeKeyEvent (dpy, key, True, CurrentTime);
  XTestFakeKeyEvent (dpy, key, False, CurrentTime);
  XTestFakeKeyEvent (dpy, shift_key, False, CurrentTime);
  XFlush (dpy);
  settle ();
}

static char *
text_of (SpWindow *window)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

/* A window with code in an editor that has the keyboard. */
static SpWindow *
open_focused (const char *code)
{
  SpWindow *window = sp_window_new (app);
  GtkWidget *view;
  Display *dpy;
  GdkSurface *surface;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), code, -1);
  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  /* No window manager under Xvfb: give the window the X focus here. */
  dpy = gdk_x11_display_get_xdisplay (gdk_display_get_default ());
  surface = gtk_native_get_surface (GTK_NATIVE (window));
  XSetInputFocus (dpy, gdk_x11_surface_get_xid (surface), RevertToParent, CurrentTime);
  XFlush (dpy);
  view = gtk_window_get_focus (GTK_WINDOW (window));
  g_assert_true (GTK_SOURCE_IS_VIEW (view));
  gtk_widget_grab_focus (view);
  g_assert_true (sp_test_wait_for (has_focus, view, 5000));
  settle ();
  return window;
}

static void
test_run_keys_never_type (void)
{
  const char *code = "import time\ntime.sleep(60)\n";
  SpWindow *window = open_focused (code);
  g_autofree char *after_start = NULL;
  g_autofree char *while_running = NULL;
  g_autofree char *keypad = NULL;

  /* Ctrl+Return runs, and types nothing. */
  press_ctrl (XK_Return, FALSE);
  g_assert_true (sp_test_wait_for (is_running, window, 10000));
  after_start = text_of (window);
  g_assert_cmpstr (after_start, ==, code);

  /* While the run goes, the run keys do nothing to the text (nor to the
   * run). */
  press_ctrl (XK_Return, FALSE);
  press_ctrl (XK_Return, TRUE);
  press_ctrl (XK_KP_Enter, FALSE);
  while_running = text_of (window);
  g_assert_cmpstr (while_running, ==, code);
  g_assert_true (sp_window_get_running (window));

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL));
  g_assert_true (sp_test_wait_for (is_idle, window, 15000));

  /* The keypad's Enter with Control runs too, and types nothing. */
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), "print(1)\n", -1);
  press_ctrl (XK_KP_Enter, FALSE);
  g_assert_true (sp_test_wait_for (printed_one, window, 15000));
  g_assert_true (sp_test_wait_for (is_idle, window, 15000));
  keypad = text_of (window);
  g_assert_cmpstr (keypad, ==, "print(1)\n");
  close_window (window);
}

static gboolean
has_focus_within (gpointer data)
{
  return (gtk_widget_get_state_flags (data) & GTK_STATE_FLAG_FOCUS_WITHIN) != 0;
}

static gboolean
has_error_frames (gpointer data)
{
  return find_button (data, "Line 3, in <module>") != NULL;
}

static gboolean
is_inside (GtkWidget *widget, GtkWidget *ancestor)
{
  return widget != NULL && (widget == ancestor || gtk_widget_is_ancestor (widget, ancestor));
}

/* Issue 23, focus and keyboard: an input() run answered from the input
 * line gives the keyboard back to the editor when it ends (the line goes
 * away with the run; keys went nowhere until a click). In the panel, Tab
 * walks every control in order, the policy card's expander, the
 * traceback's links and the frames' buttons included, each with its focus
 * ring shown, and comes back round; Escape returns to the editor. */
static void
test_panel_keyboard (void)
{
  const char *code = "x = input('n? ')\nprint(x)\n1 / 0\n";
  SpWindow *window = open_focused (code);
  GtkWidget *view = gtk_window_get_focus (GTK_WINDOW (window));
  GtkWidget *panel = sp_window_get_exec_panel (window);
  GtkWidget *entry = GTK_WIDGET (sp_exec_panel_get_input_entry (SP_EXEC_PANEL (panel)));
  GtkWidget *clear = NULL;
  GtkWidget *expander = NULL;
  g_autoptr (GPtrArray) seen = g_ptr_array_new ();
  gboolean link_reached = FALSE, frame_reached = FALSE, came_round = FALSE;

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 10000));
  /* The user clicks the input line and answers there. */
  gtk_widget_grab_focus (entry);
  g_assert_true (sp_test_wait_for (has_focus_within, entry, 5000));
  press (XK_b);
  press (XK_Return);
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  g_assert_true (sp_test_wait_for (has_error_frames, panel, 10000));
  settle ();
  g_assert_true (gtk_window_get_focus (GTK_WINDOW (window)) == view);
  g_assert_true (gtk_widget_has_focus (view));

  /* Tab from Clear, the panel's first control (its action names it). */
  {
    GPtrArray *stack = g_ptr_array_new ();
    g_ptr_array_add (stack, panel);
    while (stack->len > 0 && (clear == NULL || expander == NULL))
      {
        GtkWidget *w = g_ptr_array_steal_index (stack, stack->len - 1);
        if (GTK_IS_BUTTON (w)
            && g_strcmp0 (gtk_actionable_get_action_name (GTK_ACTIONABLE (w)), "panel.clear") == 0)
          clear = w;
        if (GTK_IS_EXPANDER (w) && gtk_widget_get_visible (w))
          expander = w;
        for (GtkWidget *c = gtk_widget_get_last_child (w); c; c = gtk_widget_get_prev_sibling (c))
          g_ptr_array_add (stack, c);
      }
    g_ptr_array_unref (stack);
  }
  g_assert_nonnull (clear);
  gtk_widget_grab_focus (clear);
  g_assert_true (sp_test_wait_for (has_focus, clear, 5000));
  for (int i = 0; i < 40 && !came_round; i++)
    {
      GtkWidget *focus;
      press (XK_Tab);
      focus = gtk_window_get_focus (GTK_WINDOW (window));
      g_test_message ("Tab %d: %s %s", i, focus ? G_OBJECT_TYPE_NAME (focus) : "(none)",
                      focus && GTK_IS_BUTTON (focus) ? gtk_button_get_label (GTK_BUTTON (focus))
                                                     : "");
      /* Every stop is in the panel, shown as focused. */
      g_assert_true (is_inside (focus, panel));
      g_assert_true (gtk_window_get_focus_visible (GTK_WINDOW (window)));
      g_assert_true (gtk_widget_get_mapped (focus));
      if (is_inside (focus, expander))
        g_ptr_array_add (seen, expander);
      if (GTK_IS_LABEL (focus) && gtk_widget_has_css_class (focus, "stderr")
          && strstr (gtk_label_get_label (GTK_LABEL (focus)), "<a href=") != NULL)
        link_reached = TRUE;
      if (GTK_IS_BUTTON (focus)
          && g_strcmp0 (gtk_button_get_label (GTK_BUTTON (focus)), "Line 3, in <module>") == 0)
        frame_reached = TRUE;
      if (focus == clear)
        came_round = TRUE;
    }
  g_assert_cmpuint (seen->len, >, 0);
  g_assert_true (link_reached);
  g_assert_true (frame_reached);
  g_assert_true (came_round);

  /* Escape: back to the editor. */
  press (XK_Tab);
  press (XK_Escape);
  g_assert_true (sp_test_wait_for (has_focus, view, 5000));

  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), FALSE);
  close_window (window);
}

static gboolean
has_full_size_button (gpointer data)
{
  GtkWidget *button = find_button (data, "Full Size");
  return button != NULL && gtk_widget_get_visible (button);
}

static GtkWidget *
image_window (void)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GObject) toplevel = g_list_model_get_item (toplevels, i);
      if (SP_IS_IMAGE_WINDOW (toplevel))
        return GTK_WIDGET (toplevel);
    }
  return NULL;
}

static gboolean
image_window_shown (gpointer data)
{
  GtkWidget *window = image_window ();
  return window != NULL && gtk_widget_get_mapped (window);
}

static gboolean
image_window_gone (gpointer data)
{
  return image_window () == NULL;
}

/* Opens the plot's Full Size window and gives it the keyboard. */
static void
open_full_size (SpWindow *window)
{
  Display *dpy = gdk_x11_display_get_xdisplay (gdk_display_get_default ());

  g_signal_emit_by_name (find_button (sp_window_get_exec_panel (window), "Full Size"), "clicked");
  g_assert_true (sp_test_wait_for (image_window_shown, NULL, 10000));
  gtk_test_widget_wait_for_draw (image_window ());
  XSetInputFocus (dpy,
                  gdk_x11_surface_get_xid (gtk_native_get_surface (GTK_NATIVE (image_window ()))),
                  RevertToParent, CurrentTime);
  XFlush (dpy);
  settle ();
}

/* The Full Size window closes like a dialog: Escape, Ctrl+W. */
static void
test_full_size_closes (void)
{
  SpWindow *window = open_focused ("import matplotlib.pyplot as plt\nplt.plot([3, 1, 2])\n"
                                   "plt.show()\n");

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (has_full_size_button, sp_window_get_exec_panel (window), 30000));
  open_full_size (window);
  press (XK_Escape);
  g_assert_true (sp_test_wait_for (image_window_gone, NULL, 5000));
  open_full_size (window);
  press_ctrl (XK_w, FALSE);
  g_assert_true (sp_test_wait_for (image_window_gone, NULL, 5000));
  /* Ctrl+W went to the image window, not to the main window. */
  g_assert_true (gtk_widget_get_visible (GTK_WIDGET (window)));
  close_window (window);
}

/* Types text as real keys, with Shift where the keymap needs it. */
static void
type_text (const char *text)
{
  Display *dpy = gdk_x11_display_get_xdisplay (gdk_display_get_default ());
  KeyCode shift_key = XKeysymToKeycode (dpy, XK_Shift_L);

  for (const char *p = text; *p != '\0'; p++)
    {
      KeySym keysym = *p == '\n' ? XK_Return : *p == ' ' ? XK_space : (KeySym) (guchar) *p;
      KeyCode key = XKeysymToKeycode (dpy, keysym);
      gboolean shift;

      g_assert_cmpint (key, !=, 0);
      shift = XkbKeycodeToKeysym (dpy, key, 0, 0) != keysym;
      if (shift)
        XTestFakeKeyEvent (dpy, shift_key, True, CurrentTime);
      XTestFakeKeyEvent (dpy, key, True, CurrentTime);
      XTestFakeKeyEvent (dpy, key, False, CurrentTime);
      if (shift)
        XTestFakeKeyEvent (dpy, shift_key, False, CurrentTime);
      XFlush (dpy);
      /* Each key its own turn, as typing is: the indenter acts on Enter. */
      for (int i = 0; i < 20; i++)
        g_main_context_iteration (NULL, FALSE);
    }
  settle ();
}

static void
set_source_language (SpWindow *window, const char *id)
{
  GtkSourceLanguageManager *manager = gtk_source_language_manager_get_default ();

  gtk_source_buffer_set_language (sp_window_get_buffer (window),
                                  gtk_source_language_manager_get_language (manager, id));
}

/* Smart indent, typed: a level in after Python's ':', back out after
 * break; in JavaScript a level in after '{' and back on '}'. Typed, the
 * ')' of range(3) and the '}' reach the indenter as each GtkSourceView
 * asks (indenter-closer-after-input-method has both orders). */
static void
test_smart_indent (void)
{
  SpWindow *window = open_focused ("");
  g_autofree char *python = NULL, *js = NULL;

  set_source_language (window, "python3");
  type_text ("for i in range(3):\nif i:\nbreak\nx");
  python = text_of (window);
  g_assert_cmpstr (python, ==, "for i in range(3):\n    if i:\n        break\n    x");

  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), "", -1);
  set_source_language (window, "js");
  type_text ("if (x) {\ny();\n}");
  js = text_of (window);
  g_assert_cmpstr (js, ==, "if (x) {\n    y();\n}");
  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (window)), FALSE);
  close_window (window);
}

/* The indenter asked about a closing bracket the way GtkSourceView 5.11.1
 * and later ask (the input method has inserted the bracket, and the iter
 * passed was taken before: stale, and GTK warns, fatally here, when one is
 * read), and the way 5.6 asks (before the bracket, with a valid iter):
 * both are a trigger when the bracket starts its line, and the line goes
 * back to its opener's indent; a bracket after other text is not. */
static void
test_indenter_closer_after_input_method (void)
{
  GtkSourceLanguageManager *manager = gtk_source_language_manager_get_default ();
  GtkSourceBuffer *buffer = gtk_source_buffer_new_with_language (
    gtk_source_language_manager_get_language (manager, "js"));
  GtkWidget *view = g_object_ref_sink (gtk_source_view_new_with_buffer (buffer));
  GtkTextBuffer *text = GTK_TEXT_BUFFER (buffer);
  g_autoptr (GtkSourceIndenter) indenter = sp_indenter_new ();
  GtkSourceView *source = GTK_SOURCE_VIEW (view);
  GtkTextIter before, cursor, start, end;
  g_autofree char *result = NULL;

  gtk_source_view_set_indent_width (source, 4);
  gtk_source_view_set_insert_spaces_instead_of_tabs (source, TRUE);

  /* 5.6: asked before the bracket is typed. */
  gtk_text_buffer_set_text (text, "if (x) {\n    y();\n    ", -1);
  gtk_text_buffer_get_end_iter (text, &before);
  gtk_text_buffer_place_cursor (text, &before);
  g_assert_true (gtk_source_indenter_is_trigger (indenter, source, &before, 0, GDK_KEY_braceright));

  /* 5.11.1 and later: the bracket is in, the iter from before it. */
  gtk_text_buffer_get_end_iter (text, &before);
  gtk_text_buffer_insert_at_cursor (text, "}", -1);
  g_assert_true (gtk_source_indenter_is_trigger (indenter, source, &before, 0, GDK_KEY_braceright));
  gtk_text_buffer_get_iter_at_mark (text, &cursor, gtk_text_buffer_get_insert (text));
  gtk_source_indenter_indent (indenter, source, &cursor);
  gtk_text_buffer_get_bounds (text, &start, &end);
  result = gtk_text_buffer_get_text (text, &start, &end, FALSE);
  g_assert_cmpstr (result, ==, "if (x) {\n    y();\n}");

  /* After other text a closer is only a character, in either order. */
  gtk_text_buffer_set_text (text, "f(1", -1);
  gtk_text_buffer_get_end_iter (text, &before);
  gtk_text_buffer_place_cursor (text, &before);
  g_assert_false (
    gtk_source_indenter_is_trigger (indenter, source, &before, 0, GDK_KEY_parenright));
  gtk_text_buffer_insert_at_cursor (text, ")", -1);
  g_assert_false (
    gtk_source_indenter_is_trigger (indenter, source, &before, 0, GDK_KEY_parenright));

  g_object_unref (buffer);
  g_assert_finalize_object (view);
}

/* The selection as "first line-last line" (0-based, the line of its end
 * not counted when the end is at a line's start), or "none". */
static char *
selected_lines (GtkTextBuffer *buffer)
{
  GtkTextIter start, end;

  if (!gtk_text_buffer_get_selection_bounds (buffer, &start, &end))
    return g_strdup ("none");
  int last = gtk_text_iter_get_line (&end);
  if (gtk_text_iter_starts_line (&end) && last > gtk_text_iter_get_line (&start))
    last--;
  return g_strdup_printf ("%d-%d", gtk_text_iter_get_line (&start), last);
}

/* Tab and Shift+Tab with lines selected indent and dedent them, and the
 * same lines stay selected: Tab, Shift+Tab, Tab again works on what a
 * person selected, whether the selection ends at the end of its last line
 * or at the start of the next (Shift+Down, a drag down the margin). */
static void
test_tab_indents_selection (void)
{
  SpWindow *window = open_focused ("a = 1\nb = 2\nc = 3\n");
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextIter start, end;

  for (int to_next_line = 0; to_next_line <= 1; to_next_line++)
    {
      g_autofree char *indented = NULL, *back = NULL, *again = NULL;
      g_autofree char *sel_indented = NULL, *sel_back = NULL, *sel_again = NULL;

      g_test_message ("the selection ends at the %s", to_next_line ? "next line" : "line's end");
      gtk_text_buffer_get_start_iter (buffer, &start);
      gtk_text_buffer_get_iter_at_line (buffer, &end, to_next_line ? 2 : 1);
      if (!to_next_line)
        gtk_text_iter_forward_to_line_end (&end);
      gtk_text_buffer_select_range (buffer, &start, &end);
      settle ();
      press (XK_Tab);
      indented = text_of (window);
      sel_indented = selected_lines (buffer);
      press_shift (XK_Tab);
      back = text_of (window);
      sel_back = selected_lines (buffer);
      press (XK_Tab);
      again = text_of (window);
      sel_again = selected_lines (buffer);
      g_test_message ("selected after Tab %s, Shift+Tab %s, Tab %s", sel_indented, sel_back,
                      sel_again);
      g_assert_cmpstr (indented, ==, "    a = 1\n    b = 2\nc = 3\n");
      g_assert_cmpstr (sel_indented, ==, "0-1");
      g_assert_cmpstr (back, ==, "a = 1\nb = 2\nc = 3\n");
      g_assert_cmpstr (sel_back, ==, "0-1");
      g_assert_cmpstr (again, ==, "    a = 1\n    b = 2\nc = 3\n");
      g_assert_cmpstr (sel_again, ==, "0-1");
      gtk_text_buffer_set_text (buffer, "a = 1\nb = 2\nc = 3\n", -1);
      /* The X server's word on the old selection, before the next. */
      settle ();
    }
  gtk_text_buffer_set_modified (buffer, FALSE);
  close_window (window);
}

int
main (int argc, char **argv)
{
  int ret;
  int event_base, error_base, major, minor;

  if (g_getenv ("DISPLAY") == NULL)
    {
      g_print ("1..0 # SKIP no X display\n");
      return 0;
    }
  gdk_set_allowed_backends ("x11");
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  g_assert_true (XTestQueryExtension (gdk_x11_display_get_xdisplay (gdk_display_get_default ()),
                                      &event_base, &error_base, &major, &minor));
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  g_test_add_func ("/Sandpad/Keys/run-keys-never-type", test_run_keys_never_type);
  g_test_add_func ("/Sandpad/Keys/full-size-closes", test_full_size_closes);
  g_test_add_func ("/Sandpad/Keys/smart-indent", test_smart_indent);
  g_test_add_func ("/Sandpad/Keys/tab-indents-selection", test_tab_indents_selection);
  g_test_add_func ("/Sandpad/Keys/indenter-closer-after-input-method",
                   test_indenter_closer_after_input_method);
  g_test_add_func ("/Sandpad/Keys/panel-keyboard", test_panel_keyboard);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
