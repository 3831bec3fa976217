/* test-packages.c: the Packages dialog in a real window under Xvfb, with
 * the real runner, the real sandpad-run and Debian's python3, offline.
 * A folder with a saved file and no venv: Create Environment makes .venv
 * (control: a run cannot import the package yet); an install from a
 * wheelhouse the test builds itself (the find-links setting) lists the
 * package and a run imports it; a package on the block list (the block
 * setting) is refused naming the rule and installs nothing; Cancel stops
 * an install and nothing comes in; an unsaved
 * buffer has no folder until the window gets a workspace, then uses the
 * workspace's venv. Run of a script that declares its dependencies (PEP
 * 723) installs them first, or is refused naming the rule, or with no
 * environment says so and runs nothing. */
#include "config.h"

#include <glib/gstdio.h>
#include <adwaita.h>
#include <gtksourceview/gtksource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-output-item.h"
#include "sp-packages-dialog.h"
#include "sp-preferences-window.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

/* The uid the runner gives programs, and so installs: nobody under a root
 * runner, else ours (tests/runner/envtest.py). */
#define NOBODY 65534

static SpApplication *app;

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static gboolean
buffer_has_text (gpointer data)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (data));
  return gtk_text_buffer_get_char_count (buffer) > 0;
}

static gboolean
dialog_idle (gpointer data)
{
  return !sp_packages_dialog_get_busy (data);
}

static void
spawn_ok (const char *const *argv, const char *cwd)
{
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  int status = 0;

  g_assert_true (g_spawn_sync (cwd, (char **) argv, NULL, G_SPAWN_SEARCH_PATH, NULL, NULL, &out,
                               &err, &status, NULL));
  if (status != 0)
    g_test_message ("%s: %s%s", argv[0], out, err);
  g_assert_cmpint (status, ==, 0);
}

/* A tiny pure-Python project built into a wheel with Debian's pip,
 * setuptools and wheel, offline (as tests/runner/test-install.py does). */
static void
build_wheel (const char *base, const char *name, const char *house)
{
  g_autofree char *src = g_strdup_printf ("%s/src-%s", base, name);
  g_autofree char *pkg = g_build_filename (src, name, NULL);
  g_autofree char *init = g_build_filename (pkg, "__init__.py", NULL);
  g_autofree char *setup = g_build_filename (src, "setup.py", NULL);
  g_autofree char *init_text = g_strdup_printf ("WORD = '%s-1.0'\n", name);
  g_autofree char *setup_text = g_strdup_printf (
    "from setuptools import setup\nsetup(name='%s', version='1.0', packages=['%s'])\n", name, name);
  const char *argv[]
    = { "/usr/bin/python3",     "-m", "pip", "wheel", "-q", "--no-deps", "--no-index",
        "--no-build-isolation", "-w", house, src,     NULL };

  g_assert_cmpint (g_mkdir_with_parents (pkg, 0755), ==, 0);
  g_assert_true (g_file_set_contents (init, init_text, -1, NULL));
  g_assert_true (g_file_set_contents (setup, setup_text, -1, NULL));
  spawn_ok (argv, src);
}

static gboolean
has_package (SpPackagesDialog *dialog, const char *entry)
{
  g_auto (GStrv) packages = sp_packages_dialog_get_packages (dialog);
  return packages != NULL && g_strv_contains ((const char *const *) packages, entry);
}

static gboolean
has_package_named (SpPackagesDialog *dialog, const char *name)
{
  g_auto (GStrv) packages = sp_packages_dialog_get_packages (dialog);
  g_autofree char *prefix = g_strconcat (name, " ", NULL);

  for (guint i = 0; packages != NULL && packages[i] != NULL; i++)
    if (g_str_has_prefix (packages[i], prefix))
      return TRUE;
  return FALSE;
}

/* The dialog win.packages opened, among the toplevels. */
static SpPackagesDialog *
open_dialog (SpWindow *window)
{
  GListModel *toplevels = gtk_window_get_toplevels ();

  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.packages", NULL));
  for (guint i = 0; i < g_list_model_get_n_items (toplevels); i++)
    {
      g_autoptr (GtkWindow) toplevel = g_list_model_get_item (toplevels, i);
      if (SP_IS_PACKAGES_DIALOG (toplevel)
          && gtk_window_get_transient_for (toplevel) == GTK_WINDOW (window))
        return SP_PACKAGES_DIALOG (toplevel);
    }
  g_assert_not_reached ();
}

static GtkWidget *
find_entry (GtkWidget *widget)
{
  if (GTK_IS_ENTRY (widget))
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_entry (child);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* The button as a person sees it: there, shown and sensitive. */
static GtkWidget *
usable_button (SpPackagesDialog *dialog, const char *label)
{
  GtkWidget *button = find_button (GTK_WIDGET (dialog), label);

  g_assert_nonnull (button);
  g_assert_true (gtk_widget_is_visible (button));
  g_assert_true (gtk_widget_is_sensitive (button));
  return button;
}

/* Types the specs, presses Install and waits for the end; while it runs,
 * Install is insensitive and Cancel is there. */
static void
install (SpPackagesDialog *dialog, const char *specs)
{
  GtkWidget *entry = find_entry (GTK_WIDGET (dialog));
  GtkWidget *button = usable_button (dialog, "_Install");

  gtk_editable_set_text (GTK_EDITABLE (entry), specs);
  g_signal_emit_by_name (button, "clicked");
  g_assert_true (sp_packages_dialog_get_busy (dialog));
  g_assert_false (gtk_widget_is_sensitive (button));
  g_assert_true (gtk_widget_is_visible (find_button (GTK_WIDGET (dialog), "_Cancel")));
  /* pip in the sandbox, twice, on a loaded machine: generous. */
  g_assert_true (sp_test_wait_for (dialog_idle, dialog, 280000));
  g_autofree char *output = sp_packages_dialog_get_output (dialog);
  g_test_message ("install %s: %s\n%s", specs, sp_packages_dialog_get_result (dialog), output);
}

static char *
stream_text (SpWindow *window, SpOutputKind kind)
{
  GListModel *model = sp_exec_panel_get_output (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
  GString *text = g_string_new (NULL);

  for (guint i = 0; model != NULL && i < g_list_model_get_n_items (model); i++)
    {
      g_autoptr (SpOutputItem) item = g_list_model_get_item (model, i);
      if (sp_output_item_get_kind (item) == kind)
        g_string_append (text, sp_output_item_get_text (item));
    }
  return g_string_free (text, FALSE);
}

/* Runs the window's text; returns stdout, and stderr in *err. */
static char *
run (SpWindow *window, char **err)
{
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 20000) || is_idle (window));
  g_assert_true (sp_test_wait_for (is_idle, window, 60000));
  *err = stream_text (window, SP_OUTPUT_STDERR);
  return stream_text (window, SP_OUTPUT_STDOUT);
}

static void
save_screenshot (GtkWidget *widget, const char *name)
{
  const char *dir = g_getenv ("SANDPAD_SCREENSHOT_DIR");
  int w = gtk_widget_get_width (widget), h = gtk_widget_get_height (widget);
  g_autoptr (GdkPaintable) paintable = NULL;
  g_autoptr (GtkSnapshot) snapshot = NULL;
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *path = NULL;

  if (dir == NULL || w <= 0 || h <= 0)
    return;
  /* what GTK drew, once it has drawn this state */
  gtk_widget_queue_draw (widget);
  gtk_test_widget_wait_for_draw (widget);
  paintable = gtk_widget_paintable_new (widget);
  snapshot = gtk_snapshot_new ();
  gdk_paintable_snapshot (paintable, snapshot, w, h);
  node = gtk_snapshot_free_to_node (g_steal_pointer (&snapshot));
  if (node == NULL)
    return;
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (gtk_widget_get_native (widget)),
                                         node, &GRAPHENE_RECT_INIT (0, 0, w, h));
  path = g_build_filename (dir, name, NULL);
  gdk_texture_save_to_png (texture, path);
}

static GtkWidget *
find_label_containing (GtkWidget *widget, const char *text)
{
  if (GTK_IS_LABEL (widget) && gtk_widget_get_visible (widget)
      && strstr (gtk_label_get_text (GTK_LABEL (widget)), text) != NULL)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_label_containing (child, text);
      if (found != NULL)
        return found;
    }
  return NULL;
}

static gboolean
drawn (gpointer data)
{
  return gtk_widget_get_mapped (data) && gtk_widget_get_height (data) > 0;
}

/* The Create Environment button lies whole within its status page's
 * view and the dialog, as drawn at the dialog's size. */
static void
assert_create_in_sight (SpPackagesDialog *dialog)
{
  GtkWidget *button = usable_button (dialog, "Create _Environment");
  GtkWidget *page = gtk_widget_get_ancestor (button, ADW_TYPE_STATUS_PAGE);
  graphene_rect_t in_page, in_dialog;

  g_assert_nonnull (page);
  g_assert_true (sp_test_wait_for (drawn, button, 10000));
  g_assert_true (gtk_widget_compute_bounds (button, page, &in_page));
  g_assert_true (gtk_widget_compute_bounds (button, GTK_WIDGET (dialog), &in_dialog));
  g_test_message ("Create Environment at y %.0f, %.0f high, in a page %d high (dialog %d)",
                  in_page.origin.y, in_page.size.height, gtk_widget_get_height (page),
                  gtk_widget_get_height (GTK_WIDGET (dialog)));
  g_assert_cmpfloat (in_page.origin.y, >=, 0);
  g_assert_cmpfloat (in_page.origin.y + in_page.size.height, <=, gtk_widget_get_height (page));
  g_assert_cmpfloat (in_dialog.origin.y + in_dialog.size.height, <=,
                     gtk_widget_get_height (GTK_WIDGET (dialog)));
}

/* Under a root runner, installs run as nobody and must own the venv
 * (runner-install.c refuses otherwise); the app as a desktop user's makes
 * it with the very uid its runs get, so this stands in for that. */
static void
give_to_run_uid (const char *path)
{
  g_autofree char *owner = g_strdup_printf ("%d:%d", NOBODY, NOBODY);
  const char *argv[] = { "chown", "-R", owner, path, NULL };

  if (geteuid () == 0)
    spawn_ok (argv, NULL);
}

static void
test_packages (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("sandpad-ui-pkg-XXXXXX", NULL);
  g_autofree char *dir = g_canonicalize_filename (tmp, NULL);
  g_autofree char *venv = g_build_filename (dir, ".venv", NULL);
  g_autofree char *cfg = g_build_filename (venv, "pyvenv.cfg", NULL);
  g_autofree char *script = g_build_filename (dir, "probe.py", NULL);
  g_autofree char *wheels = g_dir_make_tmp ("sandpad-ui-wheels-XXXXXX", NULL);
  g_autofree char *house = g_build_filename (wheels, "dist", NULL);
  const char *chmod_argv[] = { "chmod", "-R", "a+rX", dir, wheels, NULL };
  const char *rm_argv[] = { "rm", "-rf", dir, wheels, NULL };
  g_autoptr (GFile) file = g_file_new_for_path (script);
  GSettings *settings = sp_application_get_settings (app);
  g_autofree char *out = NULL, *err = NULL;
  struct stat st;

  g_assert_true (g_file_set_contents (script, "import tinypkg\nprint(tinypkg.WORD)\n", -1, NULL));
  build_wheel (wheels, "tinypkg", house);
  build_wheel (wheels, "blockedpkg", house);
  build_wheel (wheels, "cancelpkg", house);
  spawn_ok (chmod_argv, NULL);

  SpWindow *window = sp_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 560);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 20000));
  sp_window_load_file (window, file);
  g_assert_true (sp_test_wait_for (buffer_has_text, window, 10000));

  /* No environment yet: the dialog offers one, its button whole in
   * sight (it was clipped above an empty output box), and no output box
   * before anything ran. */
  SpPackagesDialog *dialog = open_dialog (window);
  g_assert_null (sp_packages_dialog_get_environment (dialog));
  assert_create_in_sight (dialog);
  save_screenshot (GTK_WIDGET (dialog), "sandpad-packages-empty.png");
  g_signal_emit_by_name (usable_button (dialog, "Create _Environment"), "clicked");
  g_assert_true (sp_packages_dialog_get_busy (dialog));
  g_assert_true (sp_test_wait_for (dialog_idle, dialog, 240000));
  g_test_message ("create: %s", sp_packages_dialog_get_result (dialog));
  g_assert_true (g_file_test (cfg, G_FILE_TEST_IS_REGULAR));
  g_assert_cmpstr (sp_packages_dialog_get_environment (dialog), ==, venv);
  g_assert_false (has_package_named (dialog, "tinypkg"));
  /* The window's card names the new environment at once. */
  g_autofree char *card = sp_exec_panel_get_policy_text (
    SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
  g_assert_nonnull (strstr (card, venv));
  /* Made for installs: owned by the uid that runs them (nobody's under a
   * root runner; python3 -m venv as root made one Install refused). */
  g_assert_cmpint (stat (venv, &st), ==, 0);
  g_assert_cmpint (st.st_uid, ==, geteuid () == 0 ? NOBODY : geteuid ());
  g_assert_cmpint (stat (cfg, &st), ==, 0);
  g_assert_cmpint (st.st_uid, ==, geteuid () == 0 ? NOBODY : geteuid ());
  /* numpy imports though the list holds only pip: the dialog says why. */
  g_assert_nonnull (find_label_containing (GTK_WIDGET (dialog), "system's Python packages"));

  /* Control: the run uses the venv but the package is not there yet. */
  out = run (window, &err);
  g_assert_cmpstr (out, ==, "");
  g_assert_nonnull (strstr (err, "ModuleNotFoundError"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* No source set: the dialog says so, and Install says it at once,
   * starting nothing (it went to PyPI before). */
  g_assert_nonnull (strstr (sp_packages_dialog_get_sources (dialog), "No package source"));
  gtk_editable_set_text (GTK_EDITABLE (find_entry (GTK_WIDGET (dialog))), "tinypkg");
  g_signal_emit_by_name (usable_button (dialog, "_Install"), "clicked");
  g_assert_false (sp_packages_dialog_get_busy (dialog));
  g_assert_true (
    g_str_has_prefix (sp_packages_dialog_get_result (dialog), "Not installed: no package source."));

  /* From the wheelhouse named in the settings, offline. */
  g_settings_set_string (settings, "install-find-links", house);
  g_assert_nonnull (strstr (sp_packages_dialog_get_sources (dialog), "offline"));
  g_assert_nonnull (strstr (sp_packages_dialog_get_sources (dialog), house));
  install (dialog, "tinypkg");
  g_assert_cmpstr (sp_packages_dialog_get_result (dialog), ==, "Installed");
  g_assert_true (has_package (dialog, "tinypkg 1.0"));
  save_screenshot (GTK_WIDGET (dialog), "sandpad-packages.png");
  out = run (window, &err);
  g_assert_cmpstr (out, ==, "tinypkg-1.0\n");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);

  /* The block list: refused, the rule named, nothing installed. */
  g_auto (GStrv) before = sp_packages_dialog_get_packages (dialog);
  const char *block[] = { "blocked*", NULL };
  g_settings_set_strv (settings, "install-block", block);
  install (dialog, "blockedpkg");
  const char *result = sp_packages_dialog_get_result (dialog);
  g_assert_nonnull (result);
  g_assert_true (g_str_has_prefix (result, "Not installed: "));
  g_assert_nonnull (strstr (result, "block list"));
  g_assert_nonnull (strstr (result, "\"blocked*\""));
  g_assert_false (has_package_named (dialog, "blockedpkg"));
  g_auto (GStrv) after = sp_packages_dialog_get_packages (dialog);
  g_assert_true (g_strv_equal ((const char *const *) before, (const char *const *) after));
  g_settings_reset (settings, "install-block");

  /* Cancel: the install stops (sandpad-run cleans up on SIGTERM) and
   * nothing comes in; Install works again. */
  GtkWidget *entry = find_entry (GTK_WIDGET (dialog));
  gtk_editable_set_text (GTK_EDITABLE (entry), "cancelpkg");
  g_signal_emit_by_name (usable_button (dialog, "_Install"), "clicked");
  g_assert_true (sp_packages_dialog_get_busy (dialog));
  g_signal_emit_by_name (usable_button (dialog, "_Cancel"), "clicked");
  g_assert_true (sp_test_wait_for (dialog_idle, dialog, 120000));
  g_test_message ("cancelled: %s", sp_packages_dialog_get_result (dialog));
  g_assert_true (g_str_has_prefix (sp_packages_dialog_get_result (dialog), "Not installed: "));
  g_assert_false (has_package_named (dialog, "cancelpkg"));
  g_assert_true (gtk_widget_is_sensitive (find_button (GTK_WIDGET (dialog), "_Install")));
  gtk_window_destroy (GTK_WINDOW (dialog));

  /* An unsaved buffer: no folder until the window has a workspace, then
   * the workspace's venv, for the dialog and for runs. */
  SpWindow *scratch = sp_window_new (app);
  gtk_window_present (GTK_WINDOW (scratch));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (scratch)),
                            "import tinypkg\nprint(tinypkg.WORD)\n", -1);
  dialog = open_dialog (scratch);
  g_assert_null (sp_packages_dialog_get_environment (dialog));
  GtkWidget *create = find_button (GTK_WIDGET (dialog), "Create _Environment");
  g_assert_false (gtk_widget_is_sensitive (create));
  gtk_window_destroy (GTK_WINDOW (dialog));
  out = run (scratch, &err);
  g_assert_cmpstr (out, ==, "");
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  sp_window_set_workspace (scratch, dir);
  g_assert_cmpstr (sp_window_get_workspace (scratch), ==, dir);
  dialog = open_dialog (scratch);
  g_assert_cmpstr (sp_packages_dialog_get_environment (dialog), ==, venv);
  g_assert_true (has_package (dialog, "tinypkg 1.0"));
  gtk_window_destroy (GTK_WINDOW (dialog));
  out = run (scratch, &err);
  g_assert_cmpstr (out, ==, "tinypkg-1.0\n");

  g_settings_reset (settings, "install-find-links");
  close_window (scratch);
  close_window (window);
  spawn_ok (rm_argv, NULL);
}

static const char *
panel_status (SpWindow *window)
{
  return sp_exec_panel_get_status (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
}

static gboolean
status_installing (gpointer data)
{
  return strstr (panel_status (data), "Installing 1 declared package") != NULL;
}

static gboolean
status_not_run (gpointer data)
{
  return g_str_has_prefix (panel_status (data), "Not run: ");
}

static gboolean
run_over (gpointer data)
{
  return !sp_window_get_running (data)
         && !gtk_widget_get_visible (GTK_WIDGET (
           sp_exec_panel_get_status_action (SP_EXEC_PANEL (sp_window_get_exec_panel (data)))))
         && !status_installing (data) && !g_str_has_prefix (panel_status (data), "Reading");
}

#define DECLARES(pkg)                                                                              \
  "# /// script\n"                                                                                 \
  "# dependencies = [\"" pkg "\"]\n"                                                               \
  "# ///\n"                                                                                        \
  "import " pkg "\n"                                                                               \
  "print(" pkg ".WORD)\n"

/* Run of a script that declares its dependencies (PEP 723): the ones its
 * venv lacks come in first, through the Packages dialog's install and
 * settings (the status line says so, pip stays quiet), then it runs; a
 * package on the block list is refused naming the rule and nothing runs;
 * with no environment selected the panel says so and runs nothing until
 * Run Anyway. */
static void
test_declared (void)
{
  g_autofree char *tmp = g_dir_make_tmp ("sandpad-ui-pep723-XXXXXX", NULL);
  g_autofree char *dir = g_canonicalize_filename (tmp, NULL);
  g_autofree char *venv = g_build_filename (dir, ".venv", NULL);
  g_autofree char *script = g_build_filename (dir, "deps.py", NULL);
  g_autofree char *wheels = g_dir_make_tmp ("sandpad-ui-wheels-XXXXXX", NULL);
  g_autofree char *house = g_build_filename (wheels, "dist", NULL);
  const char *venv_argv[] = { "/usr/bin/python3", "-m", "venv", "--system-site-packages",
                              "--without-pip",    venv, NULL };
  const char *chmod_argv[] = { "chmod", "-R", "a+rX", dir, wheels, NULL };
  const char *rm_argv[] = { "rm", "-rf", dir, wheels, NULL };
  g_autoptr (GFile) file = g_file_new_for_path (script);
  GSettings *settings = sp_application_get_settings (app);
  GtkTextBuffer *buffer;
  g_autofree char *out = NULL, *err = NULL;

  g_assert_true (g_file_set_contents (script, DECLARES ("tinypkg"), -1, NULL));
  build_wheel (wheels, "tinypkg", house);
  build_wheel (wheels, "blockedpkg", house);
  spawn_ok (venv_argv, NULL);
  spawn_ok (chmod_argv, NULL);
  give_to_run_uid (venv);
  g_settings_set_string (settings, "install-find-links", house);

  SpWindow *window = sp_window_new (app);
  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 560);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 20000));
  sp_window_load_file (window, file);
  g_assert_true (sp_test_wait_for (buffer_has_text, window, 10000));

  /* Run: the status says what installs, then the script runs and imports
   * it; pip's words are not shown. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (status_installing, window, 60000));
  g_assert_true (sp_test_wait_for (is_running, window, 280000));
  g_assert_true (sp_test_wait_for (is_idle, window, 60000));
  out = stream_text (window, SP_OUTPUT_STDOUT);
  err = stream_text (window, SP_OUTPUT_STDERR);
  g_test_message ("declared run: %s / %s / %s", panel_status (window), out, err);
  g_assert_cmpstr (out, ==, "tinypkg-1.0\n");
  g_assert_null (strstr (err, "Processing"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  /* Installed once: the next Run has nothing to install. */
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_running, window, 60000));
  g_assert_true (sp_test_wait_for (is_idle, window, 60000));
  out = stream_text (window, SP_OUTPUT_STDOUT);
  g_assert_cmpstr (out, ==, "tinypkg-1.0\n");
  g_clear_pointer (&out, g_free);

  /* The block list: refused with the rule's name; nothing ran or came in. */
  const char *block[] = { "blocked*", NULL };
  g_settings_set_strv (settings, "install-block", block);
  buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));
  gtk_text_buffer_set_text (buffer, DECLARES ("blockedpkg"), -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (status_not_run, window, 280000));
  g_test_message ("blocked: %s", panel_status (window));
  g_assert_nonnull (strstr (panel_status (window), "block list"));
  g_assert_nonnull (strstr (panel_status (window), "\"blocked*\""));
  g_assert_false (sp_window_get_running (window));
  out = stream_text (window, SP_OUTPUT_STDOUT);
  err = stream_text (window, SP_OUTPUT_STDERR);
  g_assert_cmpstr (out, ==, "");
  g_assert_null (strstr (err, "ModuleNotFoundError"));
  g_clear_pointer (&out, g_free);
  g_clear_pointer (&err, g_free);
  {
    g_autofree char *pattern = g_build_filename (venv, "lib", NULL);
    const char *find_argv[] = { "sh", "-c", "! ls \"$0\"/python3*/site-packages | grep -i blocked",
                                pattern, NULL };
    spawn_ok (find_argv, NULL);
  }
  g_settings_reset (settings, "install-block");

  /* No environment: an unsaved buffer, no workspace. Nothing runs; the
   * panel says why and how, and offers Run Anyway, which runs it as it is. */
  SpWindow *scratch = sp_window_new (app);
  gtk_window_present (GTK_WINDOW (scratch));
  gtk_text_buffer_set_text (GTK_TEXT_BUFFER (sp_window_get_buffer (scratch)), DECLARES ("tinypkg"),
                            -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (scratch), "win.run", NULL));
  g_assert_true (sp_test_wait_for (status_not_run, scratch, 60000));
  g_test_message ("no environment: %s", panel_status (scratch));
  g_assert_nonnull (strstr (panel_status (scratch), "no Python environment"));
  g_assert_nonnull (strstr (panel_status (scratch), "tinypkg"));
  g_assert_nonnull (strstr (panel_status (scratch), "Packages…"));
  GtkWidget *anyway = sp_exec_panel_get_status_action (
    SP_EXEC_PANEL (sp_window_get_exec_panel (scratch)));
  g_assert_true (gtk_widget_get_visible (anyway));
  g_assert_false (sp_window_get_running (scratch));
  g_signal_emit_by_name (anyway, "clicked");
  g_assert_true (sp_test_wait_for (run_over, scratch, 60000));
  err = stream_text (scratch, SP_OUTPUT_STDERR);
  g_assert_nonnull (strstr (err, "ModuleNotFoundError"));
  g_clear_pointer (&err, g_free);

  g_settings_reset (settings, "install-find-links");
  close_window (scratch);
  close_window (window);
  spawn_ok (rm_argv, NULL);
}

static GtkWidget *
find_entry_row (GtkWidget *widget, const char *title)
{
  if (ADW_IS_ENTRY_ROW (widget)
      && g_strcmp0 (adw_preferences_row_get_title (ADW_PREFERENCES_ROW (widget)), title) == 0)
    return widget;
  for (GtkWidget *child = gtk_widget_get_first_child (widget); child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *found = find_entry_row (child, title);
      if (found != NULL)
        return found;
    }
  return NULL;
}

/* Preferences edits the install settings the dialog passes on: the
 * patterns as words in one row, both ways. */
static void
test_preferences (void)
{
  GSettings *settings = sp_application_get_settings (app);
  GtkWidget *prefs = sp_preferences_window_new (settings);
  GtkWidget *block = NULL, *links = NULL;
  const char *two[] = { "evil*", "bad-*", NULL };
  g_auto (GStrv) got = NULL;

  gtk_window_present (GTK_WINDOW (prefs));
  block = find_entry_row (prefs, "Block (patterns, space-separated)");
  links = find_entry_row (prefs, "Local Wheel Folder");
  g_assert_nonnull (block);
  g_assert_nonnull (links);
  gtk_editable_set_text (GTK_EDITABLE (block), "one  two*");
  got = g_settings_get_strv (settings, "install-block");
  g_assert_cmpuint (g_strv_length (got), ==, 2);
  g_assert_cmpstr (got[0], ==, "one");
  g_assert_cmpstr (got[1], ==, "two*");
  g_settings_set_strv (settings, "install-block", two);
  g_assert_cmpstr (gtk_editable_get_text (GTK_EDITABLE (block)), ==, "evil* bad-*");
  gtk_editable_set_text (GTK_EDITABLE (links), "/srv/wheels");
  g_autofree char *dir = g_settings_get_string (settings, "install-find-links");
  g_assert_cmpstr (dir, ==, "/srv/wheels");
  g_settings_reset (settings, "install-block");
  g_settings_reset (settings, "install-find-links");
  gtk_window_destroy (GTK_WINDOW (prefs));
}

int
main (int argc, char **argv)
{
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  g_test_add_func ("/Sandpad/UI/packages", test_packages);
  g_test_add_func ("/Sandpad/UI/packages-preferences", test_preferences);
  g_test_add_func ("/Sandpad/UI/packages-declared", test_declared);
  ret = g_test_run ();
  g_object_unref (app);
  return ret;
}
