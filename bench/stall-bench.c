/* stall-bench.c: how long the window freezes while a run floods it.
 *
 * Drives the app itself (SpApplication and SpWindow, the code `sandpad`
 * runs, against the real sandboxed runner) in a real window: types
 * `for i in range(N): print(i)`, presses Run, and keeps the main loop
 * going until the run is over and the panel has shown everything. The
 * app's own stall meter (SANDPAD_STALL_LOG) says how late its
 * high-priority timer ran at worst: the longest time the window could not
 * react to anything. Measurements, not assertions. */
#include "config.h"

#include <gtksourceview/gtksource.h>
#include <stdlib.h>
#include <string.h>

#include "sp-application.h"
#include "sp-exec-panel.h"
#include "sp-window.h"

typedef struct
{
  SpApplication *app;
  SpWindow *window;
} Bench;

static void
spin_until (gboolean (*cond) (Bench *), Bench *bench, double seconds)
{
  gint64 deadline = g_get_monotonic_time () + (gint64) (seconds * G_USEC_PER_SEC);

  while (!cond (bench) && g_get_monotonic_time () < deadline)
    g_main_context_iteration (NULL, TRUE);
}

static gboolean
runner_ready (Bench *bench)
{
  return sp_runner_supervisor_is_ready (sp_application_get_supervisor (bench->app));
}

static gboolean
run_over (Bench *bench)
{
  return !sp_window_get_running (bench->window)
         && !sp_transcript_get_busy (
           sp_exec_panel_get_transcript (SP_EXEC_PANEL (sp_window_get_exec_panel (bench->window))));
}

static gboolean
never (Bench *bench)
{
  return FALSE;
}

/* The process's resident memory, from /proc. */
static long
rss_mib (void)
{
  g_autofree char *status = NULL;
  const char *line;

  if (!g_file_get_contents ("/proc/self/status", &status, NULL, NULL)
      || (line = strstr (status, "\nVmRSS:")) == NULL)
    return -1;
  return strtol (line + 7, NULL, 10) / 1024;
}

static void
settle (SpStallMeter *meter)
{
  guint64 ticks = sp_stall_meter_get_ticks (meter);

  while (sp_stall_meter_get_ticks (meter) == ticks)
    g_main_context_iteration (NULL, TRUE);
}

static void
measure (Bench *bench, guint lines, guint limit_mib)
{
  SpStallMeter *meter = sp_application_get_stall_meter (bench->app);
  GtkTextBuffer *buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (bench->window));
  g_autofree char *code = g_strdup_printf ("for i in range(%u):\n    print(i)\n", lines);
  g_autofree char *mark = g_strdup_printf ("%u lines, output limit %u MiB", lines, limit_mib);
  gint64 start;
  double seconds;

  g_settings_set_uint (sp_application_get_settings (bench->app), "output-limit-mib", limit_mib);
  gtk_text_buffer_set_text (buffer, code, -1);
  /* Let the window settle, then measure from a clean slate. */
  spin_until (never, bench, 0.5);
  sp_stall_meter_reset (meter);
  sp_stall_meter_mark (meter, mark);
  start = g_get_monotonic_time ();
  gtk_widget_activate_action (GTK_WIDGET (bench->window), "win.run", NULL);
  spin_until (run_over, bench, 0.2);
  spin_until (run_over, bench, 300);
  seconds = (g_get_monotonic_time () - start) / 1e6;
  /* A frame or two after the last text: its layout counts too. */
  spin_until (never, bench, 0.5);
  /* The timer measures a stall when it runs after it: let it run once
   * more, or a freeze in the last iteration would go unseen. */
  settle (meter);
  g_print ("%9u lines  %2u MiB limit  longest stall %7.1f ms (app working %7.1f ms)"
           "  shown after %6.2f s  RSS %4ld MiB\n",
           lines, limit_mib, sp_stall_meter_get_longest_us (meter) / 1e3,
           sp_stall_meter_get_longest_busy_us (meter) / 1e3, seconds, rss_mib ());
}

int
main (int argc, char **argv)
{
  static const struct { guint lines, limit_mib; } cases[] = {
    { 10000, 1 }, { 100000, 1 }, { 1000000, 1 }, { 1000000, 16 },
  };
  g_autofree char *log = NULL;
  Bench bench = { 0 };

  if (g_getenv ("DISPLAY") == NULL && g_getenv ("WAYLAND_DISPLAY") == NULL)
    {
      g_printerr ("stall-bench: no display; run it through bench/stall.sh\n");
      return 2;
    }
  /* The app measures itself only when asked to. */
  if (g_getenv ("SANDPAD_STALL_LOG") == NULL)
    {
      log = g_build_filename (g_get_tmp_dir (), "sandpad-stall.log", NULL);
      g_setenv ("SANDPAD_STALL_LOG", log, TRUE);
    }
  gtk_init ();
  gtk_source_init ();
  bench.app = sp_application_new ();
  g_assert_true (g_application_register (G_APPLICATION (bench.app), NULL, NULL));
  g_assert_nonnull (sp_application_get_stall_meter (bench.app));
  bench.window = sp_window_new (bench.app);
  gtk_window_set_default_size (GTK_WINDOW (bench.window), 1000, 700);
  gtk_window_present (GTK_WINDOW (bench.window));
  spin_until (runner_ready, &bench, 20);
  if (!runner_ready (&bench))
    {
      g_printerr ("stall-bench: the runner did not start\n");
      return 1;
    }

  /* Idle is after one small run: the first run's one-time costs (fonts,
   * styles, the runner's first start) are not the output's. */
  measure (&bench, 10, 1);
  gtk_widget_activate_action (sp_window_get_exec_panel (bench.window), "panel.clear", NULL);
  spin_until (never, &bench, 0.5);
  g_print ("idle: RSS %ld MiB\n", rss_mib ());
  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      if (argc > 1 && strtoul (argv[1], NULL, 10) != cases[i].lines)
        continue;
      measure (&bench, cases[i].lines, cases[i].limit_mib);
    }
  /* Clear: what the output took should go back. */
  gtk_widget_activate_action (sp_window_get_exec_panel (bench.window), "panel.clear", NULL);
  spin_until (never, &bench, 0.5);
  g_print ("after Clear: RSS %ld MiB\n", rss_mib ());

  gtk_text_buffer_set_modified (GTK_TEXT_BUFFER (sp_window_get_buffer (bench.window)), FALSE);
  gtk_window_destroy (GTK_WINDOW (bench.window));
  g_application_quit (G_APPLICATION (bench.app));
  g_clear_object (&bench.app);
  return 0;
}
