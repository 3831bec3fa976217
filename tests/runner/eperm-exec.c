/* eperm-exec: runs a command with some system calls failing with EPERM,
 * as a platform that restricts user namespaces makes them fail: Ubuntu's
 * AppArmor lets unshare(CLONE_NEWUSER) succeed and then refuses mounts,
 * hardened kernels refuse unshare itself, Flatpak refuses both by seccomp.
 *
 * Usage: eperm-exec SYSCALL[,SYSCALL...] COMMAND [ARG...]
 *
 * The filter is inherited by everything the command starts, which is the
 * point: the runner's probe and its runs meet the same refusals. */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

int
main (int argc, char **argv)
{
  if (argc < 3)
    {
      fprintf (stderr, "usage: eperm-exec SYSCALL[,SYSCALL...] COMMAND [ARG...]\n");
      return 2;
    }
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_ALLOW);
  char *names = strdup (argv[1]);
  if (ctx == NULL || names == NULL)
    return 1;
  for (char *save = NULL, *name = strtok_r (names, ",", &save); name != NULL;
       name = strtok_r (NULL, ",", &save))
    {
      int nr = seccomp_syscall_resolve_name (name);
      if (nr == __NR_SCMP_ERROR || seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EPERM), nr, 0) != 0)
        {
          fprintf (stderr, "eperm-exec: unknown system call %s\n", name);
          return 2;
        }
    }
  /* An unprivileged caller may load a filter only with no_new_privs. */
  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 || seccomp_load (ctx) != 0)
    {
      perror ("eperm-exec: loading the filter");
      return 1;
    }
  seccomp_release (ctx);
  free (names);
  execvp (argv[2], argv + 2);
  perror ("eperm-exec: exec");
  return 127;
}
