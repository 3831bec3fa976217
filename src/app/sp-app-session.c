/* sp-app-session.c: the open windows across starts, and restoring unsaved
 * text after a crash. */
#define G_LOG_DOMAIN "sp-application"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-app-session.h"
#include "sp-autosave.h"
#include "sp-session-store.h"
#include "sp-window.h"

/* Kept on the application object: no globals. */
typedef struct
{
  SpAppContext *context;
  gboolean frozen;
  gboolean restored;
  guint save_id;
} SessionState;

static void
session_state_free (gpointer data)
{
  SessionState *state = data;

  g_clear_object (&state->context);
  g_free (state);
}

static SessionState *
state_of (GtkApplication *app)
{
  SessionState *state = g_object_get_data (G_OBJECT (app), "sp-session-state");

  if (state == NULL)
    {
      state = g_new0 (SessionState, 1);
      g_object_set_data_full (G_OBJECT (app), "sp-session-state", state, session_state_free);
    }
  return state;
}

static GPtrArray *
describe_windows (GtkApplication *app)
{
  GPtrArray *windows = g_ptr_array_new_with_free_func ((GDestroyNotify) sp_session_window_free);
  g_autoptr (GList) list = g_list_copy (gtk_application_get_windows (app));

  /* gtk_application_get_windows lists the most recently focused first;
   * the session keeps the order in which they were opened. */
  list = g_list_reverse (list);
  for (GList *l = list; l != NULL; l = l->next)
    {
      SpWindow *window;
      SpSessionWindow *w;

      if (!SP_IS_WINDOW (l->data))
        continue;
      window = l->data;
      w = g_new0 (SpSessionWindow, 1);
      if (sp_window_get_file (window) != NULL)
        w->path = g_file_get_path (sp_window_get_file (window));
      w->autosave_id = g_strdup (sp_window_get_autosave_id (window));
      w->language = g_strdup (sp_window_get_language_name (window));
      w->panel_fraction = sp_window_get_panel_fraction (window);
      g_ptr_array_add (windows, w);
    }
  return windows;
}

/* The state lock, or NULL when the session is not this process's to
 * write (another holds it): every read and write of the state goes
 * through here. */
static SpStateLock *
state_lock_of (GtkApplication *app)
{
  SpAppContext *context = state_of (app)->context;

  return context != NULL ? sp_app_context_get_state_lock (context) : NULL;
}

void
sp_app_session_save (GtkApplication *app)
{
  SpStateLock *lock = state_lock_of (app);
  g_autoptr (GPtrArray) windows = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GError) error = NULL;

  /* Another process's session describes its windows, not ours. */
  if (lock == NULL)
    return;
  path = sp_state_lock_dup_session_path (lock);
  windows = describe_windows (app);
  if (!sp_session_store_save (path, windows, &error))
    g_message ("cannot save the session: %s", error->message);
}

static gboolean
save_idle (gpointer data)
{
  GtkApplication *app = data;

  state_of (app)->save_id = 0;
  sp_app_session_save (app);
  return G_SOURCE_REMOVE;
}

static void
schedule_save (GtkApplication *app)
{
  SessionState *state = state_of (app);

  if (state->save_id == 0)
    state->save_id = g_idle_add_full (G_PRIORITY_DEFAULT_IDLE, save_idle, g_object_ref (app),
                                      g_object_unref);
}

static void
on_window_added (GtkApplication *app, GtkWindow *window)
{
  if (SP_IS_WINDOW (window))
    schedule_save (app);
}

static void
on_window_removed (GtkApplication *app, GtkWindow *window)
{
  GList *windows = gtk_application_get_windows (app);
  gboolean others = FALSE;

  if (!SP_IS_WINDOW (window) || state_of (app)->frozen)
    return;
  for (GList *l = windows; l != NULL; l = l->next)
    others |= SP_IS_WINDOW (l->data) && l->data != (gpointer) window;
  /* The last window closing is the app ending: the session keeps it. */
  if (others)
    sp_app_session_save (app);
}

void
sp_app_session_attach (GtkApplication *app, SpAppContext *context)
{
  g_set_object (&state_of (app)->context, context);
  g_signal_connect (app, "window-added", G_CALLBACK (on_window_added), NULL);
  g_signal_connect (app, "window-removed", G_CALLBACK (on_window_removed), NULL);
  /* A window's file changed (opened, saved as): written at once. */
  g_signal_connect_object (context, "session-changed", G_CALLBACK (sp_app_session_save), app,
                           G_CONNECT_SWAPPED);
}

void
sp_app_session_freeze (GtkApplication *app)
{
  sp_app_session_save (app);
  state_of (app)->frozen = TRUE;
}

GtkWindow *
sp_app_session_find_window (GtkApplication *app, GFile *file)
{
  for (GList *l = gtk_application_get_windows (app); l != NULL; l = l->next)
    {
      /* A restored window's file may still be loading. */
      GFile *shown = !SP_IS_WINDOW (l->data) ? NULL
                     : sp_window_get_file (l->data) != NULL
                       ? sp_window_get_file (l->data)
                       : g_object_get_data (G_OBJECT (l->data), "sp-session-file");
      if (shown != NULL && g_file_equal (shown, file))
        return l->data;
    }
  return NULL;
}

static SpAutosaveEntry *
take_entry (GPtrArray *entries, const char *id)
{
  for (guint i = 0; id != NULL && i < entries->len; i++)
    {
      SpAutosaveEntry *entry = g_ptr_array_index (entries, i);
      if (g_strcmp0 (entry->id, id) == 0)
        return g_ptr_array_steal_index (entries, i);
    }
  return NULL;
}

static SpWindow *
restore_window (GtkApplication *app, const SpSessionWindow *saved, SpAutosaveEntry *entry)
{
  SpWindow *window = SP_WINDOW (sp_app_context_new_window (state_of (app)->context, app));

  if (saved != NULL)
    sp_window_set_panel_fraction (window, saved->panel_fraction);
  if (entry != NULL)
    sp_window_restore_autosave (window, entry);
  else if (saved != NULL && saved->path != NULL)
    {
      GFile *file = g_file_new_for_path (saved->path);
      g_object_set_data_full (G_OBJECT (window), "sp-session-file", file, g_object_unref);
      sp_window_load_file (window, file);
    }
  gtk_window_present (GTK_WINDOW (window));
  return window;
}

/* ---- a test hook ---- */

/* SANDPAD_TEST_TYPE=FILE, for tests that kill the app: soon after the
 * start, once the windows show their files, FILE's text is typed
 * (inserted as a person's edit, in small pieces) at the end of every
 * window, and of one new scratch window. The test then kills the app and
 * checks that the next start brings every character back. */
typedef struct
{
  GtkApplication *app;
  char *text;
  guint tries;
} TypeHook;

static void
type_hook_free (gpointer data)
{
  TypeHook *hook = data;

  g_object_unref (hook->app);
  g_free (hook->text);
  g_free (hook);
}

static gboolean
type_hook_run (gpointer data)
{
  TypeHook *hook = data;
  g_autoptr (GList) windows = NULL;
  SpWindow *scratch;

  /* Files named on the command line load asynchronously: wait (a while)
   * until each window shows its file, so the typing comes after it. */
  for (GList *l = gtk_application_get_windows (hook->app); l != NULL; l = l->next)
    if (SP_IS_WINDOW (l->data) && sp_window_get_file (l->data) == NULL && hook->tries++ < 100)
      return G_SOURCE_CONTINUE;
  scratch = SP_WINDOW (sp_app_context_new_window (state_of (hook->app)->context, hook->app));
  gtk_window_present (GTK_WINDOW (scratch));
  windows = g_list_copy (gtk_application_get_windows (hook->app));
  for (GList *l = windows; l != NULL; l = l->next)
    {
      GtkTextBuffer *buffer;
      const char *p = hook->text;

      if (!SP_IS_WINDOW (l->data))
        continue;
      buffer = GTK_TEXT_BUFFER (sp_window_get_buffer (l->data));
      while (*p != '\0')
        {
          const char *next = g_utf8_offset_to_pointer (p, MIN (g_utf8_strlen (p, -1), 7));
          GtkTextIter end;

          gtk_text_buffer_get_end_iter (buffer, &end);
          gtk_text_buffer_insert_interactive (buffer, &end, p, (int) (next - p), TRUE);
          p = next;
        }
    }
  g_printerr ("sandpad: test hook: typed\n");
  return G_SOURCE_REMOVE;
}

static void
maybe_type_hook (GtkApplication *app)
{
  const char *path = g_getenv ("SANDPAD_TEST_TYPE");
  g_autofree char *text = NULL;
  TypeHook *hook;

  if (path == NULL || path[0] == '\0' || !g_file_get_contents (path, &text, NULL, NULL)
      || !g_utf8_validate (text, -1, NULL))
    return;
  hook = g_new0 (TypeHook, 1);
  hook->app = g_object_ref (app);
  hook->text = g_steal_pointer (&text);
  g_timeout_add_full (G_PRIORITY_DEFAULT, 100, type_hook_run, hook, type_hook_free);
}

GtkWindow *
sp_app_session_restore (GtkApplication *app)
{
  SessionState *state = state_of (app);
  SpStateLock *lock = state_lock_of (app);
  g_autofree char *dir = NULL;
  g_autofree char *path = NULL;
  g_autoptr (GPtrArray) problems = NULL;
  g_autoptr (GPtrArray) entries = NULL;
  g_autoptr (GPtrArray) session = NULL;
  g_autoptr (GError) error = NULL;
  SpWindow *first = NULL;

  if (state->restored)
    return NULL;
  state->restored = TRUE;
  maybe_type_hook (app);
  /* Another process shows these windows: restoring them here would show
   * its unsaved text twice, and this copy's Discard would delete the
   * text that process still has. */
  if (lock == NULL)
    return NULL;
  dir = sp_state_lock_dup_autosave_dir (lock);
  path = sp_state_lock_dup_session_path (lock);
  entries = sp_autosave_load_all (dir, &problems);
  session = sp_session_store_load (path, &error);
  if (session == NULL)
    {
      /* A damaged session is said and skipped; the copies still come back. */
      g_ptr_array_add (problems, g_strdup (error->message));
      session = g_ptr_array_new ();
    }
  for (guint i = 0; i < session->len; i++)
    {
      const SpSessionWindow *saved = g_ptr_array_index (session, i);
      g_autoptr (SpAutosaveEntry) entry = take_entry (entries, saved->autosave_id);
      SpWindow *window;

      /* A scratch buffer without its copy was empty or saved: nothing to
       * bring back. A file that is gone is left out too. */
      if (entry == NULL
          && (saved->path == NULL || !g_file_test (saved->path, G_FILE_TEST_IS_REGULAR)))
        continue;
      window = restore_window (app, saved, entry);
      if (first == NULL)
        first = window;
    }
  /* Copies the session did not know (it was written before them). */
  for (guint i = 0; i < entries->len; i++)
    {
      SpWindow *window = restore_window (app, NULL, g_ptr_array_index (entries, i));
      if (first == NULL)
        first = window;
    }
  if (problems->len > 0)
    {
      g_autoptr (GString) message = g_string_new (NULL);

      /* TRANSLATORS: the reasons follow, separated by semicolons */
      g_string_printf (message,
                       g_dngettext (GETTEXT_PACKAGE, "%u file in the autosave folder was skipped",
                                    "%u files in the autosave folder were skipped", problems->len),
                       problems->len);
      for (guint i = 0; i < problems->len; i++)
        g_string_append_printf (message, "%s %s", i == 0 ? ":" : ";", (char *) problems->pdata[i]);
      for (guint i = 0; i < problems->len; i++)
        g_message ("skipped: %s", (char *) problems->pdata[i]);
      if (first == NULL)
        {
          first = SP_WINDOW (sp_app_context_new_window (state->context, app));
          gtk_window_present (GTK_WINDOW (first));
        }
      sp_window_show_autosave_notice (first, message->str);
    }
  return first != NULL ? GTK_WINDOW (first) : NULL;
}
