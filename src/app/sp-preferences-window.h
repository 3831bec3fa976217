/* sp-preferences-window.h: edits the app's settings. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SP_TYPE_PREFERENCES_WINDOW (sp_preferences_window_get_type ())
G_DECLARE_FINAL_TYPE (SpPreferencesWindow, sp_preferences_window, SP, PREFERENCES_WINDOW,
                      AdwPreferencesWindow)

GtkWidget *sp_preferences_window_new (GSettings *settings);

G_END_DECLS
