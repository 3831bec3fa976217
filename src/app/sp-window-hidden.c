/* sp-window-hidden.c: a run's text file opened in the editor, with the
 * characters that hide or reorder text made visible (issue 29).
 *
 * A run's file is the program's to write: a bidi override makes
 * `if access != "user<U+202E> <U+2066>// admin"` read as other code,
 * and a zero-width space is not seen at all (Trojan Source). The panel
 * shows such characters as their code points, but the editor's text is
 * the person's to edit and save, so its bytes stay as they came. Here, as
 * GNOME Text Editor and VS Code do, each is drawn as a box with its code
 * point (Pango's "show ignorables") and underlined, and a bar across the
 * top says how many there are and what they do. The override still turns
 * the text after it around: the boxes and the bar are the warning. */
#include "config.h"

#include <glib/gi18n.h>

#include "sp-visible-text.h"
#include "sp-window-hidden.h"
#include "sp-window-private.h"

#define HIDDEN_TAG "sp-hidden-char"

/* Tags each hidden character of the buffer; how many there are. */
static guint
mark_characters (GtkTextBuffer *buffer)
{
  GtkTextTagTable *table = gtk_text_buffer_get_tag_table (buffer);
  GtkTextTag *tag = gtk_text_tag_table_lookup (table, HIDDEN_TAG);
  GtkTextIter at, end;
  guint n = 0;

  if (tag == NULL)
    tag = gtk_text_buffer_create_tag (buffer, HIDDEN_TAG, "show-spaces", PANGO_SHOW_IGNORABLES,
                                      "underline", PANGO_UNDERLINE_ERROR, NULL);
  gtk_text_buffer_get_bounds (buffer, &at, &end);
  gtk_text_buffer_remove_tag (buffer, tag, &at, &end);
  for (; !gtk_text_iter_is_end (&at); gtk_text_iter_forward_char (&at))
    if (sp_visible_text_is_hidden (gtk_text_iter_get_char (&at)))
      {
        GtkTextIter next = at;

        gtk_text_iter_forward_char (&next);
        gtk_text_buffer_apply_tag (buffer, tag, &at, &next);
        n++;
      }
  return n;
}

void
_sp_window_mark_hidden_chars (SpWindow *self)
{
  GtkTextBuffer *buffer = gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view));
  g_autofree char *message = NULL;
  guint n;

  n = mark_characters (buffer);
  if (n == 0)
    {
      if (self->hidden_bar != NULL)
        sp_reload_bar_hide (self->hidden_bar);
      return;
    }
  if (self->hidden_bar == NULL)
    {
      self->hidden_bar = sp_reload_bar_new ();
      gtk_box_insert_child_after (GTK_BOX (gtk_widget_get_parent (GTK_WIDGET (self->autosave_bar))),
                                  GTK_WIDGET (self->hidden_bar), GTK_WIDGET (self->autosave_bar));
      g_signal_connect (self->hidden_bar, "response", G_CALLBACK (sp_reload_bar_hide), NULL);
    }
  message = g_strdup_printf (
    /* Translators: shown over a file a run made; %u counts the characters. */
    g_dngettext (GETTEXT_PACKAGE,
                 "This text holds %u character that is invisible or changes the order of the "
                 "text around it (a bidi control or zero-width character), drawn as a box. "
                 "The code may not do what it seems to.",
                 "This text holds %u characters that are invisible or change the order of the "
                 "text around them (bidi controls or zero-width characters), drawn as boxes. "
                 "The code may not do what it seems to.",
                 n),
    n);
  sp_reload_bar_show (self->hidden_bar, "hidden-chars", message, TRUE);
  sp_reload_bar_add_button (self->hidden_bar, "dismiss", _ ("_Dismiss"), NULL);
}

SpReloadBar *
sp_window_get_hidden_bar (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return self->hidden_bar;
}
