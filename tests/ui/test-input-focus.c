/* test-input-focus.c: where the keyboard goes when a program waits for
 * input (issue 38, item 2), in a real window under Xvfb against the real
 * runner, typed as real keys through XTEST. A person who pressed Run and
 * typed nothing since types the answer straight away (Thonny's shell,
 * Jupyter's box); a person who typed in the editor since Run keeps the
 * keyboard there, sees that input is wanted and gets there with Ctrl+I.
 * The input line's placeholder fits its field in every state, down to the
 * narrowest panel. */
#include "config.h"

#include <gtksourceview/gtksource.h>
#include <string.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-output-item.h"
#include "sp-split.h"
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

static GtkWidget *
editor_of (SpWindow *window)
{
  return sp_ui_test_find_of_type (GTK_WIDGET (window), GTK_SOURCE_TYPE_VIEW);
}

static GtkWidget *
entry_of (SpWindow *window)
{
  return GTK_WIDGET (
    sp_exec_panel_get_input_entry (SP_EXEC_PANEL (sp_window_get_exec_panel (window))));
}

static const char *
status_text (SpWindow *window)
{
  GtkWidget *label = find_label (sp_window_get_exec_panel (window), "sp-status");

  g_assert_nonnull (label);
  return gtk_label_get_text (GTK_LABEL (label));
}

static gboolean
says_waiting (gpointer data)
{
  return g_str_has_prefix (status_text (data), "Waiting for input");
}

/* What a test waits for in the transcript: a stdout line with text. */
typedef struct
{
  SpWindow *window;
  const char *text;
} OutputWait;

static gboolean
printed (gpointer data)
{
  OutputWait *wait = data;
  GListModel *model = sp_exec_panel_get_output (
    SP_EXEC_PANEL (sp_window_get_exec_panel (wait->window)));

  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      if (sp_output_item_get_kind (item) == SP_OUTPUT_STDOUT
          && strstr (sp_output_item_get_text (item), wait->text) != NULL)
        return TRUE;
    }
  return FALSE;
}

static gboolean
sent_input (SpWindow *window)
{
  GListModel *model = sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));

  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      if (sp_output_item_get_kind (item) == SP_OUTPUT_INPUT)
        return TRUE;
    }
  return FALSE;
}

/* A window with code, the editor having the keyboard of a window that has
 * the X focus, as after a click into the code. */
static SpWindow *
open_typing (const char *code, int width, int height)
{
  SpWindow *window = sp_window_new (app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkWidget *view = editor_of (window);

  gtk_window_set_default_size (GTK_WINDOW (window), width, height);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 15000));
  gtk_text_buffer_set_text (buffer, code, -1);
  sp_ui_keys_focus_window (GTK_WINDOW (window));
  gtk_widget_grab_focus (view);
  g_assert_true (sp_test_wait_for (sp_ui_keys_has_focus_within, view, 5000));
  return window;
}

static void
stop_and_close (SpWindow *window)
{
  if (sp_window_get_running (window))
    g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL));
  g_assert_true (sp_test_wait_for (is_idle, window, 15000));
  close_window (window);
}

/* Run, type nothing: the program's wait gives the input line the
 * keyboard, the answer typed goes to the program, and the code is as it
 * was. Before, the input line only lit up and "Alice" went into the code
 * (print("Hello", name)Alice), the run waiting until a click. */
static gboolean
entry_says_alice (gpointer data)
{
  return g_str_equal (gtk_editable_get_text (GTK_EDITABLE (data)), "Alice");
}

/* The window as GTK draws it, to SANDPAD_SCREENSHOT_DIR/name when set. */
static void
save_screenshot (SpWindow *window, const char *name)
{
  const char *dir = g_getenv ("SANDPAD_SCREENSHOT_DIR");
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *path = NULL;

  if (dir == NULL)
    return;
  texture = sp_ui_test_render (GTK_WINDOW (window));
  path = g_build_filename (dir, name, NULL);
  g_assert_true (gdk_texture_save_to_png (texture, path));
  g_test_message ("screenshot: %s", path);
}

static void
test_keys_go_to_input (void)
{
  const char *code = "name = input(\"Name: \")\nprint(\"Hello\", name)\n";
  SpWindow *window = open_typing (code, 1000, 700);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkWidget *entry = entry_of (window);
  OutputWait hello = { window, "Hello Alice" };
  g_autofree char *after = NULL;

  /* The caret at the end of the print line, where typing would land. */
  {
    GtkTextIter end;
    gtk_text_buffer_get_iter_at_line (buffer, &end, 1);
    gtk_text_iter_forward_to_line_end (&end);
    gtk_text_buffer_place_cursor (buffer, &end);
  }
  sp_ui_keys_press_ctrl (XK_Return);
  g_assert_true (sp_test_wait_for (says_waiting, window, 20000));
  g_test_message ("waiting; the keyboard in the input line: %d",
                  sp_ui_keys_has_focus_within (entry));
  g_assert_true (sp_test_wait_for (sp_ui_keys_has_focus_within, entry, 5000));
  g_assert_true (gtk_widget_has_css_class (entry, "input-wanted"));

  /* The answer typed where the program asks, as the README shows it. */
  sp_ui_keys_type ("Alice");
  g_assert_true (sp_test_wait_for (entry_says_alice, entry, 5000));
  save_screenshot (window, "sandpad-input.png");
  sp_ui_keys_type ("\n");
  g_assert_true (sp_test_wait_for (printed, &hello, 20000));
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  after = sp_ui_keys_buffer_text (buffer);
  g_assert_cmpstr (after, ==, code);
  /* The input line went with the run: the keyboard is back in the code. */
  g_assert_true (sp_test_wait_for (sp_ui_keys_has_focus_within, editor_of (window), 5000));
  close_window (window);
}

static gboolean
caret_at_start (gpointer data)
{
  GtkTextIter at;

  gtk_text_buffer_get_iter_at_mark (data, &at, gtk_text_buffer_get_insert (data));
  return gtk_text_iter_is_start (&at);
}

/* Runs rest after a sleep (the program sleeps before it reaches input())
 * and at once uses the editor as a person going on with the code does:
 * types typed into it or, with typed NULL, clicks at the start of its
 * first line. That must happen before the program waits, which the test
 * sees (the status has not said so yet when the keys or the caret are
 * there); on a machine too loaded for that the program sleeps longer and
 * the test runs again. Returns the code run. */
static char *
run_and_use_editor (SpWindow *window, const char *rest, const char *typed)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkTextView *view = GTK_TEXT_VIEW (editor_of (window));

  for (int seconds = 1; seconds <= 16; seconds *= 4)
    {
      g_autofree char *code = g_strdup_printf ("import time\ntime.sleep(%d)\n%s", seconds, rest);
      g_autofree char *expected = g_strconcat (code, typed, NULL);
      GtkTextIter end;
      gboolean in_time;

      gtk_text_buffer_set_text (buffer, code, -1);
      gtk_text_buffer_get_end_iter (buffer, &end);
      gtk_text_buffer_place_cursor (buffer, &end);
      sp_ui_keys_press_ctrl (XK_Return);
      if (typed != NULL)
        {
          sp_ui_keys_type (typed);
          sp_ui_keys_wait_text (buffer, expected);
        }
      else
        {
          GdkRectangle first;
          GtkTextIter start;
          int x, y;

          gtk_text_buffer_get_start_iter (buffer, &start);
          gtk_text_view_get_iter_location (view, &start, &first);
          gtk_text_view_buffer_to_window_coords (view, GTK_TEXT_WINDOW_WIDGET, first.x, first.y, &x,
                                                 &y);
          sp_ui_keys_click_at (GTK_WIDGET (view), x + 1, y + first.height / 2.0);
          g_assert_true (sp_test_wait_for (caret_at_start, buffer, 10000));
        }
      in_time = sp_window_get_running (window) && !says_waiting (window);
      g_test_message ("%d s: the editor was used %s the program waited", seconds,
                      in_time ? "before" : "after");
      if (in_time)
        return g_steal_pointer (&code);
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL));
      g_assert_true (sp_test_wait_for (is_idle, window, 15000));
    }
  g_assert_not_reached ();
}

/* Typed in the editor since Run: the wait never takes the keyboard (keys,
 * Enter included, stay in the code and nothing reaches the program:
 * issue 29), the status line and the input line say input is wanted and
 * name Ctrl+I, and Ctrl+I takes the person there to answer. */
static void
test_typing_keeps_editor (void)
{
  const char *rest = "name = input(\"Name: \")\nprint(\"Hello\", name)\n";
  SpWindow *window = open_typing ("", 1000, 700);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  GtkWidget *view = editor_of (window);
  GtkWidget *entry = entry_of (window);
  OutputWait hello = { window, "Hello Bob" };
  g_autofree char *code = run_and_use_editor (window, rest, "# x");
  g_autofree char *typed_more = g_strconcat (code, "# xy\nz", NULL);
  g_autofree char *after = NULL;
  const char *placeholder;

  g_assert_true (sp_test_wait_for (says_waiting, window, 30000));
  g_test_message ("status: %s", status_text (window));
  /* The keyboard stayed in the code. */
  g_assert_true (sp_ui_keys_has_focus_within (view));
  g_assert_false (sp_ui_keys_has_focus_within (entry));
  /* The cue: the input line outlined, its placeholder and the status
   * line naming the shortcut. */
  g_assert_true (gtk_widget_get_mapped (entry));
  g_assert_true (gtk_widget_has_css_class (entry, "input-wanted"));
  placeholder = gtk_entry_get_placeholder_text (GTK_ENTRY (entry));
  g_test_message ("placeholder: %s", placeholder);
  g_assert_nonnull (strstr (placeholder, "Ctrl+I"));
  g_assert_nonnull (strstr (status_text (window), "Ctrl+I"));

  /* Typing goes on in the code, Enter included; the program got nothing. */
  sp_ui_keys_type ("y\nz");
  sp_ui_keys_wait_text (buffer, typed_more);
  g_assert_true (sp_ui_keys_has_focus_within (view));
  g_assert_true (sp_window_get_running (window));
  g_assert_false (sent_input (window));

  /* Ctrl+I: to the input line, which now says to type there. */
  sp_ui_keys_press_ctrl (XK_i);
  g_assert_true (sp_test_wait_for (sp_ui_keys_has_focus_within, entry, 5000));
  g_assert_null (strstr (gtk_entry_get_placeholder_text (GTK_ENTRY (entry)), "Ctrl+I"));
  g_assert_null (strstr (status_text (window), "Ctrl+I"));
  sp_ui_keys_type ("Bob\n");
  g_assert_true (sp_test_wait_for (printed, &hello, 20000));
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  after = sp_ui_keys_buffer_text (buffer);
  g_assert_cmpstr (after, ==, typed_more);
  close_window (window);
}

/* A click in the code since Run counts as typing does: the person is at
 * the code, and the wait leaves the keyboard there, with the cue. The
 * click still places the caret. */
static void
test_click_keeps_editor (void)
{
  const char *rest = "name = input(\"Name: \")\nprint(\"Hello\", name)\n";
  SpWindow *window = open_typing ("", 1000, 700);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  g_autofree char *code = run_and_use_editor (window, rest, NULL);
  g_autofree char *after = NULL;

  g_assert_true (sp_test_wait_for (says_waiting, window, 30000));
  g_assert_true (sp_ui_keys_has_focus_within (editor_of (window)));
  g_assert_nonnull (strstr (status_text (window), "Ctrl+I"));
  g_assert_true (caret_at_start (buffer));
  after = sp_ui_keys_buffer_text (buffer);
  g_assert_cmpstr (after, ==, code);
  stop_and_close (window);
}

/* The label GtkText shows as the placeholder (its child label). */
static GtkWidget *
placeholder_label (GtkWidget *entry)
{
  for (GtkWidget *text = gtk_widget_get_first_child (entry); text != NULL;
       text = gtk_widget_get_next_sibling (text))
    if (GTK_IS_TEXT (text))
      for (GtkWidget *child = gtk_widget_get_first_child (text); child != NULL;
           child = gtk_widget_get_next_sibling (child))
        if (GTK_IS_LABEL (child))
          return child;
  return NULL;
}

/* The placeholder's whole text fits the width its field gives it: its
 * natural width (the text laid out without a limit) within the label's
 * allocation, and nothing cut with "…". */
static void
assert_placeholder_fits (SpWindow *window, const char *state)
{
  GtkWidget *entry = entry_of (window);
  GtkWidget *label;
  g_autoptr (PangoLayout) layout = NULL;
  int natural;

  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  label = placeholder_label (entry);
  g_assert_nonnull (label);
  g_assert_true (gtk_widget_get_mapped (label));
  g_assert_cmpstr (gtk_label_get_text (GTK_LABEL (label)), ==,
                   gtk_entry_get_placeholder_text (GTK_ENTRY (entry)));
  layout = gtk_widget_create_pango_layout (label, gtk_label_get_text (GTK_LABEL (label)));
  pango_layout_get_pixel_size (layout, &natural, NULL);
  g_test_message ("%s, panel %d px: \"%s\" needs %d px, has %d", state,
                  gtk_widget_get_width (sp_window_get_exec_panel (window)),
                  gtk_label_get_text (GTK_LABEL (label)), natural, gtk_widget_get_width (label));
  g_assert_cmpint (natural, <=, gtk_widget_get_width (label));
  g_assert_false (pango_layout_is_ellipsized (gtk_label_get_layout (GTK_LABEL (label))));
}

/* Each placeholder in its state (running, waiting with the keyboard
 * there, waiting with it in the editor), at the usual size and with the
 * panel at its narrowest: side by side (from 720 px) with the editor
 * given all it may take, the panel keeps 320 px. */
static void
test_placeholder_fits (void)
{
  const struct
  {
    int width, height;
    double fraction;
  } sizes[] = { { 1000, 700, 0.5 }, { 800, 600, SP_SPLIT_MAX_FRACTION } };

  for (guint i = 0; i < G_N_ELEMENTS (sizes); i++)
    {
      SpWindow *window = open_typing ("", sizes[i].width, sizes[i].height);
      GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
      GtkWidget *panel = sp_window_get_exec_panel (window);
      double saved = sp_window_get_panel_fraction (window);

      sp_window_set_panel_fraction (window, sizes[i].fraction);
      gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
      g_test_message ("window %d px, panel %d px", gtk_widget_get_width (GTK_WIDGET (window)),
                      gtk_widget_get_width (panel));
      if (sizes[i].fraction == SP_SPLIT_MAX_FRACTION)
        g_assert_cmpint (gtk_widget_get_width (panel), <=, 330);
      /* Running, not waiting: a program busy for longer than the test. */
      gtk_text_buffer_set_text (buffer, "import time\ntime.sleep(600)\n", -1);
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
      g_assert_true (sp_test_wait_for (is_running, window, 10000));
      assert_placeholder_fits (window, "running");
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.stop", NULL));
      g_assert_true (sp_test_wait_for (is_idle, window, 15000));
      /* Waiting. */
      gtk_text_buffer_set_text (buffer, "import sys\nsys.stdin.readline()\n", -1);
      g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
      g_assert_true (sp_test_wait_for (says_waiting, window, 20000));
      /* Given the keyboard, as a click does (keys-go-to-input: the wait
       * gives it by itself). */
      gtk_widget_grab_focus (entry_of (window));
      g_assert_true (sp_test_wait_for (sp_ui_keys_has_focus_within, entry_of (window), 5000));
      assert_placeholder_fits (window, "waiting, the keyboard there");
      /* Escape: back to the code; the placeholder names the way back. */
      sp_ui_keys_press (XK_Escape);
      g_assert_true (sp_test_wait_for (sp_ui_keys_has_focus_within, editor_of (window), 5000));
      assert_placeholder_fits (window, "waiting, the keyboard in the editor");
      sp_window_set_panel_fraction (window, saved);
      stop_and_close (window);
    }
}

/* Ctrl+I is the input line's and nothing else's, and the Shortcuts
 * window lists it. */
static void
test_shortcut_listed (void)
{
  g_auto (GStrv) accels = gtk_application_get_accels_for_action (GTK_APPLICATION (app),
                                                                 "win.focus-input");
  g_auto (GStrv) actions = NULL;
  g_autoptr (GtkBuilder) builder = gtk_builder_new_from_resource (
    "/io/github/sandpad/Sandpad/gtk/help-overlay.ui");
  GObject *overlay = gtk_builder_get_object (builder, "help_overlay");
  g_autoptr (GPtrArray) stack = g_ptr_array_new ();
  gboolean listed = FALSE;

  g_assert_cmpuint (g_strv_length (accels), ==, 1);
  g_assert_cmpstr (accels[0], ==, "<Control>i");
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
          listed |= g_strcmp0 (accel, "<ctrl>i") == 0;
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
  g_test_add_func ("/Sandpad/InputFocus/keys-go-to-input", test_keys_go_to_input);
  g_test_add_func ("/Sandpad/InputFocus/typing-keeps-editor", test_typing_keeps_editor);
  g_test_add_func ("/Sandpad/InputFocus/click-keeps-editor", test_click_keeps_editor);
  g_test_add_func ("/Sandpad/InputFocus/placeholder-fits", test_placeholder_fits);
  g_test_add_func ("/Sandpad/InputFocus/shortcut-listed", test_shortcut_listed);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
