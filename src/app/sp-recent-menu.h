/* sp-recent-menu.h: Open Recent, a menu filled from GtkRecentManager.
 *
 * It fills a GMenu (the window's template holds it) with Sandpad's own
 * recent files that still exist, newest first, at most ten, each an item
 * of the action "win.open-recent" with the file's URI as its target, and
 * fills it again each time the recent manager changes. With none, one
 * item of "win.no-recent" (which the window keeps disabled, so it shows
 * greyed out) says so. Adding a file to the list is the recent manager's
 * (gtk_recent_manager_add_item). */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define SP_TYPE_RECENT_MENU (sp_recent_menu_get_type ())
G_DECLARE_FINAL_TYPE (SpRecentMenu, sp_recent_menu, SP, RECENT_MENU, GObject)

/* Fills menu now and whenever manager changes, for as long as the object
 * lives. */
SpRecentMenu *sp_recent_menu_new (GMenu *menu, GtkRecentManager *manager);

G_END_DECLS
