/* test-policy.c: the policy card says what the runner reported, in a real
 * window under Xvfb. SANDPAD_TEST_POLICY picks what the app is given:
 *   degraded       the fake runner reporting fallback mode without
 *                  Landlock and seccomp (what a runner without --strict
 *                  may run with on an old or locked-down kernel)
 *   real           the real runner, as the app starts it
 *   real-fallback  the real runner in its fallback mode (a wrapper adds
 *                  --sandbox fallback, as a system without user
 *                  namespaces would make it choose)
 *   warm-broken    a copy of the real runner whose sandpad-warm-init
 *                  cannot be executed: its warm runs turn off, and the
 *                  card says why each run started cold (issue 31) */
#include "config.h"

#include <glib/gstdio.h>
#include <gtksourceview/gtksource.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

static gboolean
runner_ready (gpointer data)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (app));
}

static char *
card_text (SpWindow *window)
{
  return sp_exec_panel_get_policy_text (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
}

static gboolean
card_reduced (SpWindow *window)
{
  return sp_exec_panel_get_policy_reduced (SP_EXEC_PANEL (sp_window_get_exec_panel (window)));
}

static SpWindow *
open_window (void)
{
  SpWindow *window = sp_window_new (app);

  gtk_window_set_default_size (GTK_WINDOW (window), 1000, 560);
  gtk_window_present (GTK_WINDOW (window));
  g_assert_true (sp_test_wait_for (runner_ready, NULL, 10000));
  for (int i = 0; i < 20; i++)
    g_main_context_iteration (NULL, FALSE);
  return window;
}

static void
run_snippet (SpWindow *window, const char *code)
{
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (window));

  gtk_text_buffer_set_text (buffer, code, -1);
  g_assert_true (gtk_widget_activate_action (GTK_WIDGET (window), "win.run", NULL));
  g_assert_true (sp_test_wait_for (is_idle, window, 20000));
  gtk_text_buffer_set_modified (buffer, FALSE);
}

/* The window as drawn, for a look at the card (not compared). */
static void
save_screenshot (SpWindow *window, const char *name)
{
  g_autoptr (GdkPaintable) paintable = gtk_widget_paintable_new (GTK_WIDGET (window));
  g_autoptr (GskRenderNode) node = NULL;
  g_autoptr (GdkTexture) texture = NULL;
  g_autofree char *path = NULL;
  const char *dir = g_getenv ("SANDPAD_SCREENSHOT_DIR");
  GtkSnapshot *snapshot = gtk_snapshot_new ();

  gtk_test_widget_wait_for_draw (GTK_WIDGET (window));
  gdk_paintable_snapshot (paintable, snapshot, gtk_widget_get_width (GTK_WIDGET (window)),
                          gtk_widget_get_height (GTK_WIDGET (window)));
  node = gtk_snapshot_free_to_node (snapshot);
  if (node == NULL)
    return;
  texture = gsk_renderer_render_texture (gtk_native_get_renderer (GTK_NATIVE (window)), node, NULL);
  path = g_build_filename (dir ? dir : g_get_tmp_dir (), name, NULL);
  gdk_texture_save_to_png (texture, path);
  g_test_message ("screenshot: %s", path);
}

/* No Landlock, no seccomp, no namespaces: the card leads with that, in
 * words, before and during a run. */
static void
test_degraded (void)
{
  SpWindow *window = open_window ();
  g_autofree char *text = card_text (window);

  g_test_message ("card: %s", text);
  g_assert_true (card_reduced (window));
  g_assert_nonnull (strstr (text, "Reduced isolation: fallback sandbox"));
  g_assert_nonnull (strstr (text, "can read and change every file your user account can"));
  g_assert_nonnull (strstr (text, "seccomp is missing"));
  g_assert_nonnull (strstr (text, "other processes"));
  /* The old card's fixed promise is gone. */
  g_assert_null (strstr (text, "writes only its own folder"));
  g_assert_null (strstr (text, "own folder"));
  save_screenshot (window, "sandpad-policy-degraded.png");

  /* The run's own started event says the same. */
  run_snippet (window, "print('x')\n");
  g_free (text);
  text = card_text (window);
  g_assert_true (card_reduced (window));
  g_assert_nonnull (strstr (text, "every file your user account can"));
  close_window (window);
}

static void
test_real (void)
{
  SpWindow *window = open_window ();
  SpRunnerSupervisor *sup = sp_application_get_supervisor (app);
  g_autofree char *text = card_text (window);

  g_test_message ("mode %s; card: %s", sp_runner_supervisor_get_sandbox_mode (sup), text);
  /* This machine gives the runner user namespaces, Landlock and seccomp:
   * the card claims what holds, and nothing is missing. */
  g_assert_cmpstr (sp_runner_supervisor_get_sandbox_mode (sup), ==, "namespaces");
  g_assert_false (card_reduced (window));
  g_assert_nonnull (strstr (text, "Strong isolation"));
  g_assert_nonnull (strstr (text, "none of your files"));
  g_assert_null (strstr (text, "⚠"));
  run_snippet (window, "print('x')\n");
  g_assert_false (card_reduced (window));
  close_window (window);
}

static void
test_real_fallback (void)
{
  SpWindow *window = open_window ();
  SpRunnerSupervisor *sup = sp_application_get_supervisor (app);
  g_autofree char *text = card_text (window);

  g_test_message ("card: %s", text);
  g_assert_cmpstr (sp_runner_supervisor_get_sandbox_mode (sup), ==, "fallback");
  g_assert_true (card_reduced (window));
  g_assert_nonnull (strstr (text, "Reduced isolation: fallback sandbox"));
  g_assert_nonnull (strstr (text, "other processes"));
  /* Landlock and seccomp are there: said as holding, not as missing. */
  g_assert_nonnull (strstr (text, "writes only its own folder"));
  g_assert_null (strstr (text, "seccomp is missing"));
  g_assert_null (strstr (text, "every file your user account can"));
  save_screenshot (window, "sandpad-policy-fallback.png");
  close_window (window);
}

/* Python runs until the card names a cold start's reason, or 40 runs. */
static void
test_warm_broken (void)
{
  SpWindow *window = open_window ();
  g_autofree char *text = NULL;

  for (int i = 0; i < 40; i++)
    {
      run_snippet (window, "print('x')\n");
      g_free (text);
      text = card_text (window);
      /* Control: until the warm parent has said so, a run is simply cold. */
      if (i == 0)
        g_assert_nonnull (strstr (text, "cold start"));
      if (strstr (text, "cold start: ") != NULL)
        break;
      g_usleep (250 * 1000);
    }
  g_test_message ("card: %s", text);
  g_assert_nonnull (strstr (text, "cold start: "));
  g_assert_nonnull (strstr (text, "sandpad-warm-init"));
  g_assert_null (strstr (text, "warm start"));
  close_window (window);
}

/* A copy of the runner and its warm helpers in a folder of its own, the
 * helper not executable by anyone (root included). */
static char *
copy_runner_broken (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sp-policy-XXXXXX", NULL);
  g_autofree char *from = g_path_get_dirname (g_getenv ("SANDPAD_RUNNER"));
  static const char *const names[] = { "sandpad-runner", "sandpad-warm.so", "sandpad-warm-init" };

  for (size_t i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autoptr (GFile) src = g_file_new_build_filename (from, names[i], NULL);
      g_autoptr (GFile) dst = g_file_new_build_filename (dir, names[i], NULL);
      g_assert_true (g_file_copy (src, dst, G_FILE_COPY_NONE, NULL, NULL, NULL, NULL));
      g_assert_cmpint (g_chmod (g_file_peek_path (dst), i == 2 ? 0 : 0755), ==, 0);
    }
  return g_build_filename (dir, "sandpad-runner", NULL);
}

static void
remove_copy (const char *runner)
{
  g_autofree char *dir = g_path_get_dirname (runner);
  static const char *const names[] = { "sandpad-runner", "sandpad-warm.so", "sandpad-warm-init" };

  for (size_t i = 0; i < G_N_ELEMENTS (names); i++)
    {
      g_autofree char *path = g_build_filename (dir, names[i], NULL);
      g_unlink (path);
    }
  g_rmdir (dir);
}

/* A wrapper that starts the real runner in fallback mode. */
static char *
write_fallback_wrapper (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sp-policy-XXXXXX", NULL);
  char *path = g_build_filename (dir, "runner-fallback", NULL);
  g_autofree char *script = g_strdup_printf ("#!/bin/sh\nexec '%s' --sandbox fallback \"$@\"\n",
                                             g_getenv ("SANDPAD_RUNNER"));

  g_assert_true (g_file_set_contents (path, script, -1, NULL));
  g_assert_cmpint (g_chmod (path, 0755), ==, 0);
  return path;
}

int
main (int argc, char **argv)
{
  const char *scenario = g_getenv ("SANDPAD_TEST_POLICY");
  g_autofree char *wrapper = NULL;
  g_autofree char *copy = NULL;
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  g_assert_nonnull (scenario);
  if (g_str_equal (scenario, "degraded"))
    {
      g_setenv ("SANDPAD_RUNNER", g_getenv ("SANDPAD_FAKE_RUNNER"), TRUE);
      g_setenv ("SANDPAD_FAKE_SANDBOX_MODE", "fallback", TRUE);
      g_setenv ("SANDPAD_FAKE_SANDBOX_LAYERS",
                "uid:1000 subreaper rlimits clean-env caps-dropped no-new-privs network:off", TRUE);
    }
  else if (g_str_equal (scenario, "real-fallback"))
    {
      wrapper = write_fallback_wrapper ();
      g_setenv ("SANDPAD_RUNNER", wrapper, TRUE);
    }
  else if (g_str_equal (scenario, "warm-broken"))
    {
      copy = copy_runner_broken ();
      g_setenv ("SANDPAD_RUNNER", copy, TRUE);
    }
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));

  if (g_str_equal (scenario, "degraded"))
    g_test_add_func ("/Sandpad/Policy/degraded", test_degraded);
  else if (g_str_equal (scenario, "real"))
    g_test_add_func ("/Sandpad/Policy/real", test_real);
  else if (g_str_equal (scenario, "warm-broken"))
    g_test_add_func ("/Sandpad/Policy/warm-broken", test_warm_broken);
  else
    g_test_add_func ("/Sandpad/Policy/real-fallback", test_real_fallback);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  if (copy != NULL)
    remove_copy (copy);
  if (wrapper != NULL)
    {
      g_autofree char *dir = g_path_get_dirname (wrapper);
      g_unlink (wrapper);
      g_rmdir (dir);
    }
  return ret;
}
