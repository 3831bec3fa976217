/* sp-ui-keys.h: a person's keys and clicks for UI tests, sent as real
 * events through the X server (XTEST under Xvfb), header-only as
 * sp-ui-test.h. Nothing here waits a fixed time: the X server delivers
 * events in the order they were sent and GTK handles them in that order,
 * so a test sends what a person would and then waits for what it
 * expects to see (text in the editor, a focus, a run's end). */
#pragma once

#include <X11/Xlib.h>
#include <X11/XKBlib.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
#include <gdk/x11/gdkx.h>
#include <gtk/gtk.h>

#include "sp-test-wait.h"

static inline Display *
sp_ui_keys_display (void)
{
  return gdk_x11_display_get_xdisplay (gdk_display_get_default ());
}

/* Whether XTEST is there to send keys with; tests skip without it. */
static inline gboolean
sp_ui_keys_available (void)
{
  int event_base, error_base, major, minor;

  return GDK_IS_X11_DISPLAY (gdk_display_get_default ())
         && XTestQueryExtension (sp_ui_keys_display (), &event_base, &error_base, &major, &minor);
}

static inline gboolean
sp_ui_keys_window_active (gpointer window)
{
  return gtk_window_is_active (window);
}

/* There is no window manager under Xvfb: the test gives window the X
 * focus, as a click on it would, and waits until GTK knows it has it. */
static inline void
sp_ui_keys_focus_window (GtkWindow *window)
{
  Display *dpy = sp_ui_keys_display ();

  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  XSetInputFocus (dpy, gdk_x11_surface_get_xid (gtk_native_get_surface (GTK_NATIVE (window))),
                  RevertToParent, CurrentTime);
  XFlush (dpy);
  g_assert_true (sp_test_wait_for (sp_ui_keys_window_active, window, 10000));
}

static inline void
sp_ui_keys_send (KeySym keysym, gboolean control, gboolean shift)
{
  Display *dpy = sp_ui_keys_display ();
  KeyCode ctrl_key = XKeysymToKeycode (dpy, XK_Control_L);
  KeyCode shift_key = XKeysymToKeycode (dpy, XK_Shift_L);
  KeyCode key = XKeysymToKeycode (dpy, keysym);

  g_assert_cmpint (key, !=, 0);
  if (control)
    XTestFakeKeyEvent (dpy, ctrl_key, True, CurrentTime);
  if (shift)
    XTestFakeKeyEvent (dpy, shift_key, True, CurrentTime);
  XTestFakeKeyEvent (dpy, key, True, CurrentTime);
  XTestFakeKeyEvent (dpy, key, False, CurrentTime);
  if (shift)
    XTestFakeKeyEvent (dpy, shift_key, False, CurrentTime);
  if (control)
    XTestFakeKeyEvent (dpy, ctrl_key, False, CurrentTime);
  XFlush (dpy);
}

/* A key alone (XK_End, XK_Escape, ...). */
static inline void
sp_ui_keys_press (KeySym keysym)
{
  sp_ui_keys_send (keysym, FALSE, FALSE);
}

/* A key with Control, as a shortcut is pressed. */
static inline void
sp_ui_keys_press_ctrl (KeySym keysym)
{
  sp_ui_keys_send (keysym, TRUE, FALSE);
}

/* Types ASCII text, Shift where the keymap needs it; '\n' is Return. */
static inline void
sp_ui_keys_type (const char *text)
{
  Display *dpy = sp_ui_keys_display ();

  for (const char *p = text; *p != '\0'; p++)
    {
      KeySym keysym = *p == '\n' ? XK_Return : *p == ' ' ? XK_space : (KeySym) (guchar) *p;
      KeyCode key = XKeysymToKeycode (dpy, keysym);

      g_assert_cmpint (key, !=, 0);
      sp_ui_keys_send (keysym, FALSE, XkbKeycodeToKeysym (dpy, key, 0, 0) != keysym);
    }
}

/* A click of the first button at x, y of widget, as the pointer gives
 * it. */
static inline void
sp_ui_keys_click_at (GtkWidget *widget, double x, double y)
{
  GtkNative *native = gtk_widget_get_native (widget);
  Display *dpy = sp_ui_keys_display ();
  graphene_point_t at;
  double sx, sy;
  int rx, ry;
  Window child;

  g_assert_true (gtk_widget_get_mapped (widget));
  g_assert_true (gtk_widget_compute_point (widget, GTK_WIDGET (native),
                                           &GRAPHENE_POINT_INIT ((float) x, (float) y), &at));
  gtk_native_get_surface_transform (native, &sx, &sy);
  XTranslateCoordinates (dpy, gdk_x11_surface_get_xid (gtk_native_get_surface (native)),
                         DefaultRootWindow (dpy), (int) (at.x + sx), (int) (at.y + sy), &rx, &ry,
                         &child);
  XTestFakeMotionEvent (dpy, -1, rx, ry, CurrentTime);
  XTestFakeButtonEvent (dpy, 1, True, CurrentTime);
  XTestFakeButtonEvent (dpy, 1, False, CurrentTime);
  XFlush (dpy);
}

/* A click in the middle of widget. */
static inline void
sp_ui_keys_click (GtkWidget *widget)
{
  sp_ui_keys_click_at (widget, gtk_widget_get_width (widget) / 2.0,
                       gtk_widget_get_height (widget) / 2.0);
}

/* The editor's whole text. */
static inline char *
sp_ui_keys_buffer_text (GtkTextBuffer *buffer)
{
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

/* What a test waits for: a buffer holding exactly text. */
typedef struct
{
  GtkTextBuffer *buffer;
  const char *text;
} SpUiKeysText;

static inline gboolean
sp_ui_keys_buffer_is (gpointer data)
{
  SpUiKeysText *wait = data;
  g_autofree char *text = sp_ui_keys_buffer_text (wait->buffer);

  return g_str_equal (text, wait->text);
}

/* Waits until buffer holds exactly text (the keys typed have arrived);
 * says what it holds when it does not. */
static inline void
sp_ui_keys_wait_text (GtkTextBuffer *buffer, const char *text)
{
  SpUiKeysText wait = { buffer, text };

  if (!sp_test_wait_for (sp_ui_keys_buffer_is, &wait, 10000))
    {
      g_autofree char *now = sp_ui_keys_buffer_text (buffer);
      g_assert_cmpstr (now, ==, text);
    }
}

/* Whether widget or something inside it has the keyboard of its window. */
static inline gboolean
sp_ui_keys_has_focus_within (gpointer widget)
{
  GtkRoot *root = gtk_widget_get_root (widget);
  GtkWidget *focus = root != NULL ? gtk_root_get_focus (root) : NULL;

  return focus != NULL && (focus == widget || gtk_widget_is_ancestor (focus, widget));
}
