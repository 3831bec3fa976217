/* sp-indenter.h: the editor's GtkSourceIndenter: smart indentation for
 * Python, JavaScript and Bash (the rules are core's sp-indent.c). */
#pragma once

#include <gtksourceview/gtksource.h>

G_BEGIN_DECLS

#define SP_TYPE_INDENTER (sp_indenter_get_type ())
G_DECLARE_FINAL_TYPE (SpIndenter, sp_indenter, SP, INDENTER, GObject)

GtkSourceIndenter *sp_indenter_new (void);

G_END_DECLS
