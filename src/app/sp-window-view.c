/* sp-window-view.c: the helpers every sp-window-*.c file shares
 * (sp-window-private.h): the editor's language, the title, a line gone
 * to, a toast, the text, the file name a snippet gets, the app's activity
 * model, and sp-window.h's sp_window_get_buffer. They read the window's
 * widgets and core objects and call nothing of sp-window.c,
 * sp-window-actions.c or sp-window-save.c: those three stand above this
 * file, and none calls back into another's. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include "sp-window-private.h"

/* The menu's order; GtkSourceView's language ids highlight each. */
static const char *const language_names[] = { "python", "javascript", "bash", "c", "cpp",  "rust",
                                              "go",     "typescript", "ruby", "r", "java", NULL };
static const char *const source_language_ids[]
  = { "python3", "js", "sh", "c", "cpp", "rust", "go", "typescript", "ruby", "r", "java" };

const char *
_sp_window_get_language (SpWindow *self)
{
  guint i = gtk_drop_down_get_selected (self->language_dropdown);

  return i < G_N_ELEMENTS (source_language_ids) ? language_names[i] : "python";
}

void
_sp_window_set_language (SpWindow *self, const char *language)
{
  for (guint i = 0; language_names[i] != NULL; i++)
    if (g_strcmp0 (language_names[i], language) == 0)
      gtk_drop_down_set_selected (self->language_dropdown, i);
}

/* The menu's language chosen: the editor highlights it, the settings
 * keep it for the next window, the document runs with it. */
void
_sp_window_language_changed (SpWindow *self)
{
  GtkSourceLanguageManager *manager = gtk_source_language_manager_get_default ();
  guint i = gtk_drop_down_get_selected (self->language_dropdown);
  GtkSourceBuffer *buffer = sp_window_get_buffer (self);

  if (i >= G_N_ELEMENTS (source_language_ids))
    return;
  gtk_source_buffer_set_language (
    buffer, gtk_source_language_manager_get_language (manager, source_language_ids[i]));
  g_settings_set_string (self->settings, "last-language", language_names[i]);
  sp_document_set_language (self->document, language_names[i]);
}

/* "main.py": the name the runner gives a snippet of the window's
 * language (its first extension, from the ready event), for a stem. */
char *
_sp_window_file_name_for (SpWindow *self, const char *stem)
{
  SpRunnerClient *client = sp_runner_supervisor_get_client (self->supervisor);
  const char *const *extensions = NULL;

  if (client != NULL && sp_runner_client_is_ready (client))
    extensions = sp_runner_client_get_language_extensions (client, _sp_window_get_language (self));
  if (extensions == NULL || extensions[0] == NULL)
    return g_strdup (stem);
  return g_strconcat (stem, ".", extensions[0], NULL);
}

void
_sp_window_update_title (SpWindow *self)
{
  gboolean modified = gtk_text_buffer_get_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (self)));
  g_autofree char *name = sp_document_dup_display_name (self->document);
  g_autofree char *title = modified ? g_strdup_printf ("• %s", name) : g_strdup (name);

  adw_window_title_set_title (self->window_title, title);
  gtk_window_set_title (GTK_WINDOW (self), title);
}

/* Puts the caret on a line of the snippet (from 1), in view, and gives
 * the editor the keyboard: the person asked for it (a traceback link, a
 * frame). A failed run only marks its line (SpErrorMark). */
void
_sp_window_goto_line (SpWindow *self, int line)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  GtkTextIter start;

  if (line < 1 || line > gtk_text_buffer_get_line_count (buffer))
    return;
  gtk_text_buffer_get_iter_at_line (buffer, &start, line - 1);
  gtk_text_buffer_place_cursor (buffer, &start);
  gtk_text_view_scroll_to_mark (GTK_TEXT_VIEW (self->source_view),
                                gtk_text_buffer_get_insert (buffer), 0.2, FALSE, 0, 0);
  gtk_widget_grab_focus (GTK_WIDGET (self->source_view));
}

/* The application's one follower of sandpad-mcp's journal, made by the
 * first window that asks. */
SpActivityModel *
_sp_window_activity_model (SpWindow *self)
{
  GtkApplication *app = gtk_window_get_application (GTK_WINDOW (self));
  SpActivityModel *model;

  g_return_val_if_fail (app != NULL, NULL);
  model = g_object_get_data (G_OBJECT (app), "sp-activity-model");
  if (model == NULL)
    {
      model = sp_activity_model_new (NULL);
      g_object_set_data_full (G_OBJECT (app), "sp-activity-model", model, g_object_unref);
    }
  return model;
}

void
_sp_window_toast (SpWindow *self, const char *message)
{
  adw_toast_overlay_add_toast (self->toast_overlay, adw_toast_new (message));
}

char *
_sp_window_get_text (SpWindow *self)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (self));
  GtkTextIter start, end;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  return gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
}

GtkSourceBuffer *
sp_window_get_buffer (SpWindow *self)
{
  g_return_val_if_fail (SP_IS_WINDOW (self), NULL);
  return GTK_SOURCE_BUFFER (gtk_text_view_get_buffer (GTK_TEXT_VIEW (self->source_view)));
}
