/* sp-activity-model.c: assistants' runs, followed live from the journal.
 *
 * Each line is read by the journal's strict decoder in the protocol
 * library (sp-journal.h; docs/journal.md is the format); nothing of it
 * shows in the header. */
#define G_LOG_DOMAIN "sp-activity"

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gi18n-lib.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "sp-activity-model.h"
#include "sp-journal.h"

G_STATIC_ASSERT (SP_ACTIVITY_LINE_MAX == SP_JOURNAL_LINE_MAX);

struct _SpActivityModel
{
  GObject parent_instance;
  char *dir;
  GPtrArray *runs;   /* of SpActivityRun, oldest first */
  GHashTable *by_id; /* id -> run (borrowed from runs) */
  GFileMonitor *monitor;
  guint poll_id;
  guint lost_id;      /* while runs go: is their server still there? */
  gboolean pids_seen; /* the servers' pids mean something here */
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
  g_clear_handle_id (&self->lost_id, g_source_remove);
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

/* What the start (or, for a run whose start we missed, the end) line says
 * was run. */
/* edit_and_execute's journal names a file, not a language: sandpad-mcp
 * tells it by the extension, as the runner's languages say (python: py;
 * javascript: js, mjs, cjs; bash: sh, bash). */
static const char *
language_of_path (const char *path)
{
  static const char *const by_ext[][2] = { { ".py", "python" },      { ".js", "javascript" },
                                           { ".mjs", "javascript" }, { ".cjs", "javascript" },
                                           { ".sh", "bash" },        { ".bash", "bash" } };

  for (guint i = 0; path != NULL && i < G_N_ELEMENTS (by_ext); i++)
    if (g_str_has_suffix (path, by_ext[i][0]))
      return by_ext[i][1];
  return NULL;
}

static void
apply_start (SpActivityRun *run, const SpJournalLine *line)
{
  const char *source = line->code;
  const char *language = line->language;
  g_autofree char *file = NULL;

  if (source == NULL)
    source = line->command;
  if (source == NULL)
    source = line->path;
  if (g_strcmp0 (line->tool, "edit_and_execute") == 0 && line->path != NULL
      && line->workspace != NULL)
    file = g_path_is_absolute (line->path) ? g_canonicalize_filename (line->path, NULL)
                                           : g_canonicalize_filename (line->path, line->workspace);
  if (language == NULL && g_strcmp0 (line->tool, "edit_and_execute") == 0)
    language = language_of_path (line->path);
  _sp_activity_run_set_start (run, line->tool, language, source, file, line->workspace, line->time,
                              (gint) line->server_pid);
}

static void
apply_end (SpActivityRun *run, const SpJournalLine *line)
{
  g_autofree char *error_text = NULL;

  if (sp_activity_run_get_tool (run) == NULL)
    apply_start (run, line);
  if (line->error_type != NULL)
    error_text = g_strdup_printf ("%s: %s", line->error_type, line->error_message);
  _sp_activity_run_set_end (run, line->end, line->has_exit_code ? (int) line->exit_code : -1,
                            line->duration_ms, error_text, line->diff,
                            (const char *const *) line->files, line->stdout_text,
                            line->stderr_text);
}

static void
skip (SpActivityModel *self, const char *why)
{
  self->skipped++;
  g_message ("Skipped a line of %s/live.jsonl: %s", self->dir, why);
}

/* The line is decoded strictly (src/protocol/sp-journal.c): one that
 * sandpad-mcp would not write, or a newer one's, is skipped with its
 * reason rather than half understood. */
static void
handle_line (SpActivityModel *self, const char *text, gsize len)
{
  SpJournalLine line;
  SpProtoError err = { 0 };
  SpActivityRun *run;

  if (sp_journal_decode (text, len, SP_JOURNAL_LIVE, &line, &err) != 0)
    {
      skip (self, err.message);
      return;
    }
  run = get_run (self, line.run);
  switch (line.event)
    {
    case SP_JOURNAL_START:
      apply_start (run, &line);
      break;
    case SP_JOURNAL_OUTPUT:
      if (sp_activity_run_is_running (run))
        _sp_activity_run_add_output (run, line.is_stderr, line.text);
      break;
    case SP_JOURNAL_END:
      apply_end (run, &line);
      break;
    }
  sp_journal_line_clear (&line);
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

/* Runs whose server went away without an end line (killed, say) never
 * get one. Returns whether runs are still going. */
static gboolean
mark_lost (SpActivityModel *self)
{
  gboolean going = FALSE;

  for (guint i = 0; i < self->runs->len; i++)
    {
      SpActivityRun *run = g_ptr_array_index (self->runs, i);
      gint pid = _sp_activity_run_get_pid (run);

      if (self->pids_seen && sp_activity_run_is_running (run) && pid > 0 && kill (pid, 0) != 0
          && errno == ESRCH)
        _sp_activity_run_set_end (run, "lost", -1, 0, NULL, NULL, NULL, NULL, NULL);
      going = going || sp_activity_run_is_running (run);
    }
  return going && self->pids_seen;
}

/* A killed server writes nothing more, so nothing would wake us: look
 * again every few seconds while runs go. */
static gboolean
check_lost (gpointer data)
{
  SpActivityModel *self = data;

  if (mark_lost (self))
    return G_SOURCE_CONTINUE;
  self->lost_id = 0;
  return G_SOURCE_REMOVE;
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
  if (mark_lost (self) && self->lost_id == 0)
    self->lost_id = g_timeout_add_seconds (2, check_lost, self);
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
  /* In a Flatpak the app has a process namespace of its own, where the
   * servers' (host) pids name nothing: no run could be told lost. */
  self->pids_seen = !g_file_test ("/.flatpak-info", G_FILE_TEST_EXISTS);
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

SpActivityRun *
sp_activity_model_find_edit (SpActivityModel *self, const char *file, gint64 since_us)
{
  g_return_val_if_fail (SP_IS_ACTIVITY_MODEL (self), NULL);
  g_return_val_if_fail (file != NULL, NULL);

  for (guint i = self->runs->len; i-- > 0;)
    {
      SpActivityRun *run = self->runs->pdata[i];
      g_autoptr (GDateTime) time = NULL;

      if (g_strcmp0 (sp_activity_run_get_tool (run), "edit_and_execute") != 0
          || g_strcmp0 (sp_activity_run_get_file (run), file) != 0
          || sp_activity_run_get_time (run) == NULL)
        continue;
      time = g_date_time_new_from_iso8601 (sp_activity_run_get_time (run), NULL);
      if (time != NULL
          && g_date_time_to_unix (time) * G_USEC_PER_SEC + g_date_time_get_microsecond (time)
               >= since_us)
        return run;
    }
  return NULL;
}

guint
sp_activity_model_get_skipped (SpActivityModel *self)
{
  g_return_val_if_fail (SP_IS_ACTIVITY_MODEL (self), 0);
  return self->skipped;
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
  if (run == NULL || !sp_journal_run_valid (id) || !sp_activity_run_is_running (run))
    {
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, _ ("This run is not going"));
      return FALSE;
    }
  cancel_dir = g_build_filename (self->dir, "cancel", NULL);
  if (g_mkdir_with_parents (cancel_dir, 0700) != 0)
    {
      int saved = errno;
      g_set_error (error, G_IO_ERROR, g_io_error_from_errno (saved),
                   _ ("Could not ask to stop: %s"), g_strerror (saved));
      return FALSE;
    }
  path = g_build_filename (cancel_dir, id, NULL);
  return g_file_set_contents_full (path, "", 0, G_FILE_SET_CONTENTS_NONE, 0600, error);
}
