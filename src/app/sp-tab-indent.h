/* sp-tab-indent.h: Tab and Shift+Tab on selected lines indent and dedent
 * them and leave the same lines selected. */
#pragma once

#include <gtksourceview/gtksource.h>

G_BEGIN_DECLS

/* From now on, in view (with indent-on-tab set): Tab with a selection
 * that spans lines indents them, Shift+Tab dedents the selected lines or
 * the cursor's; the selection is kept as it is. Other Tabs are the
 * view's. */
void sp_tab_indent_attach (GtkSourceView *view);

G_END_DECLS
