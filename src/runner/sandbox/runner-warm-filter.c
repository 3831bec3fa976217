/* runner-warm-filter.c: the warm parent's own seccomp filter.
 *
 * The warm parent (engine/runner-warm.c) is a python3 that imports numpy
 * and matplotlib and makes spare runs; it runs no user code, but it runs
 * outside every run's sandbox, as the runner's uid, for as long as ten
 * minutes, and a run's program is a fork of it. So before it imports
 * numpy and matplotlib it loads this filter, as defence in depth behind
 * what keeps runs out of it: whatever took it over (a planted module, a
 * flaw in a library it imports, a run that reached it) could not trace or
 * write another process, load BPF or kernel modules, reach the kernel
 * through io_uring or userfaultfd, use keyrings, open files by handle, or
 * (where its runs have no such namespaces) mount or make namespaces, nor
 * open a socket its runs may not.
 *
 * A deny list, not an allow list, and that is deliberate: every process a
 * spare is made of inherits the filter (supervisor, run init, the program
 * until its own layers and beyond), so an allow list would have to hold
 * what the parent, Python's import machinery, the spares' setup (user and
 * mount namespaces, Landlock, seccomp, the uid change, the run init's
 * answers to futimens) and every run's program may ever call, and a run
 * that worked cold would fail warm on the first call it forgot. What it
 * does refuse, nothing of that needs: `strace -f` of a warm parent, its
 * spares and their runs in both modes shows none of these calls, and the
 * runs' own filters refuse every one of them already (their errno wins: a
 * filter loaded later answers first among equal actions).
 *
 * Loaded with no_new_privs, which the spares' processes inherit: they exec
 * sandpad-warm-init only, which is not setuid, and every run sets it too. */
#include <errno.h>
#include <linux/sched.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>

#include "runner-seccomp.h"
#include "runner-util.h"

int sp_warm_lockdown (int namespaces, int network, char *why, size_t size);

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

/* Never made by the parent, its spares or a run. */
static const char *const refused[] = {
  /* other processes: tracing, writing their memory, comparing or advising
   * their kernel objects (the run init reads a caller's memory, with
   * process_vm_readv, and takes its fd, with pidfd_getfd: both stay) */
  "ptrace", "process_vm_writev", "process_madvise", "kcmp",
  /* the kernel's larger surfaces */
  "bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
  "vmsplice", "memfd_secret",
  /* keyrings (a session's keys are the user's) */
  "keyctl", "add_key", "request_key",
  /* files by handle, past every path check */
  "open_by_handle_at", "name_to_handle_at",
  /* the machine's */
  "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "reboot",
  "swapon", "swapoff", "acct", "syslog", "iopl", "ioperm", "quotactl", "quotactl_fd",
  "lookup_dcookie", "uselib", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
  "setdomainname", "fanotify_init",
  /* namespaces and mounts the spares make with clone, setns and mount(2)
   * (namespace mode), never with these */
  "unshare", "chroot", "fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree",
  "open_tree_attr", "mount_setattr", NULL
};

/* What only a namespace-mode spare does (runner-warm-child.c: pid 1 cloned
 * into the new namespaces, the supervisor joining them, the private root
 * and its host name). */
static const char *const namespace_only[] = {
  "mount", "umount2", "pivot_root", "setns", "sethostname", NULL,
};

static int
deny_all (scmp_filter_ctx ctx, const char *const *names)
{
  int rc = 0;

  for (size_t i = 0; names[i] != NULL && rc == 0; i++)
    {
      int nr = seccomp_syscall_resolve_name (names[i]);
      /* Newer than this libseccomp: nothing here can call it either. */
      if (nr != __NR_SCMP_ERROR)
        rc = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EPERM), nr, 0);
    }
  return rc;
}

/* Fallback mode: clone with any namespace flag, as the runs' rules refuse
 * it; clone3, whose flags seccomp cannot see, answers ENOSYS in both modes
 * (glibc then uses clone; the spares call clone itself). */
static int
deny_namespaces (scmp_filter_ctx ctx, bool namespaces)
{
  const unsigned long flags = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC
                              | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME;
  int rc = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (ENOSYS), SCMP_SYS (clone3), 0);

  if (rc == 0 && !namespaces)
    rc = deny_all (ctx, namespace_only);
  for (unsigned long bit = 1; !namespaces && bit <= CLONE_NEWNET && rc == 0; bit <<= 1)
    if (flags & bit)
      rc = seccomp_rule_add (ctx, SCMP_ACT_ERRNO (EPERM), SCMP_SYS (clone), 1,
                             SCMP_A0 (SCMP_CMP_MASKED_EQ, bit, bit));
  return rc;
}

/* In the warm parent, once, before its heavy imports: loads its filter
 * for runs of this mode and network setting. 0, or -1 with why said. */
int
sp_warm_lockdown (int namespaces, int network, char *why, size_t size)
{
  RunnerSeccompPolicy policy = { .fallback = !namespaces, .network = network != 0 };
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_ALLOW);
  int rc = ctx == NULL ? -ENOMEM : 0;

  if (why == NULL || size == 0)
    {
      seccomp_release (ctx);
      return -1;
    }
  /* Another architecture's calls: only ever a way around the filter. */
  if (rc == 0)
    rc = seccomp_attr_set (ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  if (rc == 0)
    rc = deny_all (ctx, refused);
  if (rc == 0)
    rc = deny_namespaces (ctx, namespaces != 0);
  /* The socket families its runs may open and no other (the session bus,
   * the network, where they have none): the parent itself opens none. */
  if (rc == 0)
    rc = runner_seccomp_deny_sockets (ctx, &policy);
  /* Sets no_new_privs first (libseccomp's default). */
  if (rc == 0)
    rc = seccomp_load (ctx);
  seccomp_release (ctx);
  if (rc != 0)
    {
      snprintf (why, size, "%s", strerror (-rc));
      return -1;
    }
  return 0;
}
