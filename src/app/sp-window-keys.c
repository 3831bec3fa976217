/* sp-window-keys.c: the run shortcuts never edit the text.
 *
 * Ctrl+Return and Ctrl+Shift+Return are application accelerators, which
 * the window handles before the editor sees the key. But an accelerator
 * whose action is disabled (a run is going, the runner is not ready) lets
 * the key through, and the editor then inserted a newline into the code.
 * A capture-phase key controller on the editor catches what got that far:
 * it is never text. While a run is going the keys do nothing but say why
 * (Stop is Ctrl+Period); a run is never stopped by a key meant to start
 * one. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-window-private.h"

static gboolean
is_run_key (guint keyval, GdkModifierType state)
{
  GdkModifierType mods = state & gtk_accelerator_get_default_mod_mask ();

  if ((mods & ~GDK_SHIFT_MASK) != GDK_CONTROL_MASK)
    return FALSE;
  return keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter || keyval == GDK_KEY_ISO_Enter;
}

static void
on_toast_dismissed (AdwToast *toast, SpWindow *self)
{
  if (self->busy_toast == toast)
    self->busy_toast = NULL;
}

/* One toast at a time, however often the key is pressed. */
static void
say_why (SpWindow *self)
{
  const char *why = sp_run_controller_get_running (self->runs)
                      ? _("A program is running: stop it first with Ctrl+Period")
                      : _("Runs are unavailable until the sandboxed runner is ready");

  if (self->busy_toast != NULL)
    return;
  self->busy_toast = adw_toast_new (why);
  g_signal_connect_object (self->busy_toast, "dismissed", G_CALLBACK (on_toast_dismissed), self,
                           0);
  adw_toast_overlay_add_toast (self->toast_overlay, self->busy_toast);
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode,
                GdkModifierType state, SpWindow *self)
{
  if (!is_run_key (keyval, state))
    return GDK_EVENT_PROPAGATE;
  /* Reached the editor: the accelerator did not run (its action is
   * disabled), or it is the keypad's Enter. Run if allowed, never type. */
  if (sp_run_controller_get_running (self->runs) || !sp_runner_supervisor_is_ready (self->supervisor))
    say_why (self);
  else
    gtk_widget_activate_action (GTK_WIDGET (self),
                                (state & GDK_SHIFT_MASK) ? "win.run-selection" : "win.run", NULL);
  return GDK_EVENT_STOP;
}

void
_sp_window_guard_run_keys (SpWindow *self)
{
  GtkEventController *keys = gtk_event_controller_key_new ();

  gtk_event_controller_set_propagation_phase (keys, GTK_PHASE_CAPTURE);
  g_signal_connect_object (keys, "key-pressed", G_CALLBACK (on_key_pressed), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self->source_view), keys);
}
