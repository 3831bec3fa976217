/* sp-run-on-change.c: Run on Change; see sp-run-on-change.h. */
#define G_LOG_DOMAIN "sp-run-on-change"

#include "config.h"

#include "sp-run-on-change.h"

/* Run on change waits for edits and saves to settle. */
#define RERUN_DELAY_MS 300
#define RERUN_MAX_TRIES 100
/* An assistant's edit_and_execute writes the file, then its run starts and
 * its journal line is written: the line may come a moment after the
 * change, so a rerun for a change on disk waits this many ticks for it. */
#define RERUN_JOURNAL_TRIES 4
/* How long before the change was seen the run may have started (the file
 * monitor's own delay, clocks read in two processes). */
#define RERUN_EDIT_MARGIN_US (3 * G_USEC_PER_SEC)
/* Files remembered for Run on change. */
#define RUN_ON_CHANGE_MAX 200

struct _SpRunOnChange
{
  GObject parent_instance;

  SpDocument *document;
  SpRunController *runs;
  SpRunnerSupervisor *supervisor;
  SpActivityModel *activity;
  GSettings *settings;
  gboolean active;
  guint rerun_id;
  guint tries;
  /* A rerun asked for by a change on disk: from when (Unix µs, less a
   * margin) an assistant's run of the file explains the change; else 0. */
  gint64 disk_since;
};

G_DEFINE_FINAL_TYPE (SpRunOnChange, sp_run_on_change, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_ACTIVE,
  PROP_PENDING,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum
{
  SIGNAL_RUN,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

SpRerunStep
sp_run_on_change_step (guint tick, gboolean running, gboolean ready, gboolean for_disk,
                       gboolean explained)
{
  if (tick > RERUN_MAX_TRIES + 1)
    return SP_RERUN_GIVE_UP;
  /* A run still going is stopped first; the new run starts once it has
   * ended (and once the runner is ready, for a window just opened). */
  if (running)
    return tick == 1 ? SP_RERUN_STOP : SP_RERUN_WAIT;
  if (!ready)
    return SP_RERUN_WAIT;
  if (for_disk)
    {
      /* The change was an assistant's edit_and_execute, whose run the
       * panel shows already: running it again would run it twice. */
      if (explained)
        return SP_RERUN_GIVE_UP;
      if (tick < RERUN_JOURNAL_TRIES)
        return SP_RERUN_WAIT;
    }
  return SP_RERUN_RUN;
}

static char *
file_uri (SpRunOnChange *self)
{
  GFile *file = sp_document_get_file (self->document);

  return file != NULL ? g_file_get_uri (file) : NULL;
}

static gboolean
remembered (SpRunOnChange *self)
{
  g_auto (GStrv) files = g_settings_get_strv (self->settings, "run-on-change-files");
  g_autofree char *uri = file_uri (self);

  return uri != NULL && g_strv_contains ((const char *const *) files, uri);
}

/* The toggle is remembered per file: the list holds the files it is on for. */
static void
remember (SpRunOnChange *self, gboolean on)
{
  g_auto (GStrv) files = g_settings_get_strv (self->settings, "run-on-change-files");
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_autofree char *uri = file_uri (self);
  g_auto (GStrv) result = NULL;
  guint n = g_strv_length (files);

  if (uri == NULL)
    return;
  if (on)
    g_strv_builder_add (builder, uri);
  /* Newest first; the oldest fall off the end. */
  for (guint i = 0, kept = on; i < n && kept < RUN_ON_CHANGE_MAX; i++)
    if (!g_str_equal (files[i], uri))
      {
        g_strv_builder_add (builder, files[i]);
        kept++;
      }
  result = g_strv_builder_end (builder);
  g_settings_set_strv (self->settings, "run-on-change-files", (const char *const *) result);
}

static void
clear_rerun (SpRunOnChange *self)
{
  if (self->rerun_id == 0)
    return;
  g_clear_handle_id (&self->rerun_id, g_source_remove);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
}

static void
set_active (SpRunOnChange *self, gboolean active)
{
  active = !!active;
  if (!active)
    clear_rerun (self);
  if (self->active == active)
    return;
  self->active = active;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ACTIVE]);
}

/* Whether an assistant's edit_and_execute of this file started since the
 * change on disk was seen (less the margin). */
static gboolean
assistant_ran_it (SpRunOnChange *self)
{
  GFile *file = sp_document_get_file (self->document);
  g_autofree char *path = file != NULL ? g_file_get_path (file) : NULL;
  g_autofree char *canonical = path != NULL ? g_canonicalize_filename (path, NULL) : NULL;

  if (canonical == NULL || self->activity == NULL)
    return FALSE;
  /* What the journal got since its monitor last said. */
  sp_activity_model_poll (self->activity);
  return sp_activity_model_find_edit (self->activity, canonical, self->disk_since) != NULL;
}

static gboolean
rerun_tick (gpointer data)
{
  SpRunOnChange *self = data;
  guint tick = ++self->tries;
  gboolean running = sp_run_controller_get_running (self->runs);
  gboolean ready = sp_runner_supervisor_is_ready (self->supervisor);
  gboolean for_disk = self->disk_since != 0;
  /* The journal is read only when the rest would run. */
  gboolean ask = tick <= RERUN_MAX_TRIES + 1 && !running && ready && for_disk;

  switch (sp_run_on_change_step (tick, running, ready, for_disk, ask && assistant_ran_it (self)))
    {
    case SP_RERUN_STOP:
      sp_run_controller_stop (self->runs);
      return G_SOURCE_CONTINUE;
    case SP_RERUN_WAIT:
      return G_SOURCE_CONTINUE;
    case SP_RERUN_GIVE_UP:
      break;
    case SP_RERUN_RUN:
      self->rerun_id = 0;
      self->disk_since = 0;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
      g_signal_emit (self, signals[SIGNAL_RUN], 0);
      return G_SOURCE_REMOVE;
    }
  self->rerun_id = 0;
  self->disk_since = 0;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
  return G_SOURCE_REMOVE;
}

static void
request_rerun (SpRunOnChange *self)
{
  if (!self->active)
    return;
  g_clear_handle_id (&self->rerun_id, g_source_remove);
  self->tries = 0;
  self->disk_since = 0;
  self->rerun_id = g_timeout_add (RERUN_DELAY_MS, rerun_tick, self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PENDING]);
}

void
sp_run_on_change_disk_changed (SpRunOnChange *self)
{
  g_return_if_fail (SP_IS_RUN_ON_CHANGE (self));

  request_rerun (self);
  if (self->rerun_id != 0)
    self->disk_since = g_get_real_time () - RERUN_EDIT_MARGIN_US;
}

/* The document is a file's now: on as remembered for it. */
static void
on_loaded (SpRunOnChange *self)
{
  set_active (self, remembered (self));
}

/* The editor's text is on disk (the document's file, maybe new). */
static void
on_saved (SpRunOnChange *self)
{
  if (self->active)
    remember (self, TRUE);
  request_rerun (self);
}

gboolean
sp_run_on_change_get_active (SpRunOnChange *self)
{
  g_return_val_if_fail (SP_IS_RUN_ON_CHANGE (self), FALSE);
  return self->active;
}

void
sp_run_on_change_set_active (SpRunOnChange *self, gboolean active)
{
  g_return_if_fail (SP_IS_RUN_ON_CHANGE (self));

  set_active (self, active);
  remember (self, active);
}

gboolean
sp_run_on_change_get_pending (SpRunOnChange *self)
{
  g_return_val_if_fail (SP_IS_RUN_ON_CHANGE (self), FALSE);
  return self->rerun_id != 0;
}

SpRunOnChange *
sp_run_on_change_new (SpDocument *document, SpRunController *runs, SpActivityModel *activity,
                      GSettings *settings)
{
  SpRunOnChange *self;

  g_return_val_if_fail (SP_IS_DOCUMENT (document), NULL);
  g_return_val_if_fail (SP_IS_RUN_CONTROLLER (runs), NULL);
  g_return_val_if_fail (activity == NULL || SP_IS_ACTIVITY_MODEL (activity), NULL);
  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  self = g_object_new (SP_TYPE_RUN_ON_CHANGE, NULL);
  self->document = g_object_ref (document);
  self->runs = g_object_ref (runs);
  self->supervisor = g_object_ref (sp_run_controller_get_supervisor (runs));
  self->activity = activity != NULL ? g_object_ref (activity) : NULL;
  self->settings = g_object_ref (settings);
  g_signal_connect_object (document, "loaded", G_CALLBACK (on_loaded), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (document, "saved", G_CALLBACK (on_saved), self, G_CONNECT_SWAPPED);
  return self;
}

static void
sp_run_on_change_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SpRunOnChange *self = SP_RUN_ON_CHANGE (object);

  switch (prop_id)
    {
    case PROP_ACTIVE:
      g_value_set_boolean (value, self->active);
      break;
    case PROP_PENDING:
      g_value_set_boolean (value, self->rerun_id != 0);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_run_on_change_dispose (GObject *object)
{
  SpRunOnChange *self = SP_RUN_ON_CHANGE (object);

  g_clear_handle_id (&self->rerun_id, g_source_remove);
  g_clear_object (&self->document);
  g_clear_object (&self->runs);
  g_clear_object (&self->supervisor);
  g_clear_object (&self->activity);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (sp_run_on_change_parent_class)->dispose (object);
}

static void
sp_run_on_change_class_init (SpRunOnChangeClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->get_property = sp_run_on_change_get_property;
  object_class->dispose = sp_run_on_change_dispose;
  properties[PROP_ACTIVE] = g_param_spec_boolean ("active", NULL, NULL, FALSE,
                                                  G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_PENDING] = g_param_spec_boolean ("pending", NULL, NULL, FALSE,
                                                   G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);
  /* Run the document's file now. */
  signals[SIGNAL_RUN] = g_signal_new ("run", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                      NULL, NULL, G_TYPE_NONE, 0);
}

static void
sp_run_on_change_init (SpRunOnChange *self)
{
}
