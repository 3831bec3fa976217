/* sp-file-watch.c: a file on disk, watched.
 *
 * An assistant (sandpad-mcp's edit_and_execute), another editor or a
 * script may change the file while it is open. Every monitor event only
 * schedules a look at the file a moment later: an atomic replace (write a
 * temporary file, rename it over ours) is a burst of events, and what
 * counts is what the file holds afterwards. What the look found is said
 * as it is; whether it is a change is the watcher's to decide (an
 * SpDocument compares it with what it last knew the file to hold, so its
 * own saves, and a touch that changes nothing, are no change). */
#define G_LOG_DOMAIN "sp-file-watch"

#include "config.h"

#include "sp-file-watch.h"

/* Events come in bursts; the file is read once they stop. */
#define CHECK_DELAY_MS 150

struct _SpFileWatch
{
  GObject parent_instance;

  GFile *file;
  GFileMonitor *monitor;
  GFile *renamed_to;   /* the monitor saw the file renamed to this */
  gboolean moved_away; /* ... or moved out of its folder */
  gboolean gone;       /* "gone" was said */
  GCancellable *cancellable;
  guint check_id;
};

G_DEFINE_FINAL_TYPE (SpFileWatch, sp_file_watch, G_TYPE_OBJECT)

enum
{
  CONTENTS,
  RENAMED,
  GONE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void check_file (SpFileWatch *self);

static gboolean
check_timeout (gpointer data)
{
  SpFileWatch *self = data;

  self->check_id = 0;
  check_file (self);
  return G_SOURCE_REMOVE;
}

static void
on_monitor_changed (GFileMonitor *monitor, GFile *file, GFile *other, GFileMonitorEvent event,
                    SpFileWatch *self)
{
  switch (event)
    {
    case G_FILE_MONITOR_EVENT_RENAMED:
      /* Ours renamed to other; or another file renamed onto ours (an
       * atomic replace), which is a change like any other. Whether a
       * rename is a move or the first half of a replace (some editors
       * rename the old file to a backup, then write a new one) shows
       * once the burst is over. */
      if (g_file_equal (file, self->file) && other != NULL)
        g_set_object (&self->renamed_to, other);
      break;
    case G_FILE_MONITOR_EVENT_MOVED_OUT:
      /* Into a folder the monitor does not watch: gone from here, and
       * said as moved rather than deleted. */
      if (g_file_equal (file, self->file))
        self->moved_away = TRUE;
      break;
    case G_FILE_MONITOR_EVENT_ATTRIBUTE_CHANGED:
    case G_FILE_MONITOR_EVENT_PRE_UNMOUNT:
    case G_FILE_MONITOR_EVENT_UNMOUNTED:
      return;
    default:
      break;
    }
  g_clear_handle_id (&self->check_id, g_source_remove);
  self->check_id = g_timeout_add (CHECK_DELAY_MS, check_timeout, self);
}

/* The file is gone from where it was: renamed within its folder and
 * nothing took its place (followed), else deleted or moved away. */
static void
file_missing (SpFileWatch *self)
{
  if (self->renamed_to != NULL && g_file_query_exists (self->renamed_to, NULL))
    {
      g_autoptr (GFile) to = g_steal_pointer (&self->renamed_to);

      g_signal_emit (self, signals[RENAMED], 0, to);
      return;
    }
  if (self->gone)
    return;
  self->gone = TRUE;
  g_signal_emit (self, signals[GONE], 0, self->renamed_to != NULL || self->moved_away);
}

static void
check_ready (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpFileWatch) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *data = NULL;
  g_autoptr (GBytes) contents = NULL;
  gsize len = 0;

  if (!g_file_load_contents_finish (G_FILE (object), result, &data, &len, NULL, &error))
    {
      if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
        return;
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND))
        g_debug ("cannot read the changed file: %s", error->message);
      else
        file_missing (self);
      return;
    }
  g_clear_object (&self->renamed_to);
  self->moved_away = FALSE;
  self->gone = FALSE;
  contents = g_bytes_new_take (g_steal_pointer (&data), len);
  g_signal_emit (self, signals[CONTENTS], 0, contents);
}

static void
check_file (SpFileWatch *self)
{
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  self->cancellable = g_cancellable_new ();
  g_file_load_contents_async (self->file, self->cancellable, check_ready, g_object_ref (self));
}

SpFileWatch *
sp_file_watch_new (GFile *file)
{
  g_autoptr (GError) error = NULL;
  SpFileWatch *self;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  self = g_object_new (SP_TYPE_FILE_WATCH, NULL);
  self->file = g_object_ref (file);
  /* WATCH_MOVES: a rename is reported as one, with both names, so a
   * rename of our file can be followed and a replace by rename seen. */
  self->monitor = g_file_monitor_file (file, G_FILE_MONITOR_WATCH_MOVES, NULL, &error);
  if (self->monitor == NULL)
    g_debug ("cannot watch the file: %s", error->message);
  else
    g_signal_connect_object (self->monitor, "changed", G_CALLBACK (on_monitor_changed), self, 0);
  return self;
}

GFile *
sp_file_watch_get_file (SpFileWatch *self)
{
  g_return_val_if_fail (SP_IS_FILE_WATCH (self), NULL);
  return self->file;
}

void
sp_file_watch_stop (SpFileWatch *self)
{
  g_return_if_fail (SP_IS_FILE_WATCH (self));
  if (self->monitor != NULL)
    {
      g_signal_handlers_disconnect_by_data (self->monitor, self);
      g_file_monitor_cancel (self->monitor);
      g_clear_object (&self->monitor);
    }
  if (self->cancellable != NULL)
    g_cancellable_cancel (self->cancellable);
  g_clear_object (&self->cancellable);
  g_clear_handle_id (&self->check_id, g_source_remove);
}

static void
sp_file_watch_dispose (GObject *object)
{
  SpFileWatch *self = SP_FILE_WATCH (object);

  sp_file_watch_stop (self);
  G_OBJECT_CLASS (sp_file_watch_parent_class)->dispose (object);
}

static void
sp_file_watch_finalize (GObject *object)
{
  SpFileWatch *self = SP_FILE_WATCH (object);

  g_clear_object (&self->file);
  g_clear_object (&self->renamed_to);
  G_OBJECT_CLASS (sp_file_watch_parent_class)->finalize (object);
}

static void
sp_file_watch_class_init (SpFileWatchClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->dispose = sp_file_watch_dispose;
  object_class->finalize = sp_file_watch_finalize;

  signals[CONTENTS] = g_signal_new ("contents", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BYTES);
  signals[RENAMED] = g_signal_new ("renamed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                   NULL, NULL, G_TYPE_NONE, 1, G_TYPE_FILE);
  signals[GONE] = g_signal_new ("gone", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL,
                                NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
}

static void
sp_file_watch_init (SpFileWatch *self)
{
}
