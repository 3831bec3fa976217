/* sp-focus-walk.c: Tab through a container's controls in order.
 *
 * GTK's own Tab handling stops at a GtkListView (4.8): it takes the focus
 * as a whole, shows no ring, and the buttons and links inside its rows are
 * never reached; Tab then goes nowhere visible. The output panel is mostly
 * such a list, so this walks the widgets that are on screen instead, in
 * the order they are laid out, and lets a label with links move through
 * its links before going on. */
#define G_LOG_DOMAIN "sp-focus-walk"

#include "config.h"

#include <string.h>

#include "sp-focus-walk.h"

static gboolean
has_links (GtkWidget *widget)
{
  return GTK_IS_LABEL (widget) && gtk_label_get_use_markup (GTK_LABEL (widget))
         && strstr (gtk_label_get_label (GTK_LABEL (widget)), "<a ") != NULL;
}

/* A Tab stop: a control on screen, not a container of them. Lists and
 * scrolled windows are skipped for their rows; a label only for its
 * links. */
static gboolean
is_stop (GtkWidget *widget)
{
  if (!gtk_widget_get_focusable (widget) || !gtk_widget_get_can_focus (widget)
      || !gtk_widget_is_sensitive (widget))
    return FALSE;
  if (GTK_IS_LABEL (widget))
    return has_links (widget);
  return !GTK_IS_LIST_VIEW (widget) && !GTK_IS_SCROLLED_WINDOW (widget)
         && !GTK_IS_SCROLLBAR (widget) && !GTK_IS_LIST_VIEW (gtk_widget_get_parent (widget));
}

static void
collect (GtkWidget *widget, GPtrArray *stops)
{
  if (!gtk_widget_get_mapped (widget) || !gtk_widget_get_can_focus (widget))
    return;
  if (is_stop (widget))
    g_ptr_array_add (stops, widget);
  /* A button's insides are its own; an expander's child comes after it. */
  if (GTK_IS_BUTTON (widget))
    return;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    collect (child, stops);
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode,
                GdkModifierType state, GtkWidget *home)
{
  GtkWidget *container = gtk_event_controller_get_widget (GTK_EVENT_CONTROLLER (controller));
  GtkRoot *root = gtk_widget_get_root (container);
  GdkModifierType mods = state & gtk_accelerator_get_default_mod_mask ();
  g_autoptr (GPtrArray) stops = NULL;
  GtkDirectionType dir;
  GtkWidget *focus, *next;
  guint at = G_MAXUINT;

  if (keyval == GDK_KEY_Escape && mods == 0)
    {
      /* Whatever in the panel had it, the keyboard goes back. */
      gtk_widget_grab_focus (home);
      return GDK_EVENT_STOP;
    }
  if (keyval == GDK_KEY_Tab || keyval == GDK_KEY_KP_Tab)
    dir = (mods & GDK_SHIFT_MASK) ? GTK_DIR_TAB_BACKWARD : GTK_DIR_TAB_FORWARD;
  else if (keyval == GDK_KEY_ISO_Left_Tab)
    dir = GTK_DIR_TAB_BACKWARD;
  else
    return GDK_EVENT_PROPAGATE;
  if ((mods & ~GDK_SHIFT_MASK) != 0 || root == NULL)
    return GDK_EVENT_PROPAGATE;

  focus = gtk_root_get_focus (root);
  /* A label with links first moves through them. */
  if (focus == NULL || !has_links (focus) || !gtk_widget_child_focus (focus, dir))
    {
      stops = g_ptr_array_new ();
      collect (container, stops);
      if (stops->len == 0)
        return GDK_EVENT_PROPAGATE;
      for (guint i = 0; focus != NULL && i < stops->len; i++)
        if (focus == stops->pdata[i] || gtk_widget_is_ancestor (focus, stops->pdata[i]))
          at = i;
      if (at == G_MAXUINT)
        /* Not on a stop yet: the first (or last) one. */
        next = stops->pdata[dir == GTK_DIR_TAB_FORWARD ? 0 : stops->len - 1];
      else if (dir == GTK_DIR_TAB_FORWARD)
        next = stops->pdata[(at + 1) % stops->len];
      else
        next = stops->pdata[(at + stops->len - 1) % stops->len];
      /* A label takes the focus on its first link (its own focus
       * handling); other widgets as they do for GTK's Tab. */
      if (!gtk_widget_child_focus (next, dir))
        gtk_widget_grab_focus (next);
    }
  if (GTK_IS_WINDOW (root))
    gtk_window_set_focus_visible (GTK_WINDOW (root), TRUE);
  return GDK_EVENT_STOP;
}

void
sp_focus_walk_attach (GtkWidget *container, GtkWidget *home)
{
  GtkEventController *key;

  g_return_if_fail (GTK_IS_WIDGET (container));
  g_return_if_fail (GTK_IS_WIDGET (home));

  key = gtk_event_controller_key_new ();
  /* Capture: before the list view or a label take the key for their own
   * moves. */
  gtk_event_controller_set_propagation_phase (key, GTK_PHASE_CAPTURE);
  g_signal_connect_object (key, "key-pressed", G_CALLBACK (on_key_pressed), home, 0);
  gtk_widget_add_controller (container, key);
}
