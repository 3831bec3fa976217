/* sp-activity-model.c: assistants' runs, followed live from the journal.
 *
 * The journal is plain C's JSON (jansson, as the protocol library that
 * core links already uses); nothing of it shows in the header. */
#define G_LOG_DOMAIN "sp-activity"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <jansson.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sp-activity-model.h"

struct _SpActivityModel
{
  GObject parent_instance;
  char *dir;
  GPtrArray *runs;     /* of SpActivityRun, oldest first */
  GHashTable *by_id;   /* id -> run (borrowed from runs) */
  GFileMonitor *monitor;
  guint poll_id;
  /* Where we are in live.jsonl: which file (inode) and how far. */
  guint64 inode;
  guint64 offset;
  GString *partial;    /* the start of a line whose newline has not come */
  gboolean discarding; /* inside an overlong line, until its newline */
  guint skipped;
};

enum
{
  RUN_ADDED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

static void list_model_iface_init (GListModelInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE (SpActivityModel, sp_activity_model, G_TYPE_OBJECT,
                               G_IMPLEMENT_INTERFACE (G_TYPE_LIST_MODEL, list_model_iface_init))

static GType
get_item_type (GListModel *model)
{
  return SP_TYPE_ACTIVITY_RUN;
}

static guint
get_n_items (GListModel *model)
{
  return SP_ACTIVITY_MODEL (model)->runs->len;
}

static gpointer
get_item (GListModel *model, guint position)
{
  SpActivityModel *self = SP_ACTIVITY_MODEL (model);

  if (position >= self->runs->len)
    return NULL;
  return g_object_ref (g_ptr_array_index (self->runs, position));
}

static void
list_model_iface_init (GListModelInterface *iface)
{
  iface->get_item_type = get_item_type;
  iface->get_n_items = get_n_items;
  iface->get_item = get_item;
}

static void
sp_activity_model_dispose (GObject *object)
{
  SpActivityModel *self = SP_ACTIVITY_MODEL (object);

  if (self->monitor != NULL)
    g_file_monitor_cancel (self->monitor);
  g_clear_object (&self->monitor);
  g_clear_handle_id (&self->poll_id, g_source_remove);
  G_OBJECT_CLASS (sp_activity_model_parent_class)->dispose (object);
}

static void
sp_activity_model_finalize (GObject *object)
{
  SpActivityModel *self = SP_ACTIVITY_MODEL (object);

  g_free (self->dir);
  g_hash_table_unref (self->by_id);
  g_ptr_array_unref (self->runs);
  g_string_free (self->partial, TRUE);
  G_OBJECT_CLASS (sp_activity_model_parent_class)->finalize (object);
}

static void
sp_activity_model_class_init (SpActivityModelClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sp_activity_model_dispose;
  G_OBJECT_CLASS (klass)->finalize = sp_activity_model_finalize;
  signals[RUN_ADDED] = g_signal_new ("run-added", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL, NULL, G_TYPE_NONE, 1, SP_TYPE_ACTIVITY_RUN);
}

static void
sp_activity_model_init (SpActivityModel *self)
{
  self->runs = g_ptr_array_new_with_free_func (g_object_unref);
  self->by_id = g_hash_table_new (g_str_hash, g_str_equal);
  self->partial = g_string_new (NULL);
}

/* ---- the runs ---- */

static void
drop_oldest_ended (SpActivityModel *self)
{
  for (guint i = 0; i < self->runs->len; i++)
    {
      SpActivityRun *run = g_ptr_array_index (self->runs, i);

      if (sp_activity_run_is_running (run))
        continue;
      g_hash_table_remove (self->by_id, sp_activity_run_get_id (run));
      g_ptr_array_remove_index (self->runs, i);
      g_list_model_items_changed (G_LIST_MODEL (self), i, 1, 0);
      return;
    }
}

static SpActivityRun *
get_run (SpActivityModel *self, const char *id)
{
  SpActivityRun *run = g_hash_table_lookup (self->by_id, id);

  if (run != NULL)
    return run;
  run = _sp_activity_run_new (id);
  g_ptr_array_add (self->runs, run);
  g_hash_table_insert (self->by_id, (gpointer) sp_activity_run_get_id (run), run);
  g_list_model_items_changed (G_LIST_MODEL (self), self->runs->len - 1, 0, 1);
  g_signal_emit (self, signals[RUN_ADDED], 0, run);
  if (self->runs->len > SP_ACTIVITY_MAX_RUNS)
    drop_oldest_ended (self);
  return run;
}

static const char *
str (json_t *obj, const char *key)
{
  return json_string_value (json_object_get (obj, key));
}

/* What the start (or, for a run whose start we missed, the end) line says
 * was run. */
static void
apply_start (SpActivityRun *run, json_t *line)
{
  json_t *input = json_object_get (line, "input");
  const char *tool = str (line, "tool");
  const char *workspace = str (line, "workspace");
  const char *path = str (input, "path");
  const char *source = str (input, "code");
  g_autofree char *file = NULL;

  if (source == NULL)
    source = str (input, "command");
  if (source == NULL)
    source = path;
  if (g_strcmp0 (tool, "edit_and_execute") == 0 && path != NULL && workspace != NULL)
    file = g_path_is_absolute (path) ? g_canonicalize_filename (path, NULL)
                                     : g_canonicalize_filename (path, workspace);
  _sp_activity_run_set_start (run, tool, str (input, "language"), source, file, workspace,
                              str (line, "time"),
                              (gint) json_integer_value (json_object_get (line, "server_pid")));
}

static void
apply_end (SpActivityRun *run, json_t *line)
{
  json_t *error = json_object_get (line, "error");
  json_t *files = json_object_get (line, "files");
  json_t *code = json_object_get (line, "exit_code");
  g_autoptr (GStrvBuilder) names = g_strv_builder_new ();
  g_auto (GStrv) file_names = NULL;
  g_autofree char *error_text = NULL;
  size_t i;
  json_t *f;

  if (sp_activity_run_get_tool (run) == NULL)
    apply_start (run, line);
  if (json_is_object (error))
    error_text = g_strdup_printf ("%s: %s", str (error, "type") ? str (error, "type") : "Error",
                                  str (error, "message") ? str (error, "message") : "");
  json_array_foreach (files, i, f)
    if (str (f, "path") != NULL)
      g_strv_builder_add (names, str (f, "path"));
  file_names = g_strv_builder_end (names);
  _sp_activity_run_set_end (run, str (line, "end") ? str (line, "end") : "failed",
                            json_is_integer (code) ? (int) json_integer_value (code) : -1,
                            json_integer_value (json_object_get (line, "duration_ms")),
                            error_text, str (line, "diff"), (const char *const *) file_names,
                            str (line, "stdout"), str (line, "stderr"));
}

static void
skip (SpActivityModel *self, const char *why)
{
  self->skipped++;
  g_message ("Skipped a line of %s/live.jsonl: %s", self->dir, why);
}

static void
handle_line (SpActivityModel *self, const char *text, gsize len)
{
  json_error_t jerr;
  json_t *line = json_loadb (text, len, JSON_REJECT_DUPLICATES, &jerr);
  const char *event, *id;
  SpActivityRun *run;

  if (line == NULL)
    {
      skip (self, jerr.text);
      return;
    }
  event = str (line, "event");
  id = str (line, "run");
  if (!json_is_object (line) || event == NULL || id == NULL)
    skip (self, "not a live journal line");
  else if (g_str_equal (event, "start"))
    apply_start (get_run (self, id), line);
  else if (g_str_equal (event, "output") && str (line, "text") != NULL)
    {
      run = get_run (self, id);
      if (sp_activity_run_is_running (run))
        _sp_activity_run_add_output (run, g_strcmp0 (str (line, "stream"), "stderr") == 0,
                                     str (line, "text"));
    }
  else if (g_str_equal (event, "end"))
    apply_end (get_run (self, id), line);
  /* other events: from a newer sandpad-mcp, not for us */
  json_decref (line);
}

/* Splits data into lines; a line's start waits in partial for its end. */
static void
feed (SpActivityModel *self, const char *data, gsize len)
{
  while (len > 0)
    {
      const char *nl = memchr (data, '\n', len);
      gsize take = nl ? (gsize) (nl - data) : len;

      if (!self->discarding)
        {
          if (self->partial->len + take > SP_ACTIVITY_LINE_MAX)
            {
              skip (self, "the line is too long");
              g_string_truncate (self->partial, 0);
              self->discarding = TRUE;
            }
          else
            g_string_append_len (self->partial, data, (gssize) take);
        }
      if (nl == NULL)
        return;
      if (!self->discarding && self->partial->len > 0)
        handle_line (self, self->partial->str, self->partial->len);
      g_string_truncate (self->partial, 0);
      self->discarding = FALSE;
      data = nl + 1;
      len -= take + 1;
    }
}

/* Reads fd from *offset to its end. */
static void
read_rest (SpActivityModel *self, int fd, guint64 *offset)
{
  char buf[65536];
  ssize_t n;

  if (lseek (fd, (off_t) *offset, SEEK_SET) < 0)
    return;
  while ((n = read (fd, buf, sizeof buf)) > 0)
    {
      feed (self, buf, (gsize) n);
      *offset += (guint64) n;
    }
}

/* live.jsonl was renamed away: what it got after our last read is in
 * live.1.jsonl, if that is still the same file. */
static void
finish_rotated (SpActivityModel *self)
{
  g_autofree char *old = g_build_filename (self->dir, "live.1.jsonl", NULL);
  int fd = g_open (old, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
  GStatBuf st;

  if (fd >= 0 && fstat (fd, &st) == 0 && (guint64) st.st_ino == self->inode)
    read_rest (self, fd, &self->offset);
  if (fd >= 0)
    close (fd);
  /* A cut line at the end of a finished file is no line. */
  g_string_truncate (self->partial, 0);
  self->discarding = FALSE;
  self->inode = 0;
  self->offset = 0;
}

/* Runs whose server went away without an end line never get one. */
static void
mark_lost (SpActivityModel *self)
{
  for (guint i = 0; i < self->runs->len; i++)
    {
      SpActivityRun *run = g_ptr_array_index (self->runs, i);
      gint pid = _sp_activity_run_get_pid (run);

      if (sp_activity_run_is_running (run) && pid > 0 && kill (pid, 0) != 0 && errno == ESRCH)
        _sp_activity_run_set_end (run, "lost", -1, 0, NULL, NULL, NULL, NULL, NULL);
    }
}

void
sp_activity_model_poll (SpActivityModel *self)
{
  g_autofree char *path = NULL;
  GStatBuf st;
  int fd;

  g_return_if_fail (SP_IS_ACTIVITY_MODEL (self));
  path = g_build_filename (self->dir, "live.jsonl", NULL);
  fd = g_open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW, 0);
  if (fd < 0 || fstat (fd, &st) != 0 || !S_ISREG (st.st_mode))
    {
      if (self->inode != 0)
        finish_rotated (self);
    }
  else
    {
      if (self->inode != 0 && (guint64) st.st_ino != self->inode)
        finish_rotated (self);
      else if ((guint64) st.st_size < self->offset)
        {
          /* cut in place (not what sandpad-mcp does): start over */
          self->offset = 0;
          g_string_truncate (self->partial, 0);
        }
      self->inode = (guint64) st.st_ino;
      read_rest (self, fd, &self->offset);
    }
  if (fd >= 0)
    close (fd);
  mark_lost (self);
}

static gboolean
poll_idle (gpointer data)
{
  SpActivityModel *self = data;

  self->poll_id = 0;
  sp_activity_model_poll (self);
  return G_SOURCE_REMOVE;
}

static void
on_changed (GFileMonitor *monitor, GFile *file, GFile *other, GFileMonitorEvent event,
            SpActivityModel *self)
{
  /* A burst of writes is read once. */
  if (self->poll_id == 0)
    self->poll_id = g_idle_add (poll_idle, self);
}

SpActivityModel *
sp_activity_model_new (const char *dir)
{
  SpActivityModel *self = g_object_new (SP_TYPE_ACTIVITY_MODEL, NULL);
  g_autoptr (GFile) folder = NULL;
  g_autoptr (GError) error = NULL;

  self->dir = dir != NULL ? g_strdup (dir)
                          : g_build_filename (g_get_user_state_dir (), "sandpad", "journal", NULL);
  /* As sandpad-mcp would make it: the user's own. */
  g_mkdir_with_parents (self->dir, 0700);
  folder = g_file_new_for_path (self->dir);
  self->monitor = g_file_monitor_directory (folder, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (self->monitor == NULL)
    g_message ("Cannot follow the run journal in %s: %s", self->dir, error->message);
  else
    g_signal_connect_object (self->monitor, "changed", G_CALLBACK (on_changed), self, 0);
  sp_activity_model_poll (self);
  return self;
}

const char *
sp_activity_model_get_dir (SpActivityModel *self)
{
  g_return_val_if_fail (SP_IS_ACTIVITY_MODEL (self), NULL);
  return self->dir;
}

SpActivityRun *
sp_activity_model_find (SpActivityModel *self, const char *id)
{
  g_return_val_if_fail (SP_IS_ACTIVITY_MODEL (self), NULL);
  return g_hash_table_lookup (self->by_id, id);
}

guint
sp_activity_model_get_skipped (SpActivityModel *self)
{
  g_return_val_if_fail (SP_IS_ACTIVITY_MODEL (self), 0);
  return self->skipped;
}

static gboolean
is_run_id (const char *id)
{
  if (id == NULL || !g_ascii_isdigit (*id))
    return FALSE;
  for (const char *p = id; *p != '\0'; p++)
    if (!g_ascii_isalnum (*p) && *p != '-' && *p != '_')
      return FALSE;
  return strlen (id) < 64;
}

gboolean
sp_activity_model_request_stop (SpActivityModel *self, const char *id, GError **error)
{
  SpActivityRun *run;
  g_autofree char *cancel_dir = NULL;
  g_autofree char *path = NULL;

  g_return_val_if_fail (SP_IS_ACTIVITY_MODEL (self), FALSE);
  run = sp_activity_model_find (self, id);
  /* The id becomes a file name: only what sandpad-mcp makes. */
  if (run == NULL || !is_run_id (id) || !sp_activity_run_is_running (run))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _("This run is not going"));
      return FALSE;
    }
  cancel_dir = g_build_filename (self->dir, "cancel", NULL);
  if (g_mkdir_with_parents (cancel_dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved), _("Could not ask to stop: %s"),
                   g_strerror (saved));
      return FALSE;
    }
  path = g_build_filename (cancel_dir, id, NULL);
  return g_file_set_contents_full (path, "", 0, G_FILE_SET_CONTENTS_NONE, 0600, error);
}
