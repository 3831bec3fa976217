/* sp-indenter.c: GtkSourceIndenter over sp-indent.c. The view asks it on
 * Enter (where the new line starts) and on a closing bracket typed at the
 * start of a line (back to the opener's indent); the buffer's language
 * picks the rules, and the view's indent width and spaces-or-tabs are
 * used as set. Tab and Shift+Tab on a selection are sp-tab-indent.c's,
 * the view's own indent-on-tab without losing the selection. */
#define G_LOG_DOMAIN "sp-indenter"

#include "config.h"

#include "sp-indent.h"
#include "sp-indenter.h"

/* How far back the text is read: enough for any statement, and bounded
 * so a keypress in a long file stays cheap. */
#define CONTEXT_LINES 2000

struct _SpIndenter
{
  GObject parent_instance;
};

static void sp_indenter_iface_init (GtkSourceIndenterInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SpIndenter, sp_indenter, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (GTK_SOURCE_TYPE_INDENTER,
                                                      sp_indenter_iface_init))

static SpIndentLanguage
view_language (GtkSourceView *view)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  GtkSourceLanguage *language = gtk_source_buffer_get_language (GTK_SOURCE_BUFFER (buffer));

  return sp_indent_language_from_id (language ? gtk_source_language_get_id (language) : NULL);
}

static guint
indent_width (GtkSourceView *view)
{
  int width = gtk_source_view_get_indent_width (view);

  return width > 0 ? (guint) width : gtk_source_view_get_tab_width (view);
}

static gboolean
is_closer (guint keyval)
{
  return keyval == GDK_KEY_braceright || keyval == GDK_KEY_parenright
         || keyval == GDK_KEY_bracketright;
}

/* Whether only blanks precede location on its line. */
static gboolean
starts_line (const GtkTextIter *location)
{
  GtkTextIter iter = *location;

  gtk_text_iter_set_line_offset (&iter, 0);
  while (gtk_text_iter_compare (&iter, location) < 0)
    {
      gunichar c = gtk_text_iter_get_char (&iter);
      if (c != ' ' && c != '\t')
        return FALSE;
      gtk_text_iter_forward_char (&iter);
    }
  return TRUE;
}

/* Whether the closing bracket keyval is, or is about to be, the first
 * thing on the cursor's line. Read from the buffer as it is now, never
 * from the iter the view passes: GtkSourceView 5.11.1 and later (commit
 * a714cd8e) hand the key to the input method first, which inserts the
 * bracket, and only then ask with the iter taken before that insertion,
 * an iter GTK warns of as invalid when read. So the bracket may already
 * be just before the cursor (5.11.1 and later), or not yet typed (5.6). */
static gboolean
closer_starts_line (GtkSourceView *view, guint keyval)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  GtkTextIter cursor;

  gtk_text_buffer_get_iter_at_mark (buffer, &cursor, gtk_text_buffer_get_insert (buffer));
  if (starts_line (&cursor))
    return TRUE;
  return gtk_text_iter_backward_char (&cursor)
         && gtk_text_iter_get_char (&cursor) == gdk_keyval_to_unicode (keyval)
         && starts_line (&cursor);
}

static gboolean
sp_indenter_is_trigger (GtkSourceIndenter *indenter, GtkSourceView *view,
                        const GtkTextIter *location, GdkModifierType state, guint keyval)
{
  if ((state & (GDK_SHIFT_MASK | GDK_CONTROL_MASK | GDK_ALT_MASK)) != 0 && !is_closer (keyval))
    return FALSE;
  if (keyval == GDK_KEY_Return || keyval == GDK_KEY_KP_Enter)
    return TRUE;
  return is_closer (keyval) && view_language (view) != SP_INDENT_OTHER
         && closer_starts_line (view, keyval);
}

/* The text from CONTEXT_LINES back to end (a line start). */
static char *
text_before (GtkTextIter *end)
{
  GtkTextIter start = *end;
  int line = gtk_text_iter_get_line (end);

  gtk_text_iter_set_line (&start, MAX (line - CONTEXT_LINES, 0));
  return gtk_text_iter_get_slice (&start, end);
}

/* Replaces the blanks that start iter's line with indent; iter ends after
 * what followed them, as far into the line as it was. */
static void
set_line_indent (GtkTextBuffer *buffer, GtkTextIter *iter, const char *indent)
{
  GtkTextIter start = *iter, end;
  int line = gtk_text_iter_get_line (iter);
  int from_end = gtk_text_iter_get_chars_in_line (iter) - gtk_text_iter_get_line_offset (iter);

  gtk_text_iter_set_line_offset (&start, 0);
  end = start;
  while (!gtk_text_iter_ends_line (&end)
         && (gtk_text_iter_get_char (&end) == ' ' || gtk_text_iter_get_char (&end) == '\t'))
    gtk_text_iter_forward_char (&end);
  gtk_text_buffer_delete (buffer, &start, &end);
  gtk_text_buffer_insert (buffer, &start, indent, -1);
  gtk_text_buffer_get_iter_at_line (buffer, iter, line);
  gtk_text_iter_set_line_offset (iter, MAX (gtk_text_iter_get_chars_in_line (iter) - from_end, 0));
}

static void
sp_indenter_indent (GtkSourceIndenter *indenter, GtkSourceView *view, GtkTextIter *iter)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (view));
  SpIndentLanguage language = view_language (view);
  guint width = indent_width (view);
  gboolean spaces = gtk_source_view_get_insert_spaces_instead_of_tabs (view);
  GtkTextIter line_start = *iter;
  g_autofree char *indent = NULL;

  gtk_text_iter_set_line_offset (&line_start, 0);
  if (gtk_text_iter_get_line_offset (iter) > 0 && starts_line (&line_start) && !starts_line (iter))
    {
      /* A closing bracket just typed first on its line. */
      g_autofree char *before = text_before (&line_start);
      indent = sp_indent_for_closer (language, before, width, spaces);
    }
  else if (gtk_text_iter_get_line (iter) > 0)
    {
      GtkTextIter prev_end = line_start;
      gtk_text_iter_backward_char (&prev_end);
      g_autofree char *before = text_before (&prev_end);
      indent = sp_indent_after_newline (language, before, width, spaces);
    }
  if (indent != NULL)
    set_line_indent (buffer, iter, indent);
}

static void
sp_indenter_iface_init (GtkSourceIndenterInterface *iface)
{
  iface->is_trigger = sp_indenter_is_trigger;
  iface->indent = sp_indenter_indent;
}

static void
sp_indenter_class_init (SpIndenterClass *klass)
{
}

static void
sp_indenter_init (SpIndenter *self)
{
}

GtkSourceIndenter *
sp_indenter_new (void)
{
  return g_object_new (SP_TYPE_INDENTER, NULL);
}
