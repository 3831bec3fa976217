/* sp-page.h: one file's page of a window (its template ui/sp-page.ui):
 * the bars about the file (changed on disk, its unsaved copy, text hidden
 * from view) above the split of the editor and the execution panel, and
 * the decoded images of the run it shows.
 *
 * GNOME Text Editor's EditorPage is the model: the window is the shell
 * (header bar, toasts, the runner's banner) around a page. For now the
 * page holds the widgets and SpWindow still drives them through the
 * accessors below; the file's and its runs' core objects move here next
 * (issue 41). */
#pragma once

#include <adwaita.h>
#include <gtksourceview/gtksource.h>

#include "sp-exec-panel.h"
#include "sp-file-change-bar.h"
#include "sp-hidden-bar.h"
#include "sp-image-budget.h"
#include "sp-reload-bar.h"
#include "sp-split.h"

G_BEGIN_DECLS

#define SP_TYPE_PAGE (sp_page_get_type ())
G_DECLARE_FINAL_TYPE (SpPage, sp_page, SP, PAGE, GtkWidget)

GtkSourceView *sp_page_get_source_view (SpPage *self);
SpExecPanel *sp_page_get_exec_panel (SpPage *self);
SpSplit *sp_page_get_split (SpPage *self);
SpFileChangeBar *sp_page_get_file_bar (SpPage *self);
/* The unsaved text's bar (sp-window-save.c). */
SpReloadBar *sp_page_get_autosave_bar (SpPage *self);
SpHiddenBar *sp_page_get_hidden_bar (SpPage *self);
/* A bar made later (the autosave folder's notice), placed right under the
 * unsaved-copy bar; the page unparents it with the rest. */
void sp_page_add_bar (SpPage *self, GtkWidget *bar);

/* The shown run's images, decoded by the sandboxed helper as each comes
 * into view, their pixels within the page's budget (SpImageBudget): a new
 * run begins (the last one's decodes not wanted any more, its share of
 * the budget given back), and its images are added to the panel. */
void sp_page_begin_run_images (SpPage *self);
void sp_page_add_images (SpPage *self, GPtrArray *items);

G_END_DECLS
