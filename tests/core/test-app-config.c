/* test-app-config.c: the runner as the app starts it, attacked.
 *
 * The runner's own tests pass --strict; the app does not. This starts
 * sandpad-runner the way SpApplication does (found by the same function,
 * a supervisor, no arguments) and sends a few escapes through it, each
 * first run with /usr/bin/python3 directly as a control that must work,
 * so a blocked attempt means the sandbox stopped it, not a broken probe.
 *
 * SANDPAD_TEST_SANDBOX=fallback adds "--sandbox fallback", what the runner
 * picks by itself where user namespaces are refused (Flatpak): still no
 * --strict, so this is the app's configuration on such a system. */
#include "config.h"

#include <glib/gstdio.h>
#include <sys/stat.h>

#include "sp-image-decode.h"
#include "sp-runner-supervisor.h"
#include "sp-sandbox-policy.h"
#include "sp-test-wait.h"

typedef struct
{
  SpRunnerSupervisor *sup;
  char *secret_dir;  /* 0755, outside anything a run is given */
  char *secret_path; /* 0644: only the sandbox keeps a run from it */
  char *token;
  char *drop_dir;  /* 0777: only the sandbox keeps a run from writing here */
  GSocket *server; /* listening on 127.0.0.1 */
  guint16 port;
} Fixture;

static gboolean
sup_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (data);
}

static const char *
forced_mode (void)
{
  return g_getenv ("SANDPAD_TEST_SANDBOX");
}

static void
start_runner (Fixture *f)
{
  g_autofree char *runner = sp_runner_find_helper ();

  f->sup = sp_runner_supervisor_new (runner);
  /* Exactly the app's arguments (sp-application.c), plus a forced mode. */
  if (forced_mode () != NULL)
    {
      const char *args[] = { "--allow-any-environment", "--sandbox", forced_mode (), NULL };
      sp_runner_supervisor_set_runner_args (f->sup, args);
    }
  else
    {
      const char *args[] = { "--allow-any-environment", NULL };
      sp_runner_supervisor_set_runner_args (f->sup, args);
    }
  sp_runner_supervisor_start (f->sup);
  g_assert_true (sp_test_wait_for (sup_ready, f->sup, 15000));
}

static void
make_targets (Fixture *f)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (GInetAddress) loopback = g_inet_address_new_loopback (G_SOCKET_FAMILY_IPV4);
  g_autoptr (GSocketAddress) any = g_inet_socket_address_new (loopback, 0);
  g_autoptr (GSocketAddress) bound = NULL;

  f->token = g_strdup_printf ("secret-%08x%08x", g_random_int (), g_random_int ());
  f->secret_dir = g_dir_make_tmp ("sp-secret-XXXXXX", &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (f->secret_dir, 0755), ==, 0);
  f->secret_path = g_build_filename (f->secret_dir, "token.txt", NULL);
  g_assert_true (g_file_set_contents (f->secret_path, f->token, -1, &error));
  g_assert_cmpint (g_chmod (f->secret_path, 0644), ==, 0);
  f->drop_dir = g_dir_make_tmp ("sp-drop-XXXXXX", &error);
  g_assert_no_error (error);
  g_assert_cmpint (g_chmod (f->drop_dir, 0777), ==, 0);

  f->server = g_socket_new (G_SOCKET_FAMILY_IPV4, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_TCP,
                            &error);
  g_assert_no_error (error);
  g_assert_true (g_socket_bind (f->server, any, TRUE, &error));
  g_assert_true (g_socket_listen (f->server, &error));
  g_socket_set_blocking (f->server, FALSE);
  bound = g_socket_get_local_address (f->server, &error);
  g_assert_no_error (error);
  f->port = g_inet_socket_address_get_port (G_INET_SOCKET_ADDRESS (bound));
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  make_targets (f);
  start_runner (f);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  g_autofree char *dropped = g_build_filename (f->drop_dir, "escaped.txt", NULL);

  sp_runner_supervisor_stop (f->sup);
  g_clear_object (&f->sup);
  g_clear_object (&f->server);
  g_unlink (dropped);
  g_rmdir (f->drop_dir);
  g_unlink (f->secret_path);
  g_rmdir (f->secret_dir);
  g_free (f->drop_dir);
  g_free (f->secret_path);
  g_free (f->secret_dir);
  g_free (f->token);
}

static gboolean
finished (gpointer data)
{
  return sp_execution_is_finished (data);
}

/* The snippet through the supervisor, with the request the app makes
 * (the schema's default limits, network off, stdin open); its stdout and
 * stderr together. */
static char *
run_sandboxed (Fixture *f, const char *code)
{
  g_autoptr (SpRunRequest) req = sp_run_request_new ("python", code);
  g_autoptr (SpExecution) exec = NULL;
  g_autoptr (GError) error = NULL;
  GListModel *out;
  GString *text = g_string_new (NULL);

  sp_run_request_set_timeout_ms (req, 30000);
  sp_run_request_set_memory_mib (req, 512);
  sp_run_request_set_network (req, FALSE);
  sp_run_request_set_stdin_open (req, TRUE);
  exec = sp_runner_supervisor_submit (f->sup, req, &error);
  g_assert_no_error (error);
  sp_runner_supervisor_send_stdin (f->sup, sp_execution_get_id (exec), NULL, TRUE);
  g_assert_true (sp_test_wait_for (finished, exec, 40000));
  g_assert_cmpint (sp_execution_get_state (exec), ==, SP_EXECUTION_EXITED);
  out = G_LIST_MODEL (sp_execution_get_output (exec));
  for (guint i = 0; i < g_list_model_get_n_items (out); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (out, i);
      g_string_append (text, sp_output_item_get_text (item));
    }
  g_test_message ("sandboxed: %s", text->str);
  return g_string_free (text, FALSE);
}

/* The control: the same snippet, no sandbox. */
static char *
run_unsandboxed (const char *code)
{
  const char *argv[] = { "/usr/bin/python3", "-c", code, NULL };
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  g_autoptr (GError) error = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                               &status, &error));
  g_assert_no_error (error);
  g_test_message ("control: %s%s", out, err);
  return g_strconcat (out, err, NULL);
}

static void
test_mode (Fixture *f, gconstpointer data)
{
  const char *mode = sp_runner_supervisor_get_sandbox_mode (f->sup);
  g_autoptr (SpSandboxPolicy) policy
    = sp_sandbox_policy_new (mode, sp_runner_supervisor_get_sandbox_layers (f->sup));

  g_test_message ("mode %s", mode);
  if (forced_mode () != NULL)
    g_assert_cmpstr (mode, ==, forced_mode ());
  /* The card the app shows for this configuration tells the truth about
   * the fallback. */
  g_assert_cmpint (sp_sandbox_policy_is_reduced (policy), ==, g_str_equal (mode, "fallback"));
}

static void
test_read_secret (Fixture *f, gconstpointer data)
{
  g_autofree char *quoted = g_strdup_printf ("'%s'", f->secret_path);
  g_autofree char *snippet = g_strdup_printf ("print(open(%s).read())\n", quoted);
  g_autofree char *control = run_unsandboxed (snippet);
  g_autofree char *sandboxed = NULL;

  g_assert_nonnull (strstr (control, f->token));
  sandboxed = run_sandboxed (f, snippet);
  g_assert_null (strstr (sandboxed, f->token));
  g_assert_true (strstr (sandboxed, "Error") != NULL);
}

static void
test_write_outside (Fixture *f, gconstpointer data)
{
  g_autofree char *target = g_build_filename (f->drop_dir, "escaped.txt", NULL);
  g_autofree char *snippet = g_strdup_printf ("open('%s', 'w').write('escaped')\n", target);
  g_autofree char *control = run_unsandboxed (snippet);
  g_autofree char *sandboxed = NULL;

  g_assert_true (g_file_test (target, G_FILE_TEST_EXISTS));
  g_assert_cmpint (g_unlink (target), ==, 0);
  sandboxed = run_sandboxed (f, snippet);
  g_assert_false (g_file_test (target, G_FILE_TEST_EXISTS));
  g_assert_true (strstr (sandboxed, "Error") != NULL);
}

/* Takes every pending connection; returns how many there were. */
static guint
accept_all (Fixture *f)
{
  guint n = 0;
  GSocket *conn;

  while ((conn = g_socket_accept (f->server, NULL, NULL)) != NULL)
    {
      n++;
      g_object_unref (conn);
    }
  return n;
}

static void
test_connect_localhost (Fixture *f, gconstpointer data)
{
  g_autofree char *snippet
    = g_strdup_printf ("import socket\n"
                       "s = socket.create_connection(('127.0.0.1', %u), timeout=5)\n"
                       "s.sendall(b'escaped')\nprint('connected')\n",
                       f->port);
  g_autofree char *control = run_unsandboxed (snippet);
  g_autofree char *sandboxed = NULL;

  g_assert_nonnull (strstr (control, "connected"));
  g_assert_cmpuint (accept_all (f), ==, 1);
  sandboxed = run_sandboxed (f, snippet);
  g_assert_null (strstr (sandboxed, "connected"));
  g_assert_cmpuint (accept_all (f), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add ("/app-config/mode", Fixture, NULL, fixture_set_up, test_mode, fixture_tear_down);
  g_test_add ("/app-config/read-secret", Fixture, NULL, fixture_set_up, test_read_secret,
              fixture_tear_down);
  g_test_add ("/app-config/write-outside", Fixture, NULL, fixture_set_up, test_write_outside,
              fixture_tear_down);
  g_test_add ("/app-config/connect-localhost", Fixture, NULL, fixture_set_up,
              test_connect_localhost, fixture_tear_down);
  return g_test_run ();
}
