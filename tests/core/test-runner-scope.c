/* test-runner-scope.c: the app asks the user's systemd for a delegated
 * scope for its runner (sp-runner-scope.c), and goes on without one when
 * there is no one to ask or it refuses. Run on a private session bus of
 * its own (dbus-run-session, no systemd on it): where there is no user
 * manager the request fails at once, with the reason, and the runner
 * still starts; a stand-in that owns systemd's name on that bus shows
 * what the app asks for (the runner's pid, Delegate) and that a refusal
 * is survived too. systemd itself moving the runner is not tested here:
 * this machine has none (tests/runner/test-memory.py cgroup_v2_* run the
 * runner in a real delegated scope where there is one). */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "sp-runner-scope.h"
#include "sp-test-client.h"

typedef struct
{
  gboolean done;
  gboolean ok;
  GError *error;
} Outcome;

static void
on_done (GObject *source, GAsyncResult *result, gpointer data)
{
  Outcome *o = data;

  o->ok = sp_runner_scope_request_finish (result, &o->error);
  o->done = TRUE;
}

static gboolean
outcome_done (gpointer data)
{
  return ((Outcome *) data)->done;
}

/* No session bus at all: refused at once, and no bus is started for it
 * (GLib would autolaunch one). */
static void
test_no_bus (void)
{
  g_autofree char *address = g_strdup (g_getenv ("DBUS_SESSION_BUS_ADDRESS"));
  Outcome o = { 0 };

  g_unsetenv ("DBUS_SESSION_BUS_ADDRESS");
  sp_runner_scope_request_async (getpid (), NULL, on_done, &o);
  g_assert_false (o.done); /* the answer comes from the main loop, never inline */
  g_assert_true (sp_test_wait_for (outcome_done, &o, 5000));
  g_assert_false (o.ok);
  g_assert_error (o.error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&o.error);
  if (address != NULL)
    g_setenv ("DBUS_SESSION_BUS_ADDRESS", address, TRUE);
}

/* A session bus without a user manager on it: fails with the bus's
 * reason, nothing started (no auto-start), the caller never blocked. */
static void
test_no_user_manager (void)
{
  Outcome o = { 0 };

  sp_runner_scope_request_async (getpid (), NULL, on_done, &o);
  g_assert_false (o.done);
  g_assert_true (sp_test_wait_for (outcome_done, &o, 10000));
  g_assert_false (o.ok);
  g_assert_error (o.error, G_DBUS_ERROR, G_DBUS_ERROR_NAME_HAS_NO_OWNER);
  g_clear_error (&o.error);
}

/* The runner, started by the client as the app starts it, comes up as
 * before on a bus without a user manager. */
static void
test_client_without_manager (void)
{
  Started started;
  SpRunnerClient *client = client_start (g_getenv ("SANDPAD_RUNNER"), NULL, 0, &started);

  g_assert_true (sp_test_wait_for (start_done, &started, 15000));
  g_assert_no_error (started.error);
  g_assert_true (started.ok);
  g_assert_true (sp_runner_client_is_ready (client));
  sp_runner_client_stop (client);
  finalize_when_idle (client);
}

/* A stand-in for systemd's manager on the private bus: records each
 * StartTransientUnit and answers it, or refuses as systemd does. */
typedef struct
{
  gboolean refuse;
  guint calls;
  char *unit;
  char *mode;
  GPid pid;
  gboolean delegate;
} StandIn;

static void
stand_in_call (GDBusConnection *connection, const char *sender, const char *path,
               const char *interface, const char *method, GVariant *params,
               GDBusMethodInvocation *invocation, gpointer data)
{
  StandIn *s = data;
  g_autoptr (GVariantIter) props = NULL;
  const char *name;
  GVariant *value;

  g_variant_get (params, "(ssa(sv)a(sa(sv)))", &s->unit, &s->mode, &props, NULL);
  while (g_variant_iter_loop (props, "(&sv)", &name, &value))
    if (strcmp (name, "PIDs") == 0 && g_variant_n_children (value) == 1)
      g_variant_get_child (value, 0, "u", &s->pid);
    else if (strcmp (name, "Delegate") == 0)
      s->delegate = g_variant_get_boolean (value);
  s->calls++;
  if (s->refuse)
    g_dbus_method_invocation_return_dbus_error (invocation,
                                                "org.freedesktop.DBus.Error.AccessDenied",
                                                "not for you");
  else
    g_dbus_method_invocation_return_value (invocation,
                                           g_variant_new ("(o)",
                                                          "/org/freedesktop/systemd1/job/1"));
}

static const char stand_in_xml[]
  = "<node><interface name='org.freedesktop.systemd1.Manager'>"
    "<method name='StartTransientUnit'><arg type='s' direction='in'/>"
    "<arg type='s' direction='in'/><arg type='a(sv)' direction='in'/>"
    "<arg type='a(sa(sv))' direction='in'/><arg type='o' direction='out'/></method>"
    "</interface></node>";

static void
on_acquired (GDBusConnection *c, const char *name, gpointer data)
{
  *(gboolean *) data = TRUE;
}

static gboolean
flag_set (gpointer data)
{
  return *(gboolean *) data;
}

static gboolean
has_call (gpointer data)
{
  return ((StandIn *) data)->calls > 0;
}

/* Owns systemd's name on a connection of its own; returns it. */
static GDBusConnection *
stand_in_start (StandIn *s, guint *owner, guint *object)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GDBusNodeInfo) info = g_dbus_node_info_new_for_xml (stand_in_xml, &error);
  g_autofree char *address = g_dbus_address_get_for_bus_sync (G_BUS_TYPE_SESSION, NULL, &error);
  static const GDBusInterfaceVTable vtable = { stand_in_call, NULL, NULL, { 0 } };
  GDBusConnection *c;
  gboolean acquired = FALSE;

  g_assert_no_error (error);
  c = g_dbus_connection_new_for_address_sync (address,
                                              G_DBUS_CONNECTION_FLAGS_AUTHENTICATION_CLIENT
                                                | G_DBUS_CONNECTION_FLAGS_MESSAGE_BUS_CONNECTION,
                                              NULL, NULL, &error);
  g_assert_no_error (error);
  *object = g_dbus_connection_register_object (c, "/org/freedesktop/systemd1", info->interfaces[0],
                                               &vtable, s, NULL, &error);
  g_assert_no_error (error);
  *owner = g_bus_own_name_on_connection (c, "org.freedesktop.systemd1", G_BUS_NAME_OWNER_FLAGS_NONE,
                                         on_acquired, NULL, &acquired, NULL);
  g_assert_true (sp_test_wait_for (flag_set, &acquired, 10000));
  return c;
}

static void
stand_in_stop (GDBusConnection *c, guint owner, guint object, StandIn *s)
{
  g_bus_unown_name (owner);
  g_dbus_connection_unregister_object (c, object);
  g_dbus_connection_close_sync (c, NULL, NULL);
  g_object_unref (c);
  g_free (s->unit);
  g_free (s->mode);
}

/* What the app asks for: a scope named for the pid, mode fail, that pid,
 * delegated. A refusal is an error for the caller, nothing more. */
static void
test_request_and_refusal (void)
{
  StandIn s = { .refuse = TRUE };
  guint owner, object;
  GDBusConnection *c = stand_in_start (&s, &owner, &object);
  Outcome o = { 0 };
  g_autofree char *unit = sp_runner_scope_unit_name (4242);

  sp_runner_scope_request_async (4242, NULL, on_done, &o);
  g_assert_false (o.done);
  g_assert_true (sp_test_wait_for (outcome_done, &o, 10000));
  g_assert_false (o.ok);
  g_assert_error (o.error, G_DBUS_ERROR, G_DBUS_ERROR_ACCESS_DENIED);
  g_clear_error (&o.error);
  g_assert_cmpuint (s.calls, ==, 1);
  g_assert_cmpstr (s.unit, ==, "sandpad-runner-4242.scope");
  g_assert_cmpstr (s.unit, ==, unit);
  g_assert_cmpstr (s.mode, ==, "fail");
  g_assert_cmpint (s.pid, ==, 4242);
  g_assert_true (s.delegate);
  stand_in_stop (c, owner, object, &s);
}

/* The client asks for its runner when it starts it: the pid in the
 * request is the runner's. */
static void
test_client_asks (void)
{
  StandIn s = { 0 };
  guint owner, object;
  GDBusConnection *c = stand_in_start (&s, &owner, &object);
  Started started;
  SpRunnerClient *client = client_start (g_getenv ("SANDPAD_RUNNER"), NULL, 0, &started);
  g_autofree char *exe = NULL;
  g_autofree char *link = NULL;

  g_assert_true (sp_test_wait_for (start_done, &started, 15000));
  g_assert_true (started.ok);
  g_assert_true (sp_test_wait_for (has_call, &s, 10000));
  g_assert_cmpuint (s.calls, ==, 1);
  g_assert_true (s.delegate);
  link = g_strdup_printf ("/proc/%d/exe", (int) s.pid);
  exe = g_file_read_link (link, NULL);
  g_assert_nonnull (exe);
  g_assert_true (g_str_has_suffix (exe, "/sandpad-runner"));
  sp_runner_client_stop (client);
  finalize_when_idle (client);
  stand_in_stop (c, owner, object, &s);
}

int
main (int argc, char **argv)
{
  g_autofree char *runtime = g_dir_make_tmp ("sandpad-scope-XXXXXX", NULL);

  /* No bus socket where GLib would look for one without an address. */
  g_setenv ("XDG_RUNTIME_DIR", runtime, TRUE);
  g_test_init (&argc, &argv, NULL);
  if (g_getenv ("DBUS_SESSION_BUS_ADDRESS") == NULL)
    {
      printf ("1..0 # SKIP needs a private session bus (run under dbus-run-session)\n");
      return 77;
    }
  g_test_add_func ("/runner-scope/no-bus", test_no_bus);
  g_test_add_func ("/runner-scope/no-user-manager", test_no_user_manager);
  g_test_add_func ("/runner-scope/client-without-manager", test_client_without_manager);
  g_test_add_func ("/runner-scope/request-and-refusal", test_request_and_refusal);
  g_test_add_func ("/runner-scope/client-asks", test_client_asks);
  return g_test_run ();
}
