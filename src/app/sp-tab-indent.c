/* sp-tab-indent.c: Tab and Shift+Tab on selected lines, keeping the
 * selection.
 *
 * GtkSourceView's own indent-on-tab (5.6) clears the selection, indents,
 * then selects the same range again. Each of those steps hands the
 * primary selection back and forth: the buffer gives up PRIMARY when its
 * selection empties and claims it again when it comes back. On X11 the
 * server answers the release with a SelectionClear that arrives after the
 * new claim, GDK takes it for another program taking PRIMARY, and the
 * buffer, as it does then, moves the selection bound onto the cursor:
 * the selection collapses some time after the Tab, and the Shift+Tab that
 * follows dedents only the cursor's line. Here the same indent is done on
 * the selection as it stands (its marks move with the text as
 * GtkSourceView's temporary ones do), so PRIMARY is never released. */
#define G_LOG_DOMAIN "sp-tab-indent"

#include "config.h"

#include "sp-tab-indent.h"

static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode,
                GdkModifierType state, GtkSourceView *view)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  GdkModifierType mods = state & gtk_accelerator_get_default_mod_mask ();
  GtkTextIter start, end;
  gboolean backward, selected;

  if (keyval != GDK_KEY_Tab && keyval != GDK_KEY_KP_Tab && keyval != GDK_KEY_ISO_Left_Tab)
    return GDK_EVENT_PROPAGATE;
  if ((mods & ~GDK_SHIFT_MASK) != 0 || !gtk_source_view_get_indent_on_tab (view)
      || !gtk_text_view_get_editable (GTK_TEXT_VIEW (view))
      || !gtk_text_view_get_accepts_tab (GTK_TEXT_VIEW (view)))
    return GDK_EVENT_PROPAGATE;
  backward = (mods & GDK_SHIFT_MASK) != 0 || keyval == GDK_KEY_ISO_Left_Tab;
  selected = gtk_text_buffer_get_selection_bounds (buffer, &start, &end);
  if (backward)
    {
      gtk_source_view_unindent_lines (view, &start, &end);
      return GDK_EVENT_STOP;
    }
  /* As the view decides: a selection of whole lines, or over more than
   * one, is indented; a Tab within a line is a Tab (the view's). */
  if (selected
      && ((gtk_text_iter_starts_line (&start) && gtk_text_iter_ends_line (&end))
          || gtk_text_iter_get_line (&start) != gtk_text_iter_get_line (&end)))
    {
      gtk_source_view_indent_lines (view, &start, &end);
      return GDK_EVENT_STOP;
    }
  return GDK_EVENT_PROPAGATE;
}

void
sp_tab_indent_attach (GtkSourceView *view)
{
  GtkEventController *key;

  g_return_if_fail (GTK_SOURCE_IS_VIEW (view));

  key = gtk_event_controller_key_new ();
  /* Capture: before the view's own key handler takes the Tab. */
  gtk_event_controller_set_propagation_phase (key, GTK_PHASE_CAPTURE);
  g_signal_connect_object (key, "key-pressed", G_CALLBACK (on_key_pressed), view, 0);
  gtk_widget_add_controller (GTK_WIDGET (view), key);
}
