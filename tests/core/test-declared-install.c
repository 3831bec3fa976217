/* test-declared-install.c: what Run does before a Python snippet with a
 * PEP 723 block runs (SpDeclaredInstall), without a display, against the
 * real sandpad-run, pip and a venv: each outcome the window shows, from a
 * wheel this test writes itself (offline, --find-links). */
#include "config.h"

#include <glib/gstdio.h>
#include <unistd.h>

#include "sp-declared-install.h"

#define SCRIPT                                                                                     \
  "# /// script\n"                                                                                 \
  "# dependencies = [\"tinypkg\"]\n"                                                               \
  "# ///\n"                                                                                        \
  "import tinypkg\n"

/* A py3-none-any wheel of tinypkg 1.0, written with zipfile (no build
 * tools, no network). */
static const char wheel_py[]
  = "import base64, hashlib, os, sys, zipfile\n"
    "house = sys.argv[1]\n"
    "dist = 'tinypkg-1.0.dist-info'\n"
    "e = {'tinypkg/__init__.py': \"WORD = 'tinypkg-1.0'\\n\",\n"
    "     dist + '/METADATA': 'Metadata-Version: 2.1\\nName: tinypkg\\nVersion: 1.0\\n',\n"
    "     dist + '/WHEEL': 'Wheel-Version: 1.0\\nGenerator: sandpad-test\\n'\n"
    "                      'Root-Is-Purelib: true\\nTag: py3-none-any\\n'}\n"
    "rec = []\n"
    "for p, t in e.items():\n"
    "    d = base64.urlsafe_b64encode(hashlib.sha256(t.encode()).digest()).rstrip(b'=')\n"
    "    rec.append('%s,sha256=%s,%d' % (p, d.decode(), len(t.encode())))\n"
    "e[dist + '/RECORD'] = '\\n'.join(rec + [dist + '/RECORD,,']) + '\\n'\n"
    "path = os.path.join(house, 'tinypkg-1.0-py3-none-any.whl')\n"
    "with zipfile.ZipFile(path, 'w') as z:\n"
    "    for p, t in e.items():\n"
    "        i = zipfile.ZipInfo(p)\n"
    "        i.external_attr = 0o100644 << 16\n"
    "        z.writestr(i, t)\n"
    "os.chmod(path, 0o644)\n";

typedef struct
{
  char *root;  /* everything the test makes */
  char *house; /* the wheelhouse */
  char *workspace;
  SpDocument *document;
  GSettings *settings;
  SpDeclaredInstall *declared;
  int outcome; /* the last "finished", -1 before */
  guint finished;
  guint installing; /* the last "installing"'s count, 0 before */
  guint environment_changed;
} Fixture;

static void
spawn_ok (const char *const *argv)
{
  g_autoptr (GError) error = NULL;
  g_autofree char *err = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (NULL, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, NULL,
                               &err, &status, &error));
  g_assert_no_error (error);
  if (!g_spawn_check_wait_status (status, NULL))
    g_error ("%s failed: %s", argv[0], err);
}

static void
on_finished (SpDeclaredInstall *declared, int outcome, Fixture *f)
{
  f->outcome = outcome;
  f->finished++;
}

static void
on_installing (SpDeclaredInstall *declared, guint n, Fixture *f)
{
  f->installing = n;
}

static void
on_environment_changed (SpDocument *document, Fixture *f)
{
  f->environment_changed++;
}

static void
fixture_set_up (Fixture *f, gconstpointer data)
{
  g_autofree char *venv = NULL;

  f->root = g_dir_make_tmp ("sandpad-declared-install-XXXXXX", NULL);
  g_assert_nonnull (f->root);
  g_assert_cmpint (g_chmod (f->root, 0755), ==, 0);
  f->house = g_build_filename (f->root, "house", NULL);
  f->workspace = g_build_filename (f->root, "ws", NULL);
  venv = g_build_filename (f->workspace, ".venv", NULL);
  g_assert_cmpint (g_mkdir (f->house, 0755), ==, 0);
  g_assert_cmpint (g_mkdir (f->workspace, 0755), ==, 0);
  {
    const char *argv[] = { "/usr/bin/python3", "-c", wheel_py, f->house, NULL };
    spawn_ok (argv);
  }
  {
    const char *argv[] = { "/usr/bin/python3", "-m",          "venv", "--system-site-packages",
                           "--without-pip",    (char *) venv, NULL };
    spawn_ok (argv);
  }
  /* As root the install runs as nobody, who must write the venv. */
  if (geteuid () == 0)
    {
      const char *argv[] = { "chown", "-R", "65534:65534", f->workspace, NULL };
      spawn_ok (argv);
    }
  f->settings = g_settings_new (APP_ID);
  g_settings_set_string (f->settings, "install-find-links", f->house);
  f->document = sp_document_new (NULL);
  sp_document_set_language (f->document, "python");
  f->declared = sp_declared_install_new (f->document, f->settings);
  f->outcome = -1;
  g_signal_connect (f->declared, "finished", G_CALLBACK (on_finished), f);
  g_signal_connect (f->declared, "installing", G_CALLBACK (on_installing), f);
  g_signal_connect (f->document, "environment-changed", G_CALLBACK (on_environment_changed), f);
}

static void
fixture_tear_down (Fixture *f, gconstpointer data)
{
  const char *argv[] = { "rm", "-rf", f->root, NULL };

  g_clear_object (&f->declared);
  g_clear_object (&f->document);
  g_settings_reset (f->settings, "install-find-links");
  g_settings_reset (f->settings, "install-block");
  g_clear_object (&f->settings);
  spawn_ok (argv);
  g_free (f->root);
  g_free (f->house);
  g_free (f->workspace);
}

/* Starts code and waits for "finished"; the outcome. */
static SpDeclaredOutcome
run (Fixture *f, const char *code)
{
  guint before = f->finished;

  f->installing = 0;
  g_assert_true (sp_declared_install_start (f->declared, code));
  g_assert_true (sp_declared_install_get_busy (f->declared));
  while (f->finished == before)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (f->finished, ==, before + 1);
  g_assert_false (sp_declared_install_get_busy (f->declared));
  return f->outcome;
}

/* The venv beside the snippet (the workspace's); what its choice said to
 * the document's listeners is not counted. */
static void
use_workspace (Fixture *f)
{
  g_assert_true (sp_document_set_workspace (f->document, f->workspace));
  f->environment_changed = 0;
}

static void
test_no_block (Fixture *f, gconstpointer data)
{
  /* Nothing to ask: the caller runs it now, no process, no signal. */
  g_assert_false (sp_declared_install_start (f->declared, "import tinypkg\n"));
  g_assert_false (sp_declared_install_get_busy (f->declared));
  g_assert_null (sp_declared_install_take_code (f->declared));
  g_assert_cmpuint (f->finished, ==, 0);
}

static void
test_no_environment (Fixture *f, gconstpointer data)
{
  g_autofree char *code = NULL;
  const char *const *specs;

  /* No folder, no workspace: nowhere to install. */
  g_assert_cmpint (run (f, SCRIPT), ==, SP_DECLARED_NO_ENVIRONMENT);
  specs = sp_declared_install_get_specs (f->declared);
  g_assert_cmpuint (g_strv_length ((char **) specs), ==, 1);
  g_assert_cmpstr (specs[0], ==, "tinypkg");
  g_assert_cmpuint (f->installing, ==, 0);
  /* Kept for Run Anyway, given once. */
  code = sp_declared_install_take_code (f->declared);
  g_assert_cmpstr (code, ==, SCRIPT);
  g_assert_null (sp_declared_install_take_code (f->declared));
}

static void
test_unreadable (Fixture *f, gconstpointer data)
{
  use_workspace (f);
  g_assert_cmpint (run (f, "# /// script\n# dependencies = [\"tinypkg\"\nprint(1)\n"), ==,
                   SP_DECLARED_UNREADABLE);
  g_test_message ("%s", sp_declared_install_get_reason (f->declared));
  g_assert_nonnull (strstr (sp_declared_install_get_reason (f->declared), "PEP 723"));
  g_assert_cmpuint (f->installing, ==, 0);
}

static void
test_refused (Fixture *f, gconstpointer data)
{
  const char *block[] = { "tiny*", NULL };
  g_autofree char *missing = g_strdup (SCRIPT);

  use_workspace (f);
  /* The policy's rule, named; the venv read again all the same. */
  g_settings_set_strv (f->settings, "install-block", block);
  g_assert_cmpint (run (f, SCRIPT), ==, SP_DECLARED_REFUSED);
  g_test_message ("%s", sp_declared_install_get_reason (f->declared));
  g_assert_cmpuint (f->installing, ==, 1);
  g_assert_nonnull (strstr (sp_declared_install_get_reason (f->declared), "block list"));
  g_assert_cmpuint (f->environment_changed, ==, 1);
  g_settings_reset (f->settings, "install-block");
  /* Not in the wheelhouse: pip's words are the output, not the reason. */
  memcpy (strstr (missing, "tinypkg\"]"), "nosuchp", 7);
  g_assert_cmpint (run (f, missing), ==, SP_DECLARED_REFUSED);
  g_test_message ("%s", sp_declared_install_get_output (f->declared));
  g_assert_nonnull (strstr (sp_declared_install_get_output (f->declared), "nosuchp"));
  g_assert_null (strstr (sp_declared_install_get_output (f->declared), "sandpad: "));
}

static void
test_installed (Fixture *f, gconstpointer data)
{
  g_autofree char *code = NULL;

  use_workspace (f);
  g_assert_cmpint (run (f, SCRIPT), ==, SP_DECLARED_INSTALLED);
  g_assert_cmpuint (f->installing, ==, 1);
  g_assert_cmpuint (f->environment_changed, ==, 1);
  code = sp_declared_install_take_code (f->declared);
  g_assert_cmpstr (code, ==, SCRIPT);
  /* In the venv now: the next Run installs nothing. */
  g_assert_cmpint (run (f, SCRIPT), ==, SP_DECLARED_NOTHING_TO_DO);
  g_assert_cmpuint (f->installing, ==, 0);
  g_assert_cmpuint (f->environment_changed, ==, 1);
}

static void
test_stop (Fixture *f, gconstpointer data)
{
  use_workspace (f);
  g_assert_false (sp_declared_install_stop (f->declared));
  /* Stopped while listing, and while installing. */
  g_assert_true (sp_declared_install_start (f->declared, "# /// script\n# dependencies = [\n"));
  g_assert_true (sp_declared_install_stop (f->declared));
  g_assert_false (sp_declared_install_get_busy (f->declared));
  g_assert_true (sp_declared_install_start (f->declared, SCRIPT));
  while (f->installing == 0)
    g_main_context_iteration (NULL, TRUE);
  g_assert_true (sp_declared_install_stop (f->declared));
  g_assert_false (sp_declared_install_get_busy (f->declared));
  /* The one "finished" is the next start's (a block that declares
   * nothing), and once every callback of the stopped ones has come back
   * (each holds the object), none of them said anything. */
  g_assert_cmpint (run (f, "# /// script\n# dependencies = []\n# ///\n"), ==,
                   SP_DECLARED_NOTHING_TO_DO);
  while (G_OBJECT (f->declared)->ref_count > 1)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (f->finished, ==, 1);
}

int
main (int argc, char **argv)
{
  g_autofree char *state = g_dir_make_tmp ("sandpad-declared-state-XXXXXX", NULL);
  const char *rm[] = { "rm", "-rf", state, NULL };
  int status;

  /* The install log goes here, not into the home directory (set before
   * any thread starts). */
  g_assert_nonnull (state);
  g_setenv ("XDG_STATE_HOME", state, TRUE);
  g_test_init (&argc, &argv, NULL);
  {
    /* The system's python3 makes the venv, and its pip installs. */
    const char *probe[] = { "/usr/bin/python3", "-c", "import venv, pip", NULL };
    int wait = 0;

    if (!g_spawn_sync (NULL, (char **) probe, NULL,
                       G_SPAWN_STDOUT_TO_DEV_NULL | G_SPAWN_STDERR_TO_DEV_NULL, NULL, NULL, NULL,
                       NULL, &wait, NULL)
        || !g_spawn_check_wait_status (wait, NULL))
      {
        g_print ("1..0 # SKIP no /usr/bin/python3 with venv and pip to install with\n");
        spawn_ok (rm);
        return 77;
      }
  }
#define ADD(path, func)                                                                            \
  g_test_add ("/Sandpad/declared-install/" path, Fixture, NULL, fixture_set_up, func,              \
              fixture_tear_down)
  ADD ("no-block", test_no_block);
  ADD ("no-environment", test_no_environment);
  ADD ("unreadable", test_unreadable);
  ADD ("refused", test_refused);
  ADD ("installed", test_installed);
  ADD ("stop", test_stop);
  status = g_test_run ();
  spawn_ok (rm);
  return status;
}
