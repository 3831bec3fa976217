/* sp-declared.c: what Run does about a snippet's PEP 723 block; see
 * sp-declared.h. */
#define G_LOG_DOMAIN "sp-declared"

#include "config.h"

#include <errno.h>
#include <glib/gi18n-lib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sp-declared.h"
#include "sp-environment.h"

static gboolean
write_all (int fd, const char *data, gsize len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, data, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      data += n;
      len -= (gsize) n;
    }
  return TRUE;
}

gboolean
sp_declared_has_block (const char *code)
{
  const char *line = code;

  g_return_val_if_fail (code != NULL, FALSE);
  while (line != NULL && *line != '\0')
    {
      const char *end = strchr (line, '\n');
      gsize len = end != NULL ? (gsize) (end - line) : strlen (line);
      while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t' || line[len - 1] == '\r'))
        len--;
      if (len == strlen ("# /// script") && strncmp (line, "# /// script", len) == 0)
        return TRUE;
      line = end != NULL ? end + 1 : NULL;
    }
  return FALSE;
}

static void
on_listed (GObject *source, GAsyncResult *res, gpointer user_data)
{
  g_autoptr (GTask) task = user_data;
  GSubprocess *process = G_SUBPROCESS (source);
  g_autofree char *out = NULL;
  g_autofree char *err = NULL;
  GError *error = NULL;

  if (!g_subprocess_communicate_utf8_finish (process, res, &out, &err, &error))
    {
      g_task_return_error (task, error);
      return;
    }
  if (!g_subprocess_get_if_exited (process) || g_subprocess_get_exit_status (process) != 0)
    {
      /* "sandpad: the script's metadata (PEP 723), line 3: ..." */
      g_autofree char *why = g_strstrip (g_strdup (err != NULL ? err : ""));
      const char *text = g_str_has_prefix (why, "sandpad: ") ? why + strlen ("sandpad: ") : why;
      g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s",
                               *text != '\0'
                                 ? text
                                 : _ ("sandpad-run could not read the script’s declared packages"));
      return;
    }
  g_autoptr (GStrvBuilder) specs = g_strv_builder_new ();
  g_auto (GStrv) lines = g_strsplit (out, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (lines[i][0] != '\0')
      g_strv_builder_add (specs, lines[i]);
  g_task_return_pointer (task, g_strv_builder_end (specs), (GDestroyNotify) g_strfreev);
}

void
sp_declared_list_async (const char *code, const char *environment, GCancellable *cancellable,
                        GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = g_task_new (NULL, cancellable, callback, user_data);
  g_autoptr (GPtrArray) argv = g_ptr_array_new_with_free_func (g_free);
  g_autoptr (GSubprocessLauncher) launcher = NULL;
  g_autoptr (GSubprocess) process = NULL;
  GError *error = NULL;
  gsize len = strlen (code);
  int fd;

  g_task_set_source_tag (task, sp_declared_list_async);
  /* The code as a file (fd 3), not down a pipe: sandpad-run may stop
   * reading early (a usage error), and a pipe's reader gone is SIGPIPE
   * for the app. */
  fd = memfd_create ("sandpad-declared", MFD_CLOEXEC);
  if (fd < 0 || !write_all (fd, code, len) || lseek (fd, 0, SEEK_SET) != 0)
    {
      int saved = errno;
      if (fd >= 0)
        close (fd);
      g_task_return_new_error (task, G_IO_ERROR, g_io_error_from_errno (saved),
                               /* TRANSLATORS: %s is why (an error) */
                               _ ("The script’s text could not be passed on: %s"),
                               g_strerror (saved));
      return;
    }
  g_ptr_array_add (argv, sp_environment_find_sandpad_run ());
  g_ptr_array_add (argv, g_strdup ("--install"));
  if (environment != NULL)
    {
      g_ptr_array_add (argv, g_strdup ("--environment"));
      g_ptr_array_add (argv, g_strdup (environment));
    }
  g_ptr_array_add (argv, g_strdup ("--list"));
  g_ptr_array_add (argv, g_strdup ("--declared"));
  g_ptr_array_add (argv, g_strdup ("/dev/fd/3"));
  g_ptr_array_add (argv, NULL);
  launcher = g_subprocess_launcher_new (G_SUBPROCESS_FLAGS_STDOUT_PIPE
                                        | G_SUBPROCESS_FLAGS_STDERR_PIPE);
  g_subprocess_launcher_take_fd (launcher, fd, 3);
  process = g_subprocess_launcher_spawnv (launcher, (const char *const *) argv->pdata, &error);
  if (process == NULL)
    {
      g_task_return_error (task, error);
      return;
    }
  g_subprocess_communicate_utf8_async (process, NULL, cancellable, on_listed,
                                       g_steal_pointer (&task));
}

GStrv
sp_declared_list_finish (GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  return g_task_propagate_pointer (G_TASK (result), error);
}

static void
add_arg (GPtrArray *argv, const char *option, const char *value)
{
  g_ptr_array_add (argv, g_strdup (option));
  if (value != NULL)
    g_ptr_array_add (argv, g_strdup (value));
}

GPtrArray *
sp_declared_install_argv (GSettings *settings, const char *environment)
{
  GPtrArray *argv = g_ptr_array_new_with_free_func (g_free);
  g_autofree char *index_url = g_settings_get_string (settings, "install-index-url");
  g_autofree char *find_links = g_settings_get_string (settings, "install-find-links");
  g_auto (GStrv) allow = g_settings_get_strv (settings, "install-allow");
  g_auto (GStrv) block = g_settings_get_strv (settings, "install-block");

  g_ptr_array_add (argv, sp_environment_find_sandpad_run ());
  add_arg (argv, "--install", NULL);
  add_arg (argv, "--environment", environment);
  if (index_url[0] != '\0')
    add_arg (argv, "--index-url", index_url);
  if (find_links[0] != '\0')
    add_arg (argv, "--find-links", find_links);
  for (guint i = 0; allow[i] != NULL; i++)
    add_arg (argv, "--allow", allow[i]);
  for (guint i = 0; block[i] != NULL; i++)
    add_arg (argv, "--block", block[i]);
  if (g_settings_get_boolean (settings, "install-require-pins"))
    add_arg (argv, "--require-pins", NULL);
  /* After "--", a spec that starts with a dash is a spec, never an option. */
  add_arg (argv, "--", NULL);
  return argv;
}
