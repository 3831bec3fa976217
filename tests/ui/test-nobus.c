/* test-nobus.c: without a session bus dconf cannot store a setting (its
 * service is on the bus): the first change made is said once, in the
 * window, instead of failing with only "failed to commit changes to
 * dconf" on stderr (issue 23). Run with GSETTINGS_BACKEND=dconf and a
 * session bus address that leads nowhere. */
#include "config.h"

#include <gtksourceview/gtksource.h>
#include <string.h>

#include "sp-application.h"
#include "sp-reload-bar.h"
#include "sp-test-wait.h"
#include "sp-ui-test.h"
#include "sp-window.h"

static SpApplication *app;

static gboolean
notice_shown (gpointer data)
{
  SpReloadBar *bar = sp_window_get_notice_bar (data);

  const char *message = bar != NULL ? sp_reload_bar_get_message (bar) : NULL;

  return bar != NULL && gtk_widget_get_visible (GTK_WIDGET (bar)) && message != NULL
         && strstr (message, "Preferences cannot be saved") != NULL;
}

static void
spin (int ms)
{
  gint64 until = g_get_monotonic_time () + ms * 1000;

  while (g_get_monotonic_time () < until)
    g_main_context_iteration (NULL, FALSE);
}

static void
test_change_not_kept (void)
{
  GSettings *settings = sp_application_get_settings (app);
  SpWindow *window = sp_window_new (app);
  SpReloadBar *bar;

  gtk_window_present (GTK_WINDOW (window));
  g_assert_false (notice_shown (window));
  /* As Preferences does. */
  g_settings_set_uint (settings, "run-timeout-seconds", 12);
  g_assert_true (sp_test_wait_for (notice_shown, window, 5000));
  bar = sp_window_get_notice_bar (window);
  g_test_message ("%s", sp_reload_bar_get_message (bar));
  g_assert_nonnull (strstr (sp_reload_bar_get_message (bar), "session bus"));
  /* The change holds for this run of Sandpad. */
  g_assert_cmpuint (g_settings_get_uint (settings, "run-timeout-seconds"), ==, 12);

  /* Once: dismissed, it does not come back with the next change. */
  g_signal_emit_by_name (find_button (GTK_WIDGET (bar), "_Dismiss"), "clicked");
  g_assert_false (notice_shown (window));
  g_settings_set_uint (settings, "run-timeout-seconds", 13);
  spin (500);
  g_assert_false (notice_shown (window));
  close_window (window);
}

int
main (int argc, char **argv)
{
  int ret;

  if (!sp_ui_test_have_display ())
    return 0;
  if (g_strcmp0 (g_getenv ("GSETTINGS_BACKEND"), "dconf") != 0)
    {
      g_print ("1..0 # SKIP needs GSETTINGS_BACKEND=dconf\n");
      return 0;
    }
  {
    /* The point is a bus that is not there. */
    g_autoptr (GDBusConnection) bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, NULL);
    if (bus != NULL)
      {
        g_print ("1..0 # SKIP a session bus is reachable\n");
        return 0;
      }
  }
  {
    g_autoptr (GSettingsBackend) backend = NULL;
    g_autoptr (GSettings) probe = g_settings_new ("io.github.sandpad.Sandpad");
    g_object_get (probe, "backend", &backend, NULL);
    if (!g_str_equal (G_OBJECT_TYPE_NAME (backend), "DConfSettingsBackend"))
      {
        g_print ("1..0 # SKIP the dconf GIO module is not installed\n");
        return 0;
      }
  }
  gtk_test_init (&argc, &argv, NULL);
  gtk_source_init ();
  app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (app), NULL, NULL));
  g_test_add_func ("/Sandpad/NoBus/change-not-kept", test_change_not_kept);
  ret = g_test_run ();

  g_application_quit (G_APPLICATION (app));
  g_clear_object (&app);
  return ret;
}
