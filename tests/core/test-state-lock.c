/* test-state-lock.c: one process owns the state folder. Eight processes
 * started at once race for the same folder: exactly one wins, the others
 * are told it is busy, and a newcomer is told which process has it. A
 * holder killed with SIGKILL leaves no stale lock, even when a program it
 * started (as the app starts its runner) lives on. Within one process, a
 * second take fails until the first is dropped.
 *
 * The racers are this binary run again with --hold DIR (and
 * --hold-and-spawn DIR): each takes the lock, says what happened on
 * stdout, and keeps it until its stdin closes. */
#include "config.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sp-state-lock.h"
#include "sp-test-tree.h"

#define RACERS 8

static char *self_exe;

/* Helper mode: take the lock, say "locked PID" or "busy MESSAGE", and with
 * spawn_child also start a sleep that inherits every fd we leave open
 * ("child PID"); then hold until stdin closes. */
static int
hold (const char *dir, gboolean spawn_child)
{
  g_autoptr (GError) error = NULL;
  g_autoptr (SpStateLock) lock = sp_state_lock_acquire (dir, &error);
  char c;

  if (lock == NULL)
    {
      g_print ("%s %s\n", g_error_matches (error, G_IO_ERROR, G_IO_ERROR_BUSY) ? "busy" : "error",
               error->message);
      return 0;
    }
  g_print ("locked %ld\n", (long) getpid ());
  if (spawn_child)
    {
      const char *argv[] = { "sleep", "60", NULL };
      GPid child;

      /* LEAVE_DESCRIPTORS_OPEN: only the lock's own O_CLOEXEC may keep it
       * from the child, as for a runner started with fds passed on. */
      if (!g_spawn_async (NULL, (char **) argv, NULL,
                          G_SPAWN_SEARCH_PATH | G_SPAWN_LEAVE_DESCRIPTORS_OPEN
                            | G_SPAWN_STDOUT_TO_DEV_NULL,
                          NULL, NULL, &child, &error))
        g_error ("cannot start sleep: %s", error->message);
      g_print ("child %ld\n", (long) child);
    }
  while (read (STDIN_FILENO, &c, 1) > 0 || errno == EINTR)
    ;
  return 0;
}

static GSubprocess *
start_holder (const char *mode, const char *dir)
{
  g_autoptr (GError) error = NULL;
  GSubprocess *proc = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE
                                          | G_SUBPROCESS_FLAGS_STDOUT_PIPE,
                                        &error, self_exe, mode, dir, NULL);

  g_assert_no_error (error);
  return proc;
}

static char *
read_line (GSubprocess *proc, GDataInputStream **in)
{
  g_autoptr (GError) error = NULL;
  char *line;

  if (*in == NULL)
    *in = g_data_input_stream_new (g_subprocess_get_stdout_pipe (proc));
  line = g_data_input_stream_read_line (*in, NULL, NULL, &error);
  g_assert_no_error (error);
  g_assert_nonnull (line);
  return line;
}

static void
test_race (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sp-state-lock-XXXXXX", NULL);
  g_autofree char *state = g_build_filename (dir, "sandpad", NULL);
  GSubprocess *procs[RACERS];
  GDataInputStream *ins[RACERS] = { NULL };
  g_autoptr (SpStateLock) late = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *holder_pid = NULL;
  int winner = -1;

  /* All started before any is read: they race for a folder none made. */
  for (int i = 0; i < RACERS; i++)
    procs[i] = start_holder ("--hold", state);
  for (int i = 0; i < RACERS; i++)
    {
      g_autofree char *line = read_line (procs[i], &ins[i]);

      g_test_message ("racer %d: %s", i, line);
      if (g_str_has_prefix (line, "locked "))
        {
          g_assert_cmpint (winner, ==, -1);
          winner = i;
          holder_pid = g_strdup (line + strlen ("locked "));
        }
      else
        g_assert_true (g_str_has_prefix (line, "busy "));
    }
  g_assert_cmpint (winner, >=, 0);

  /* A newcomer loses too, and is told who has it. */
  late = sp_state_lock_acquire (state, &error);
  g_assert_null (late);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_test_message ("newcomer: %s", error->message);
  {
    g_autofree char *named = g_strdup_printf ("(process %s)", holder_pid);
    g_assert_nonnull (strstr (error->message, named));
  }
  g_clear_error (&error);

  /* SIGKILL: no cleanup ran, and the folder is free at once. */
  g_subprocess_force_exit (procs[winner]);
  g_assert_true (g_subprocess_wait (procs[winner], NULL, NULL));
  late = sp_state_lock_acquire (state, &error);
  g_assert_no_error (error);
  g_assert_nonnull (late);
  g_assert_cmpstr (sp_state_lock_get_dir (late), ==, state);

  for (int i = 0; i < RACERS; i++)
    {
      g_clear_object (&ins[i]);
      if (i != winner)
        g_assert_true (g_subprocess_wait (procs[i], NULL, NULL));
      g_object_unref (procs[i]);
    }
  g_clear_object (&late);
  sp_test_remove_tree (dir);
}

static void
test_not_inherited (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sp-state-lock-XXXXXX", NULL);
  g_autoptr (GSubprocess) holder = start_holder ("--hold-and-spawn", dir);
  g_autoptr (GDataInputStream) in = NULL;
  g_autoptr (SpStateLock) lock = NULL;
  g_autoptr (GError) error = NULL;
  g_autofree char *locked = read_line (holder, &in);
  g_autofree char *child = read_line (holder, &in);
  pid_t child_pid;

  g_assert_true (g_str_has_prefix (locked, "locked "));
  g_assert_true (g_str_has_prefix (child, "child "));
  child_pid = (pid_t) g_ascii_strtoll (child + strlen ("child "), NULL, 10);
  g_subprocess_force_exit (holder);
  g_assert_true (g_subprocess_wait (holder, NULL, NULL));
  /* The program it started is still there, and has no part of the lock. */
  g_assert_cmpint (kill (child_pid, 0), ==, 0);
  lock = sp_state_lock_acquire (dir, &error);
  kill (child_pid, SIGKILL);
  g_assert_no_error (error);
  g_assert_nonnull (lock);
  g_clear_object (&lock);
  sp_test_remove_tree (dir);
}

static void
test_same_process (void)
{
  g_autofree char *dir = g_dir_make_tmp ("sp-state-lock-XXXXXX", NULL);
  g_autoptr (GError) error = NULL;
  SpStateLock *first = sp_state_lock_acquire (dir, &error);
  SpStateLock *second;
  g_autofree char *autosave = NULL;
  g_autofree char *session = NULL;

  g_assert_no_error (error);
  autosave = sp_state_lock_dup_autosave_dir (first);
  session = sp_state_lock_dup_session_path (first);
  g_assert_true (g_str_has_prefix (autosave, dir));
  g_assert_true (g_str_has_prefix (session, dir));
  second = sp_state_lock_acquire (dir, &error);
  g_assert_null (second);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_BUSY);
  g_clear_error (&error);
  g_assert_finalize_object (first);
  second = sp_state_lock_acquire (dir, &error);
  g_assert_no_error (error);
  g_assert_finalize_object (second);
  sp_test_remove_tree (dir);
}

int
main (int argc, char **argv)
{
  if (argc == 3 && g_str_equal (argv[1], "--hold"))
    return hold (argv[2], FALSE);
  if (argc == 3 && g_str_equal (argv[1], "--hold-and-spawn"))
    return hold (argv[2], TRUE);
  self_exe = g_file_read_link ("/proc/self/exe", NULL);
  g_assert_nonnull (self_exe);
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/StateLock/race", test_race);
  g_test_add_func ("/Sandpad/StateLock/not-inherited", test_not_inherited);
  g_test_add_func ("/Sandpad/StateLock/same-process", test_same_process);
  return g_test_run ();
}
