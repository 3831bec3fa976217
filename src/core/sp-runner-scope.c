/* sp-runner-scope.c: see sp-runner-scope.h. */
#include "config.h"

#include "sp-runner-scope.h"

#define SYSTEMD_NAME "org.freedesktop.systemd1"
#define SYSTEMD_PATH "/org/freedesktop/systemd1"
#define SYSTEMD_MANAGER "org.freedesktop.systemd1.Manager"
/* systemd answers a StartTransientUnit at once (the job runs later);
 * only a stuck bus takes longer. */
#define REQUEST_TIMEOUT_MS 10000

char *
sp_runner_scope_unit_name (GPid pid)
{
  return g_strdup_printf ("sandpad-runner-%d.scope", (int) pid);
}

/* Whether a session bus is there to ask, without starting one: GLib
 * would otherwise autolaunch a dbus-daemon (dbus-launch) where there is
 * none, which a request that may fail quietly must not do. */
static gboolean
have_session_bus (void)
{
  g_autofree char *socket = NULL;

  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") != NULL)
    return TRUE;
  socket = g_build_filename (g_get_user_runtime_dir (), "bus", NULL);
  return g_file_test (socket, G_FILE_TEST_EXISTS);
}

static void
on_reply (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GVariant) reply = NULL;
  GError *error = NULL;

  reply = g_dbus_connection_call_finish (G_DBUS_CONNECTION (source), result, &error);
  if (reply == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_boolean (task, TRUE);
}

static void
on_bus (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  g_autoptr (GDBusConnection) bus = NULL;
  GError *error = NULL;
  GPid pid = GPOINTER_TO_INT (g_task_get_task_data (task));
  GCancellable *cancellable = g_task_get_cancellable (task);
  g_autofree char *unit = sp_runner_scope_unit_name (pid);
  GVariantBuilder props;
  GVariantBuilder pids;

  bus = g_bus_get_finish (result, &error);
  if (bus == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_variant_builder_init (&pids, G_VARIANT_TYPE ("au"));
  g_variant_builder_add (&pids, "u", (guint32) pid);
  g_variant_builder_init (&props, G_VARIANT_TYPE ("a(sv)"));
  g_variant_builder_add (&props, "(sv)", "PIDs", g_variant_builder_end (&pids));
  /* The runner may make groups below the scope: its runs' own. */
  g_variant_builder_add (&props, "(sv)", "Delegate", g_variant_new_boolean (TRUE));
  g_variant_builder_add (&props, "(sv)", "Description", g_variant_new_string ("Sandpad runner"));
  /* No auto-start: a bus without systemd on it has nothing to start. */
  g_dbus_connection_call (bus, SYSTEMD_NAME, SYSTEMD_PATH, SYSTEMD_MANAGER, "StartTransientUnit",
                          g_variant_new ("(ssa(sv)a(sa(sv)))", unit, "fail", &props, NULL),
                          G_VARIANT_TYPE ("(o)"), G_DBUS_CALL_FLAGS_NO_AUTO_START,
                          REQUEST_TIMEOUT_MS, cancellable, on_reply, g_steal_pointer (&task));
}

void
sp_runner_scope_request_async (GPid pid, GCancellable *cancellable, GAsyncReadyCallback callback,
                               gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);

  g_task_set_source_tag (task, sp_runner_scope_request_async);
  g_task_set_task_data (task, GINT_TO_POINTER (pid), NULL);
  if (pid <= 0)
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "no process to move");
      return;
    }
  if (!have_session_bus ())
    {
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_NOT_FOUND, "no session bus");
      return;
    }
  g_bus_get (G_BUS_TYPE_SESSION, cancellable, on_bus, g_steal_pointer (&task));
}

gboolean
sp_runner_scope_request_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}
