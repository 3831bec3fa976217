/* sp-document.c: the file an editor window edits (loading, saving, what
 * a change on disk is); its unsaved text's copy; where its runs belong.
 * The watch on the file is an SpFileWatch (sp-file-watch.c), which knows
 * nothing of documents: it says what the file holds after a burst of
 * changes, and this file compares that with what it last knew the file
 * to hold (disk_text), so our own saves, and a touch that changes
 * nothing, are no change. What the look found goes to the view as
 * "disk-changed"; the view decides how to show it.
 *
 * The copy of unsaved text is written a moment after typing stops (and
 * when the view asks, as it loses the focus), through sp-autosave.c,
 * atomically; saving, or closing with Discard, removes it, and a copy
 * that is left is restored at the next start. A write that fails is said
 * ("autosave-status") and removes nothing. */
#define G_LOG_DOMAIN "sp-document"

#include "config.h"

#include <glib/gi18n.h>
#include <string.h>

#include "sp-document.h"
#include "sp-environment.h"
#include "sp-file-watch.h"
#include "sp-run-history.h"
#include "sp-safe-save.h"

/* A moment after the last key: long enough not to write on every key,
 * short enough that a crash costs nothing noticeable. */
#define AUTOSAVE_DELAY_MS 1000

struct _SpDocument
{
  GObject parent_instance;

  SpDocumentTextFunc text_func;
  gpointer text_data;
  gboolean modified;
  char *language;
  char *workspace;

  /* The file on disk, watched. disk_text is what the file held when we
   * last loaded, saved or accepted it (NULL: nothing on disk). */
  GFile *file;
  SpFileWatch *watch;
  GBytes *disk_text;
  GBytes *saving_text;  /* a save on its way to disk */
  GBytes *pending_disk; /* an outside change the person has not answered */

  /* The copy in the state folder; dir NULL when another process owns it. */
  char *autosave_dir;
  char *autosave_id;
  char *untitled_name;
  guint autosave_timer;
  gboolean autosave_failed;
  gboolean autosave_off_said;
  gboolean closed;
};

G_DEFINE_FINAL_TYPE (SpDocument, sp_document, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_FILE,
  PROP_MODIFIED,
  PROP_LANGUAGE,
  PROP_WORKSPACE,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  DISK_CHANGED,
  LOADED,
  SAVED,
  ENVIRONMENT_CHANGED,
  AUTOSAVE_STATUS,
  PREPARE_COPY,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* g_set_str() is GLib 2.76; the floor is 2.74. */
static gboolean
set_str (char **slot, const char *value)
{
  if (g_strcmp0 (*slot, value) == 0)
    return FALSE;
  g_free (*slot);
  *slot = g_strdup (value);
  return TRUE;
}

/* Puts value (owned) in *slot, dropping what was there. */
static void
set_bytes (GBytes **slot, GBytes *value)
{
  g_clear_pointer (slot, g_bytes_unref);
  *slot = value;
}

char *
sp_document_dup_text (SpDocument *self)
{
  g_return_val_if_fail (SP_IS_DOCUMENT (self), NULL);
  if (self->text_func == NULL)
    return g_strdup ("");
  return self->text_func (self->text_data);
}

char *
sp_document_text_for_file (const char *editor_text)
{
  g_return_val_if_fail (editor_text != NULL, NULL);
  if (editor_text[0] == '\0')
    return g_strdup ("");
  return g_strconcat (editor_text, "\n", NULL);
}

gsize
sp_document_editor_length (const char *file_text, gsize length)
{
  g_return_val_if_fail (file_text != NULL || length == 0, 0);
  if (length == 0 || file_text[length - 1] != '\n')
    return length;
  return length >= 2 && file_text[length - 2] == '\r' ? length - 2 : length - 1;
}

void
sp_document_set_text_func (SpDocument *self, SpDocumentTextFunc func, gpointer user_data)
{
  g_return_if_fail (SP_IS_DOCUMENT (self));
  self->text_func = func;
  self->text_data = user_data;
}

GFile *
sp_document_get_file (SpDocument *self)
{
  g_return_val_if_fail (SP_IS_DOCUMENT (self), NULL);
  return self->file;
}

char *
sp_document_dup_display_name (SpDocument *self)
{
  g_return_val_if_fail (SP_IS_DOCUMENT (self), NULL);
  return self->file != NULL ? g_file_get_basename (self->file) : g_strdup (_ ("Untitled"));
}

gboolean
sp_document_get_modified (SpDocument *self)
{
  g_return_val_if_fail (SP_IS_DOCUMENT (self), FALSE);
  return self->modified;
}

void
sp_document_set_modified (SpDocument *self, gboolean modified)
{
  g_return_if_fail (SP_IS_DOCUMENT (self));
  modified = !!modified;
  if (self->modified == modified)
    return;
  self->modified = modified;
  /* Saved, reloaded or undone back to the file: no copy is needed. */
  if (!modified)
    sp_document_autosave_forget (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_MODIFIED]);
}

const char *
sp_document_get_language (SpDocument *self)
{
  g_return_val_if_fail (SP_IS_DOCUMENT (self), NULL);
  return self->language;
}

void
sp_document_set_language (SpDocument *self, const char *language)
{
  g_return_if_fail (SP_IS_DOCUMENT (self));
  if (set_str (&self->language, language))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_LANGUAGE]);
}

static void
emit_disk (SpDocument *self, SpDocumentDiskChange change, GBytes *contents)
{
  g_signal_emit (self, signals[DISK_CHANGED], 0, change, contents);
}

/* Sets the file, notifying "file"; nothing else. */
static void
set_file_only (SpDocument *self, GFile *file)
{
  if (g_set_object (&self->file, file))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_FILE]);
}

static void
stop_watch (SpDocument *self)
{
  if (self->watch == NULL)
    return;
  g_signal_handlers_disconnect_by_data (self->watch, self);
  sp_file_watch_stop (self->watch);
  g_clear_object (&self->watch);
}

static void watch_file (SpDocument *self);

static gboolean
bytes_equal_text (GBytes *bytes, const char *text)
{
  gsize len = 0;
  const char *data = bytes != NULL ? g_bytes_get_data (bytes, &len) : NULL;

  return bytes != NULL && text != NULL && len == strlen (text)
         && (len == 0 || memcmp (data, text, len) == 0);
}

/* What the file holds now, against what we knew and what the editor has. */
static void
on_watch_contents (SpFileWatch *watch, GBytes *contents, SpDocument *self)
{
  g_autofree char *text = sp_document_dup_text (self);
  gsize len = 0;
  const char *data = g_bytes_get_data (contents, &len);

  if (self->disk_text != NULL && g_bytes_equal (contents, self->disk_text))
    {
      g_clear_pointer (&self->pending_disk, g_bytes_unref);
      emit_disk (self, SP_DOCUMENT_DISK_UNCHANGED, contents);
      return;
    }
  if ((self->saving_text != NULL && g_bytes_equal (contents, self->saving_text))
      || bytes_equal_text (contents, text))
    {
      /* The file holds what the editor holds (a save of ours on its way,
       * or the same edit made twice): nothing to reload or ask. */
      set_bytes (&self->disk_text, g_bytes_ref (contents));
      emit_disk (self, SP_DOCUMENT_DISK_SAME_AS_EDITOR, contents);
      return;
    }
  if (!g_utf8_validate (data, (gssize) len, NULL) || memchr (data, '\0', len) != NULL)
    {
      g_clear_pointer (&self->disk_text, g_bytes_unref);
      sp_document_set_modified (self, TRUE);
      emit_disk (self, SP_DOCUMENT_DISK_NOT_TEXT, contents);
      return;
    }
  if (!self->modified)
    emit_disk (self, SP_DOCUMENT_DISK_RELOAD, contents);
  else
    {
      set_bytes (&self->pending_disk, g_bytes_ref (contents));
      emit_disk (self, SP_DOCUMENT_DISK_CONFLICT, contents);
    }
}

/* Renamed within its folder, nothing in its place: followed. */
static void
on_watch_renamed (SpFileWatch *watch, GFile *to, SpDocument *self)
{
  set_file_only (self, to);
  watch_file (self);
  emit_disk (self, SP_DOCUMENT_DISK_RENAMED, NULL);
}

static void
on_watch_gone (SpFileWatch *watch, gboolean moved, SpDocument *self)
{
  g_clear_pointer (&self->disk_text, g_bytes_unref);
  g_clear_pointer (&self->pending_disk, g_bytes_unref);
  /* Nothing on disk holds this text any more: closing asks, autosave
   * keeps a copy. */
  sp_document_set_modified (self, TRUE);
  emit_disk (self, moved ? SP_DOCUMENT_DISK_MOVED : SP_DOCUMENT_DISK_DELETED, NULL);
}

static void
watch_file (SpDocument *self)
{
  stop_watch (self);
  if (self->file == NULL)
    return;
  self->watch = sp_file_watch_new (self->file);
  g_signal_connect_object (self->watch, "contents", G_CALLBACK (on_watch_contents), self, 0);
  g_signal_connect_object (self->watch, "renamed", G_CALLBACK (on_watch_renamed), self, 0);
  g_signal_connect_object (self->watch, "gone", G_CALLBACK (on_watch_gone), self, 0);
}

/* The file and what it holds, watched; nothing said. */
static void
take_file (SpDocument *self, GFile *file, GBytes *contents)
{
  set_file_only (self, file);
  set_bytes (&self->disk_text, contents != NULL ? g_bytes_ref (contents) : NULL);
  g_clear_pointer (&self->pending_disk, g_bytes_unref);
  watch_file (self);
}

void
sp_document_set_file (SpDocument *self, GFile *file, GBytes *contents)
{
  g_return_if_fail (SP_IS_DOCUMENT (self));
  take_file (self, file, contents);
  if (file != NULL && contents != NULL)
    g_signal_emit (self, signals[LOADED], 0);
}

static void
load_ready (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  g_autoptr (GBytes) contents = NULL;
  gsize len = 0;

  if (!g_file_load_contents_finish (G_FILE (object), result, &data, &len, NULL, &error))
    {
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  if (!g_utf8_validate (data, (gssize) len, NULL))
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "%s",
                               _ ("The file is not UTF-8 text"));
      return;
    }
  contents = g_bytes_new_take (g_steal_pointer (&data), len);
  g_task_return_pointer (task, g_steal_pointer (&contents), (GDestroyNotify) g_bytes_unref);
}

void
sp_document_load_async (SpDocument *self, GFile *file, GCancellable *cancellable,
                        GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task;

  g_return_if_fail (SP_IS_DOCUMENT (self));
  g_return_if_fail (G_IS_FILE (file));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sp_document_load_async);
  g_task_set_task_data (task, g_object_ref (file), g_object_unref);
  g_file_load_contents_async (file, cancellable, load_ready, task);
}

GBytes *
sp_document_load_finish (SpDocument *self, GAsyncResult *result, GFile **file, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), NULL);
  if (file != NULL)
    *file = g_object_ref (g_task_get_task_data (G_TASK (result)));
  return g_task_propagate_pointer (G_TASK (result), error);
}

/* ---- saving ---- */

typedef struct
{
  GFile *file;
  GBytes *bytes; /* what was written, so the watch knows our save */
} SaveData;

static void
save_data_free (SaveData *data)
{
  g_clear_object (&data->file);
  g_clear_pointer (&data->bytes, g_bytes_unref);
  g_free (data);
}

static void
save_ready (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  SpDocument *self = g_task_get_source_object (task);
  SaveData *data = g_task_get_task_data (task);
  g_autoptr (GError) error = NULL;

  if (!sp_safe_save_finish (result, &error))
    {
      /* A save that failed wrote nothing: the file holds what it held. */
      g_clear_pointer (&self->saving_text, g_bytes_unref);
      g_task_return_error (task, g_steal_pointer (&error));
      return;
    }
  g_clear_pointer (&self->saving_text, g_bytes_unref);
  /* Save As may have named another file: watch the one saved. */
  take_file (self, data->file, data->bytes);
  sp_document_set_modified (self, FALSE);
  sp_document_autosave_forget (self);
  g_signal_emit (self, signals[SAVED], 0);
  g_task_return_boolean (task, TRUE);
}

void
sp_document_save_async (SpDocument *self, GFile *file, gboolean overwrite,
                        GCancellable *cancellable, GAsyncReadyCallback callback, gpointer user_data)
{
  GTask *task;
  SaveData *data;
  GBytes *expected = NULL;
  char *text;

  g_return_if_fail (SP_IS_DOCUMENT (self));
  g_return_if_fail (file != NULL || self->file != NULL);
  if (file == NULL)
    file = self->file;
  text = sp_document_dup_text (self);
  data = g_new0 (SaveData, 1);
  data->file = g_object_ref (file);
  data->bytes = g_bytes_new_take (text, strlen (text));
  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sp_document_save_async);
  g_task_set_task_data (task, data, (GDestroyNotify) save_data_free);
  /* Another file (Save As) was asked about by the chooser. While a save
   * of ours is on its way the file may hold either text: not checked. */
  if (!overwrite && self->saving_text == NULL && self->file != NULL
      && g_file_equal (file, self->file))
    expected = self->disk_text;
  set_bytes (&self->saving_text, g_bytes_ref (data->bytes));
  sp_safe_save_async (file, data->bytes, expected, cancellable, save_ready, task);
}

gboolean
sp_document_save_finish (SpDocument *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

/* ---- the copy ---- */

const char *
sp_document_get_autosave_id (SpDocument *self)
{
  g_return_val_if_fail (SP_IS_DOCUMENT (self), NULL);
  return self->autosave_id;
}

const char *
sp_document_get_untitled_name (SpDocument *self)
{
  g_return_val_if_fail (SP_IS_DOCUMENT (self), NULL);
  return self->untitled_name;
}

void
sp_document_set_untitled_name (SpDocument *self, const char *name)
{
  g_return_if_fail (SP_IS_DOCUMENT (self));
  set_str (&self->untitled_name, name);
}

static void
set_autosave_failed (SpDocument *self, const char *message)
{
  gboolean failed = message != NULL;

  if (!failed && !self->autosave_failed)
    return;
  self->autosave_failed = failed;
  g_signal_emit (self, signals[AUTOSAVE_STATUS], 0,
                 failed ? SP_DOCUMENT_AUTOSAVE_FAILED : SP_DOCUMENT_AUTOSAVE_OK, message);
}

void
sp_document_autosave_forget (SpDocument *self)
{
  g_autoptr (GError) error = NULL;

  g_return_if_fail (SP_IS_DOCUMENT (self));
  g_clear_handle_id (&self->autosave_timer, g_source_remove);
  if (self->autosave_id != NULL && self->autosave_dir != NULL
      && !sp_autosave_remove (self->autosave_dir, self->autosave_id, &error))
    g_message ("cannot remove the autosave copy: %s", error->message);
  set_autosave_failed (self, NULL);
}

void
sp_document_autosave_now (SpDocument *self)
{
  g_autofree char *text = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;
  SpAutosaveEntry entry = { 0 };

  g_return_if_fail (SP_IS_DOCUMENT (self));
  g_clear_handle_id (&self->autosave_timer, g_source_remove);
  if (!self->modified)
    {
      sp_document_autosave_forget (self);
      return;
    }
  if (self->autosave_dir == NULL)
    {
      /* Say once, when there is first something to lose. */
      if (!self->autosave_off_said)
        {
          self->autosave_off_said = TRUE;
          g_signal_emit (self, signals[AUTOSAVE_STATUS], 0, SP_DOCUMENT_AUTOSAVE_OFF, NULL);
        }
      return;
    }
  if (self->file == NULL && self->untitled_name == NULL)
    g_signal_emit (self, signals[PREPARE_COPY], 0);
  text = sp_document_dup_text (self);
  path = self->file != NULL ? g_file_get_path (self->file) : NULL;
  entry.id = self->autosave_id;
  entry.path = path;
  entry.title = self->untitled_name;
  entry.language = self->language;
  entry.time = g_get_real_time () / G_USEC_PER_SEC;
  entry.text = text;
  entry.length = strlen (text);
  if (!sp_autosave_write (self->autosave_dir, &entry, &error))
    {
      g_message ("autosave: %s", error->message);
      set_autosave_failed (self, error->message);
      return;
    }
  set_autosave_failed (self, NULL);
}

static gboolean
autosave_timeout (gpointer data)
{
  SpDocument *self = data;

  self->autosave_timer = 0;
  sp_document_autosave_now (self);
  return G_SOURCE_REMOVE;
}

void
sp_document_text_changed (SpDocument *self)
{
  g_return_if_fail (SP_IS_DOCUMENT (self));
  if (self->closed)
    return; /* the view is being torn down */
  g_clear_handle_id (&self->autosave_timer, g_source_remove);
  self->autosave_timer = g_timeout_add (AUTOSAVE_DELAY_MS, autosave_timeout, self);
}

void
sp_document_restore (SpDocument *self, const SpAutosaveEntry *entry)
{
  g_return_if_fail (SP_IS_DOCUMENT (self));
  g_return_if_fail (entry != NULL && entry->id != NULL);
  if (entry->path != NULL)
    {
      g_autoptr (GFile) file = g_file_new_for_path (entry->path);
      g_autofree char *contents = NULL;
      g_autoptr (GBytes) bytes = NULL;
      gsize len = 0;

      /* What the file holds now, so a later change on disk is told from
       * the restored text. */
      if (g_file_get_contents (entry->path, &contents, &len, NULL))
        bytes = g_bytes_new_take (g_steal_pointer (&contents), len);
      sp_document_set_file (self, file, bytes);
    }
  if (entry->language != NULL)
    sp_document_set_language (self, entry->language);
  sp_document_set_untitled_name (self, entry->title);
  sp_document_set_modified (self, TRUE);
  /* Only now: the text the view put in may have reported itself as
   * unmodified for a moment, which would remove the copy. */
  set_str (&self->autosave_id, entry->id);
}

void
sp_document_close (SpDocument *self, gboolean discard)
{
  g_return_if_fail (SP_IS_DOCUMENT (self));
  if (self->closed)
    return;
  g_clear_handle_id (&self->autosave_timer, g_source_remove);
  /* A view torn down with unsaved text and no answer (the app killed, the
   * session ending) keeps its copy for the next start. */
  if (!self->modified || discard)
    sp_document_autosave_forget (self);
  else
    sp_document_autosave_now (self);
  self->closed = TRUE;
  self->text_func = NULL;
  self->text_data = NULL;
  stop_watch (self);
}

/* ---- answers ---- */

void
sp_document_reloaded (SpDocument *self, GBytes *contents)
{
  g_return_if_fail (SP_IS_DOCUMENT (self));
  set_bytes (&self->disk_text, g_bytes_ref (contents));
  g_clear_pointer (&self->pending_disk, g_bytes_unref);
  sp_document_set_modified (self, FALSE);
}

GBytes *
sp_document_get_pending (SpDocument *self)
{
  g_return_val_if_fail (SP_IS_DOCUMENT (self), NULL);
  return self->pending_disk;
}

GBytes *
sp_document_take_pending (SpDocument *self)
{
  g_return_val_if_fail (SP_IS_DOCUMENT (self), NULL);
  return g_steal_pointer (&self->pending_disk);
}

void
sp_document_keep_mine (SpDocument *self)
{
  g_return_if_fail (SP_IS_DOCUMENT (self));
  if (self->pending_disk != NULL)
    set_bytes (&self->disk_text, g_steal_pointer (&self->pending_disk));
}

/* ---- where runs belong ---- */

char *
sp_document_dup_history_key (SpDocument *self)
{
  g_return_val_if_fail (SP_IS_DOCUMENT (self), NULL);
  if (self->file != NULL)
    {
      g_autofree char *path = g_file_get_path (self->file);
      g_autofree char *uri = path ? NULL : g_file_get_uri (self->file);
      return sp_run_history_key_for_path (path ? path : uri);
    }
  return sp_run_history_key_for_scratch (self->autosave_id);
}

const char *
sp_document_get_workspace (SpDocument *self)
{
  g_return_val_if_fail (SP_IS_DOCUMENT (self), NULL);
  return self->workspace;
}

gboolean
sp_document_set_workspace (SpDocument *self, const char *folder)
{
  g_autofree char *canonical = NULL;

  g_return_val_if_fail (SP_IS_DOCUMENT (self), FALSE);
  canonical = folder != NULL ? g_canonicalize_filename (folder, NULL) : NULL;
  if (g_strcmp0 (canonical, self->workspace) == 0)
    return FALSE;
  g_free (self->workspace);
  self->workspace = g_steal_pointer (&canonical);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_WORKSPACE]);
  sp_document_environment_changed (self);
  return TRUE;
}

void
sp_document_environment_changed (SpDocument *self)
{
  g_return_if_fail (SP_IS_DOCUMENT (self));
  g_signal_emit (self, signals[ENVIRONMENT_CHANGED], 0);
}

char *
sp_document_dup_folder (SpDocument *self)
{
  g_autoptr (GFile) parent = NULL;

  g_return_val_if_fail (SP_IS_DOCUMENT (self), NULL);
  parent = self->file ? g_file_get_parent (self->file) : NULL;
  if (parent != NULL)
    return g_file_get_path (parent);
  return g_strdup (self->workspace);
}

char *
sp_document_dup_environment (SpDocument *self)
{
  g_autofree char *dir = sp_document_dup_folder (self);

  if (dir == NULL || self->language == NULL)
    return NULL;
  return sp_environment_find (self->language, dir, self->workspace != NULL ? self->workspace : dir);
}

/* ---- GObject ---- */

static void
sp_document_dispose (GObject *object)
{
  SpDocument *self = SP_DOCUMENT (object);

  stop_watch (self);
  g_clear_handle_id (&self->autosave_timer, g_source_remove);
  G_OBJECT_CLASS (sp_document_parent_class)->dispose (object);
}

static void
sp_document_finalize (GObject *object)
{
  SpDocument *self = SP_DOCUMENT (object);

  g_clear_object (&self->file);
  g_clear_pointer (&self->disk_text, g_bytes_unref);
  g_clear_pointer (&self->saving_text, g_bytes_unref);
  g_clear_pointer (&self->pending_disk, g_bytes_unref);
  g_free (self->language);
  g_free (self->workspace);
  g_free (self->autosave_dir);
  g_free (self->autosave_id);
  g_free (self->untitled_name);
  G_OBJECT_CLASS (sp_document_parent_class)->finalize (object);
}

static void
sp_document_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SpDocument *self = SP_DOCUMENT (object);

  switch (prop_id)
    {
    case PROP_FILE:
      g_value_set_object (value, self->file);
      break;
    case PROP_MODIFIED:
      g_value_set_boolean (value, self->modified);
      break;
    case PROP_LANGUAGE:
      g_value_set_string (value, self->language);
      break;
    case PROP_WORKSPACE:
      g_value_set_string (value, self->workspace);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_document_class_init (SpDocumentClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sp_document_dispose;
  object_class->finalize = sp_document_finalize;
  object_class->get_property = sp_document_get_property;

  properties[PROP_FILE] = g_param_spec_object ("file", NULL, NULL, G_TYPE_FILE,
                                               G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY
                                                 | G_PARAM_STATIC_STRINGS);
  properties[PROP_MODIFIED] = g_param_spec_boolean ("modified", NULL, NULL, FALSE,
                                                    G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY
                                                      | G_PARAM_STATIC_STRINGS);
  properties[PROP_LANGUAGE] = g_param_spec_string ("language", NULL, NULL, NULL,
                                                   G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY
                                                     | G_PARAM_STATIC_STRINGS);
  properties[PROP_WORKSPACE] = g_param_spec_string ("workspace", NULL, NULL, NULL,
                                                    G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY
                                                      | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  /* (SpDocumentDiskChange change, GBytes *contents or NULL) */
  signals[DISK_CHANGED] = g_signal_new ("disk-changed", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                        G_TYPE_INT, G_TYPE_BYTES);
  /* The document is a file's now, its text read (load, or a restore of a
   * file's copy). */
  signals[LOADED] = g_signal_new ("loaded", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                  NULL, NULL, G_TYPE_NONE, 0);
  /* The text is on disk, as the document's file (maybe new). */
  signals[SAVED] = g_signal_new ("saved", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                 NULL, NULL, G_TYPE_NONE, 0);
  /* What a run would get may differ: another workspace, a new venv. */
  signals[ENVIRONMENT_CHANGED] = g_signal_new ("environment-changed", G_TYPE_FROM_CLASS (klass),
                                               G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE,
                                               0);
  /* (SpDocumentAutosaveStatus status, const char *message or NULL) */
  signals[AUTOSAVE_STATUS] = g_signal_new ("autosave-status", G_TYPE_FROM_CLASS (klass),
                                           G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 2,
                                           G_TYPE_INT, G_TYPE_STRING);
  /* An untitled buffer's first copy: the view may name it now
   * (sp_document_set_untitled_name), from its place among windows. */
  signals[PREPARE_COPY] = g_signal_new ("prepare-copy", G_TYPE_FROM_CLASS (klass),
                                        G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL, G_TYPE_NONE, 0);
}

static void
sp_document_init (SpDocument *self)
{
  self->autosave_id = sp_autosave_new_id ();
}

SpDocument *
sp_document_new (const char *autosave_dir)
{
  SpDocument *self = g_object_new (SP_TYPE_DOCUMENT, NULL);

  self->autosave_dir = g_strdup (autosave_dir);
  return self;
}
