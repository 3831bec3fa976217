/* sp-application.c: the application: settings, the runner, windows.
 *
 * One runner serves every window: it is started when the app starts and
 * restarted by the supervisor if it crashes, so a crash costs the run that
 * was going, never the app or the user's text.
 *
 * One process per session bus: `sandpad file.py` while Sandpad runs (a
 * terminal, a file manager, an assistant) hands its command line to the
 * running instance over D-Bus and exits, so the windows and their unsaved
 * text exist once. Where there is no shared bus (none at all, or two
 * logins on one home), the state lock decides: the process that has it
 * restores and keeps the autosave copies and the session, any other
 * leaves them alone (sp-app-session.c, sp-window-save.c). */
#define G_LOG_DOMAIN "sp-application"

#include "config.h"

#include <glib/gi18n.h>
#include <stdlib.h>

#include "sp-app-session.h"
#include "sp-application.h"
#include "sp-image-decode.h"
#include "sp-preferences-window.h"
#include "sp-state-lock.h"
#include "sp-window.h"

struct _SpApplication
{
  AdwApplication parent_instance;

  GSettings *settings;
  SpRunnerSupervisor *supervisor;
  SpStallMeter *stall_meter;
  /* NULL when another process owns the state folder: state_problem says
   * which. */
  SpStateLock *state_lock;
  char *state_problem;
  SpAppContext *context;
  /* Why changed settings are not kept (dconf without a session bus), or
   * NULL; said once, at the first change. */
  char *settings_problem;
  gboolean settings_problem_said;
};

G_DEFINE_FINAL_TYPE (SpApplication, sp_application, ADW_TYPE_APPLICATION)

static void
apply_style (SpApplication *self)
{
  g_autofree char *style = g_settings_get_string (self->settings, "style-variant");
  AdwColorScheme scheme = ADW_COLOR_SCHEME_DEFAULT;

  if (g_str_equal (style, "light"))
    scheme = ADW_COLOR_SCHEME_FORCE_LIGHT;
  else if (g_str_equal (style, "dark"))
    scheme = ADW_COLOR_SCHEME_FORCE_DARK;
  adw_style_manager_set_color_scheme (adw_style_manager_get_default (), scheme);
}

/* ---- frames for the stall meter ---- */

static void
on_after_paint (GdkFrameClock *clock, SpStallMeter *meter)
{
  sp_stall_meter_frame (meter, clock);
}

/* The clock ticks only while something asks for frames: a window with
 * nothing to redraw is not frozen. While measuring, every window's clock
 * runs each refresh (as during an animation), so a gap between painted
 * frames is one the window could not paint, whatever changed in it. */
static void
on_window_realize (GtkWidget *window, SpStallMeter *meter)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (window);

  g_signal_connect_object (clock, "after-paint", G_CALLBACK (on_after_paint), meter, 0);
  gdk_frame_clock_begin_updating (clock);
}

static void
on_window_unrealize (GtkWidget *window, SpStallMeter *meter)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (window);

  gdk_frame_clock_end_updating (clock);
  g_signal_handlers_disconnect_by_func (clock, on_after_paint, meter);
  sp_stall_meter_forget_clock (meter, clock);
}

static void
on_window_added (GtkApplication *app, GtkWindow *window, SpStallMeter *meter)
{
  g_signal_connect_object (window, "realize", G_CALLBACK (on_window_realize), meter, 0);
  g_signal_connect_object (window, "unrealize", G_CALLBACK (on_window_unrealize), meter, 0);
  if (gtk_widget_get_realized (GTK_WIDGET (window)))
    on_window_realize (GTK_WIDGET (window), meter);
}

static void
sp_application_activate (GApplication *app)
{
  SpApplication *self = SP_APPLICATION (app);
  GtkWindow *window = gtk_application_get_active_window (GTK_APPLICATION (app));

  /* The last session's windows and unsaved text come back first. */
  if (window == NULL)
    window = sp_app_session_restore (GTK_APPLICATION (self));
  if (window == NULL)
    window = GTK_WINDOW (sp_window_new (self));
  gtk_window_present (window);
}

static void
sp_application_open (GApplication *app, GFile **files, int n_files, const char *hint)
{
  SpApplication *self = SP_APPLICATION (app);

  sp_app_session_restore (GTK_APPLICATION (self));
  for (int i = 0; i < n_files; i++)
    {
      GtkWindow *shown = sp_app_session_find_window (GTK_APPLICATION (app), files[i]);

      /* The restored session may show it already. */
      if (shown != NULL)
        {
          gtk_window_present (shown);
          continue;
        }
      /* Shown once it has the file's text; a file that is not text makes
       * no window. */
      sp_window_open_new (self, files[i]);
    }
}

/* Files are named relative to the directory of the process that was
 * started, which is not ours when the command line came over D-Bus. */
static int
sp_application_command_line (GApplication *app, GApplicationCommandLine *cmdline)
{
  g_autoptr (GPtrArray) files = g_ptr_array_new_with_free_func (g_object_unref);
  gboolean options_done = FALSE;
  g_auto (GStrv) argv = NULL;
  int argc = 0;

  argv = g_application_command_line_get_arguments (cmdline, &argc);
  for (int i = 1; i < argc; i++)
    {
      /* What is left after the local options were parsed: file names,
       * and a "--" that ended the options. */
      if (!options_done && g_str_equal (argv[i], "--"))
        {
          options_done = TRUE;
          continue;
        }
      g_ptr_array_add (files, g_application_command_line_create_file_for_arg (cmdline, argv[i]));
    }
  if (files->len == 0)
    g_application_activate (app);
  else
    g_application_open (app, (GFile **) files->pdata, (int) files->len, "");
  return EXIT_SUCCESS;
}

static int
sp_application_handle_local_options (GApplication *app, GVariantDict *options)
{
  if (g_variant_dict_contains (options, "version"))
    {
      g_print ("sandpad %s\n", PACKAGE_VERSION);
      return EXIT_SUCCESS;
    }
  return -1; /* go on: the command line goes to the primary instance */
}

static void
on_about (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (user_data));
  const char *developers[] = { "The Sandpad developers", NULL };

  adw_show_about_window (parent, "application-name", _ ("Sandpad"), "application-icon", APP_ID,
                         "version", PACKAGE_VERSION, "comments",
                         _ ("Run code snippets in a kernel sandbox"), "website",
                         "https://github.com/sandpad/sandpad", "license-type", GTK_LICENSE_GPL_3_0,
                         "developers", developers, NULL);
}

/* The first change of a setting that cannot be kept is said in the window
 * it was made from (the preferences' parent). */
static void
on_settings_changed (SpApplication *self)
{
  if (self->settings_problem == NULL || self->settings_problem_said)
    return;
  for (GList *l = gtk_application_get_windows (GTK_APPLICATION (self)); l != NULL; l = l->next)
    /* A window being built (its own settings, as it starts) is not one
     * to say it in yet. */
    if (SP_IS_WINDOW (l->data) && gtk_widget_get_visible (l->data))
      {
        sp_window_show_autosave_notice (l->data, self->settings_problem);
        self->settings_problem_said = TRUE;
        return;
      }
}

/* dconf writes through its service on the session bus: without one each
 * change fails with only a warning on stderr ("failed to commit changes
 * to dconf"), and Preferences seemed to work. Reading needs no bus, so the
 * settings are still read; changes are held back (g_settings_delay, never
 * applied) so they last until Sandpad quits, and the window says so. */
static void
check_settings_kept (SpApplication *self)
{
  g_autoptr (GSettingsBackend) backend = NULL;
  g_autoptr (GError) error = NULL;
  g_autoptr (GDBusConnection) bus = NULL;

  g_object_get (self->settings, "backend", &backend, NULL);
  if (backend == NULL || !g_str_equal (G_OBJECT_TYPE_NAME (backend), "DConfSettingsBackend"))
    return;
  bus = g_bus_get_sync (G_BUS_TYPE_SESSION, NULL, &error);
  if (bus != NULL)
    return;
  g_debug ("no session bus: %s", error->message);
  g_settings_delay (self->settings);
  self->settings_problem = g_strdup (
    _ ("Preferences cannot be saved: there is no session bus (D-Bus), through which dconf "
       "stores them. Changes last until Sandpad quits."));
  g_signal_connect_object (self->settings, "changed", G_CALLBACK (on_settings_changed), self,
                           G_CONNECT_SWAPPED);
}

static void
on_preferences (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  SpApplication *self = user_data;
  GtkWindow *parent = gtk_application_get_active_window (GTK_APPLICATION (self));
  GtkWidget *prefs = sp_preferences_window_new (self->settings);

  gtk_window_set_transient_for (GTK_WINDOW (prefs), parent);
  gtk_window_present (GTK_WINDOW (prefs));
}

static void
on_quit (GSimpleAction *action, GVariant *param, gpointer user_data)
{
  /* Each window asks about unsaved text as it closes. */
  GList *windows = gtk_application_get_windows (GTK_APPLICATION (user_data));

  /* Quitting keeps every open window in the session. */
  sp_app_session_freeze (GTK_APPLICATION (user_data));
  for (GList *l = g_list_copy (windows); l != NULL; l = g_list_delete_link (l, l))
    gtk_window_close (l->data);
}

static const GActionEntry app_actions[] = {
  { "about", on_about },
  { "preferences", on_preferences },
  { "quit", on_quit },
};

/* The autosave copies and the session are this process's only if no
 * other holds them (a start without a session bus, or from another login
 * on the same home): else they are left alone, and the reason kept for
 * the windows to say. */
static void
take_state (SpApplication *self)
{
  g_autofree char *dir = sp_state_lock_default_dir ();
  g_autoptr (GError) error = NULL;

  self->state_lock = sp_state_lock_acquire (dir, &error);
  if (self->state_lock != NULL)
    return;
  self->state_problem = g_strdup (error->message);
  g_printerr ("sandpad: %s: this start does not restore or change the other's windows and "
              "unsaved text, and keeps no copies of its own\n",
              error->message);
}

/* The context's window factory (sp-app-context.h): the one place windows
 * are made for the session and the window's own actions. */
static GtkWindow *
new_window (GtkApplication *app, SpAppContext *context)
{
  return GTK_WINDOW (sp_window_new_in (app, context));
}

static void
sp_application_startup (GApplication *app)
{
  SpApplication *self = SP_APPLICATION (app);
  g_autofree char *runner = NULL;
  static const char *const run_accels[] = { "<Control>Return", NULL };
  static const char *const run_selection_accels[] = { "<Control><Shift>Return", NULL };
  static const char *const stop_accels[] = { "<Control>period", NULL };
  /* Neither is a key of the editor's or the input line's own (GTK 4.8,
   * GtkSourceView 5.6): a disabled action's key reaches them and does
   * nothing. */
  static const char *const focus_input_accels[] = { "<Control>i", NULL };
  static const char *const goto_error_accels[] = { "<Control>e", NULL };
  static const char *const new_accels[] = { "<Control>n", NULL };
  static const char *const open_accels[] = { "<Control>o", NULL };
  static const char *const save_accels[] = { "<Control>s", NULL };
  static const char *const save_as_accels[] = { "<Control><Shift>s", NULL };
  static const char *const prefs_accels[] = { "<Control>comma", NULL };
  static const char *const quit_accels[] = { "<Control>q", NULL };
  static const char *const close_accels[] = { "<Control>w", NULL };

  G_APPLICATION_CLASS (sp_application_parent_class)->startup (app);

  g_action_map_add_action_entries (G_ACTION_MAP (self), app_actions, G_N_ELEMENTS (app_actions),
                                   self);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.run", run_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.run-selection",
                                         run_selection_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.stop", stop_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.focus-input",
                                         focus_input_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.goto-error",
                                         goto_error_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.new", new_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.open", open_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.save", save_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "win.save-as", save_as_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.preferences", prefs_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "app.quit", quit_accels);
  gtk_application_set_accels_for_action (GTK_APPLICATION (self), "window.close", close_accels);

  /* Tab into error text walks its links, one stop each; selecting the
   * whole label on focus would swallow them (output is still selectable
   * with the mouse or Shift and the arrows). */
  g_object_set (gtk_settings_get_default (), "gtk-label-select-on-focus", FALSE, NULL);

  self->settings = g_settings_new (APP_ID);
  check_settings_kept (self);
  g_signal_connect_object (self->settings, "changed::style-variant", G_CALLBACK (apply_style), self,
                           G_CONNECT_SWAPPED);
  apply_style (self);

  /* SANDPAD_RUNNER, the installed runner, or the build tree's; the runner
   * picks its mode and runs without --strict, and allows the environment
   * the app names (--allow-any-environment, below). That configuration is
   * what tests/core/test-app-config.c attacks. */
  /* Measuring the app's responsiveness is opt-in: a timer that runs
   * every few milliseconds is not free. */
  if (g_getenv ("SANDPAD_STALL_LOG") != NULL && g_getenv ("SANDPAD_STALL_LOG")[0] != '\0')
    {
      g_autoptr (GError) error = NULL;
      self->stall_meter = sp_stall_meter_new (g_getenv ("SANDPAD_STALL_LOG"), &error);
      if (self->stall_meter == NULL)
        g_printerr ("sandpad: SANDPAD_STALL_LOG: %s\n", error->message);
      else
        g_signal_connect_object (self, "window-added", G_CALLBACK (on_window_added),
                                 self->stall_meter, 0);
    }

  take_state (self);

  runner = sp_runner_find_helper ();
  self->supervisor = sp_runner_supervisor_new (runner);
  /* The app names the environment of the file its user opened (still
   * checked by the runner, and read-only to the run). */
  static const char *const runner_args[] = { "--allow-any-environment", NULL };
  sp_runner_supervisor_set_runner_args (self->supervisor, runner_args);
  sp_runner_supervisor_start (self->supervisor);

  /* What windows and the session are handed of the application: they
   * never ask it. */
  self->context = sp_app_context_new (self->settings, self->supervisor, self->state_lock,
                                      self->state_problem);
  sp_app_context_set_window_factory (self->context, new_window);
  sp_app_session_attach (GTK_APPLICATION (self), self->context);
}

static void
sp_application_shutdown (GApplication *app)
{
  SpApplication *self = SP_APPLICATION (app);

  /* Closing the runner's socket makes it kill every run and exit. */
  if (self->supervisor != NULL)
    sp_runner_supervisor_stop (self->supervisor);
  G_APPLICATION_CLASS (sp_application_parent_class)->shutdown (app);
}

static void
sp_application_dispose (GObject *object)
{
  SpApplication *self = SP_APPLICATION (object);

  g_clear_object (&self->supervisor);
  g_clear_object (&self->settings);
  g_clear_object (&self->stall_meter);
  /* Last: the windows that wrote copies under it are gone. */
  g_clear_object (&self->context);
  g_clear_object (&self->state_lock);
  g_clear_pointer (&self->state_problem, g_free);
  g_clear_pointer (&self->settings_problem, g_free);
  G_OBJECT_CLASS (sp_application_parent_class)->dispose (object);
}

static void
sp_application_class_init (SpApplicationClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GApplicationClass *app_class = G_APPLICATION_CLASS (klass);

  object_class->dispose = sp_application_dispose;
  app_class->startup = sp_application_startup;
  app_class->shutdown = sp_application_shutdown;
  app_class->activate = sp_application_activate;
  app_class->open = sp_application_open;
  app_class->command_line = sp_application_command_line;
  app_class->handle_local_options = sp_application_handle_local_options;
}

static void
sp_application_init (SpApplication *self)
{
  static const GOptionEntry options[] = {
    { "version", 0, 0, G_OPTION_ARG_NONE, NULL, N_ ("Print the version and exit"), NULL },
    { NULL },
  };

  /* Options of our own make --help a local one (GApplication forwards an
   * unknown command line whole otherwise) and say what FILE… is. */
  g_application_add_main_option_entries (G_APPLICATION (self), options);
  g_application_set_option_context_parameter_string (G_APPLICATION (self), _ ("[FILE…]"));
}

SpApplication *
sp_application_new (void)
{
  /* Unique: a second start hands its files to this one (D-Bus
   * activation from a file manager calls open, a shell's command line
   * comes to command_line with the caller's directory). Without a session
   * bus GApplication runs as a non-unique instance, and the state lock
   * is what keeps two from sharing the autosave folder. */
  return g_object_new (SP_TYPE_APPLICATION, "application-id", APP_ID, "flags",
                       G_APPLICATION_HANDLES_OPEN | G_APPLICATION_HANDLES_COMMAND_LINE,
                       "resource-base-path", "/io/github/sandpad/Sandpad", NULL);
}

GSettings *
sp_application_get_settings (SpApplication *self)
{
  g_return_val_if_fail (SP_IS_APPLICATION (self), NULL);
  return self->settings;
}

SpRunnerSupervisor *
sp_application_get_supervisor (SpApplication *self)
{
  g_return_val_if_fail (SP_IS_APPLICATION (self), NULL);
  return self->supervisor;
}

SpStateLock *
sp_application_get_state_lock (SpApplication *self)
{
  g_return_val_if_fail (SP_IS_APPLICATION (self), NULL);
  return self->state_lock;
}

const char *
sp_application_get_state_problem (SpApplication *self)
{
  g_return_val_if_fail (SP_IS_APPLICATION (self), NULL);
  return self->state_problem;
}

SpAppContext *
sp_application_get_context (SpApplication *self)
{
  g_return_val_if_fail (SP_IS_APPLICATION (self), NULL);
  return self->context;
}

SpStallMeter *
sp_application_get_stall_meter (SpApplication *self)
{
  g_return_val_if_fail (SP_IS_APPLICATION (self), NULL);
  return self->stall_meter;
}
