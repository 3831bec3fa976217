/* sp-compare-window.h: the file on disk beside the editor's unsaved text,
 * as a unified diff ("-" lines are the disk's, "+" lines the editor's),
 * so the person can decide between Reload and Keep Mine knowing what
 * each loses. Read only; closes with Escape or Ctrl+W. */
#pragma once

#include <adwaita.h>

G_BEGIN_DECLS

#define SP_TYPE_COMPARE_WINDOW (sp_compare_window_get_type ())
G_DECLARE_FINAL_TYPE (SpCompareWindow, sp_compare_window, SP, COMPARE_WINDOW, AdwWindow)

GtkWidget *sp_compare_window_new (GtkWindow *parent, const char *name, const char *disk_text,
                                  const char *editor_text);

/* For tests: the diff as shown. */
char *sp_compare_window_get_text (SpCompareWindow *self);

G_END_DECLS
