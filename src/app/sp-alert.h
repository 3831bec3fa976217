/* sp-alert.h: the app's questions ("Save Changes?", "File Changed on
 * Disk") in the dialog each libadwaita does best. From 1.5, AdwAlertDialog,
 * shown inside its window; before (Debian 12's 1.2), AdwMessageDialog, a
 * window of its own. libadwaita 1.7's AdwMessageDialog, deprecated since
 * 1.6, measures its heading narrower than the heading needs (a GTK
 * warning on every question). The two share their API but the prefix:
 * sp_alert (add_responses) (dialog, ...) names the one this build has. */
#pragma once

#include <adwaita.h>

#if ADW_CHECK_VERSION(1, 5, 0)
typedef AdwAlertDialog SpAlert;
#define sp_alert(fn) adw_alert_dialog_##fn

/* PARENT is named again to sp_alert_present, which shows it there. */
static inline SpAlert *
sp_alert_new (GtkWindow *parent, const char *heading, const char *body)
{
  (void) parent;
  return ADW_ALERT_DIALOG (adw_alert_dialog_new (heading, body));
}

static inline void
sp_alert_present (SpAlert *alert, GtkWindow *parent)
{
  adw_dialog_present (ADW_DIALOG (alert), GTK_WIDGET (parent));
}
#else
typedef AdwMessageDialog SpAlert;
#define sp_alert(fn) adw_message_dialog_##fn

static inline SpAlert *
sp_alert_new (GtkWindow *parent, const char *heading, const char *body)
{
  return ADW_MESSAGE_DIALOG (adw_message_dialog_new (parent, heading, body));
}

static inline void
sp_alert_present (SpAlert *alert, GtkWindow *parent)
{
  (void) parent;
  gtk_window_present (GTK_WINDOW (alert));
}
#endif
