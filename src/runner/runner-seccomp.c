/* runner-seccomp.c: the system-call filter every program runs under.
 *
 * A deny list on a default-allow filter, like Flatpak's and firejail's
 * "@default": interpreters use hundreds of system calls, and an allow list
 * would need upkeep per interpreter version. What is denied is kernel
 * surface a snippet never needs and an exploit often does. Calls are
 * refused with an errno (never a kill), so runtimes that probe for a
 * feature fall back gracefully; the exception is a system call of another
 * architecture (i386 or x32 on x86_64), which kills the process: that is
 * only ever an attempt to slip past this filter. */
#include "runner-seccomp.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/sched.h>
#include <linux/seccomp.h>
#include <seccomp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runner-util.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif

typedef struct
{
  const char *name;
  int errnum;
} Denied;

/* Debugging other processes, loading kernel code, kernel keyrings, mounts
 * and namespaces (a new user namespace would hand the program fresh
 * capabilities to attack the kernel with), raw handles to files outside
 * its view, and changing how the kernel runs it. */
static const Denied denied_always[] = {
  { "ptrace", EPERM },
  { "process_vm_readv", EPERM },
  { "process_vm_writev", EPERM },
  { "pidfd_getfd", EPERM },
  { "kcmp", EPERM },
  { "bpf", EPERM },
  { "userfaultfd", EPERM },
  { "perf_event_open", EPERM },
  { "keyctl", EPERM },
  { "add_key", EPERM },
  { "request_key", EPERM },
  { "kexec_load", EPERM },
  { "kexec_file_load", EPERM },
  { "init_module", EPERM },
  { "finit_module", EPERM },
  { "delete_module", EPERM },
  { "mount", EPERM },
  { "umount2", EPERM },
  { "pivot_root", EPERM },
  { "chroot", EPERM },
  { "setns", EPERM },
  { "unshare", EPERM },
  { "syslog", EPERM },
  { "acct", EPERM },
  { "quotactl", EPERM },
  { "swapon", EPERM },
  { "swapoff", EPERM },
  { "reboot", EPERM },
  { "open_by_handle_at", EPERM },
  { "name_to_handle_at", EPERM },
  { "modify_ldt", EPERM },
  { "iopl", EPERM },
  { "ioperm", EPERM },
  { "uselib", EPERM },
  { "lookup_dcookie", EPERM },
  { "fanotify_init", EPERM },
  { "vhangup", EPERM },
  { "move_pages", EPERM },
  { "migrate_pages", EPERM },
  { "mbind", EPERM },
  { "sethostname", EPERM },
  { "setdomainname", EPERM },
  { "settimeofday", EPERM },
  { "clock_settime", EPERM },
  { "clock_adjtime", EPERM },
  { "adjtimex", EPERM },
  /* ENOSYS, not EPERM: these are new enough that runtimes probe for them
   * and fall back to older calls when the kernel "lacks" them. clone3
   * hides its flags behind a pointer, so it cannot be checked for
   * namespace flags; glibc then falls back to clone, which can. */
  { "clone3", ENOSYS },
  { "io_uring_setup", ENOSYS },
  { "io_uring_enter", ENOSYS },
  { "io_uring_register", ENOSYS },
  { "fsopen", ENOSYS },
  { "fsconfig", ENOSYS },
  { "fsmount", ENOSYS },
  { "fspick", ENOSYS },
  { "open_tree", ENOSYS },
  { "move_mount", ENOSYS },
  { "mount_setattr", ENOSYS },
};

static int
deny (scmp_filter_ctx ctx, const char *name, int errnum, unsigned int n_args,
      const struct scmp_arg_cmp *args)
{
  int nr = seccomp_syscall_resolve_name (name);

  /* A call this libseccomp or architecture does not know cannot be made
   * here either. */
  if (nr == __NR_SCMP_ERROR)
    return 0;
  return seccomp_rule_add_array (ctx, SCMP_ACT_ERRNO (errnum), nr, n_args, args);
}

static int
deny_sockets (scmp_filter_ctx ctx, const RunnerSeccompPolicy *policy)
{
  /* socketpair stays allowed: it reaches nobody else. With namespaces,
   * UNIX sockets only reach what is inside the private root; without them
   * a pathname UNIX socket may be the session bus, and Landlock (ABI < 9)
   * cannot stop connect() to one: then no socket() at all. */
  int rc = 0;

  for (int family = 0; family < AF_MAX && rc == 0; family++)
    {
      bool allowed = false;

      if (family == AF_UNIX)
        allowed = !policy->fallback;
      else if (family == AF_INET || family == AF_INET6 || family == AF_NETLINK)
        allowed = policy->network;
      if (!allowed)
        {
          struct scmp_arg_cmp cmp = SCMP_A0 (SCMP_CMP_EQ, (scmp_datum_t) family);
          rc = deny (ctx, "socket", EAFNOSUPPORT, 1, &cmp);
        }
    }
  if (rc == 0)
    {
      /* Families newer than these headers. */
      struct scmp_arg_cmp cmp = SCMP_A0 (SCMP_CMP_GE, (scmp_datum_t) AF_MAX);
      rc = deny (ctx, "socket", EAFNOSUPPORT, 1, &cmp);
    }
  return rc;
}

static int
add_rules (scmp_filter_ctx ctx, const RunnerSeccompPolicy *policy)
{
  const unsigned long ns_flags = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC
                                 | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME;
  int rc = 0;

  for (size_t i = 0; i < N_ELEMENTS (denied_always) && rc == 0; i++)
    rc = deny (ctx, denied_always[i].name, denied_always[i].errnum, 0, NULL);

  /* clone with any namespace flag; plain fork and threads stay allowed. */
  for (unsigned long bit = 1; bit <= CLONE_NEWNET && rc == 0; bit <<= 1)
    if (ns_flags & bit)
      {
        struct scmp_arg_cmp cmp = SCMP_A0 (SCMP_CMP_MASKED_EQ, bit, bit);
        rc = deny (ctx, "clone", EPERM, 1, &cmp);
      }

  /* Pushing keystrokes into a terminal (CVE-2017-5226, CVE-2023-28100);
   * the mask matches the 32 bits the kernel compares. */
  struct scmp_arg_cmp tiocsti = SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI);
  struct scmp_arg_cmp tioclinux = SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX);
  if (rc == 0)
    rc = deny (ctx, "ioctl", EPERM, 1, &tiocsti);
  if (rc == 0)
    rc = deny (ctx, "ioctl", EPERM, 1, &tioclinux);

  /* personality flags that weaken exploit mitigations (executable data,
   * no address randomisation, a mapped page zero). libseccomp compares an
   * argument once per rule, so this is a rule per flag; the 0xffffffff
   * query has every bit set and is refused too, which nothing here uses. */
  static const unsigned long weakening[] = { 0x0400000 /* READ_IMPLIES_EXEC */,
                                             0x0040000 /* ADDR_NO_RANDOMIZE */,
                                             0x0100000 /* MMAP_PAGE_ZERO */,
                                             0x0200000 /* ADDR_COMPAT_LAYOUT */ };
  for (size_t i = 0; i < N_ELEMENTS (weakening) && rc == 0; i++)
    {
      struct scmp_arg_cmp cmp = SCMP_A0 (SCMP_CMP_MASKED_EQ, weakening[i], weakening[i]);
      rc = deny (ctx, "personality", EPERM, 1, &cmp);
    }

  if (rc == 0)
    rc = deny_sockets (ctx, policy);

  /* Without a pid namespace, a new session or process group would let a
   * program leave the group that cancel signals (the supervisor's sweep
   * still finds it; this keeps that from being the only line). */
  if (policy->fallback && rc == 0)
    rc = deny (ctx, "setsid", EPERM, 0, NULL);
  if (policy->fallback && rc == 0)
    rc = deny (ctx, "setpgid", EPERM, 0, NULL);
  return rc;
}

int
runner_seccomp_compile (const RunnerSeccompPolicy *policy, struct sock_fprog *prog)
{
  scmp_filter_ctx ctx = seccomp_init (SCMP_ACT_ALLOW);
  struct stat st;
  int fd = -1;
  int rc;

  if (ctx == NULL)
    {
      errno = ENOMEM;
      return -1;
    }
  rc = seccomp_attr_set (ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  if (rc == 0)
    rc = add_rules (ctx, policy);

  /* libseccomp 2.5 exports only to an fd: go through a memfd. */
  if (rc == 0 && (fd = memfd_create ("sandpad-seccomp", MFD_CLOEXEC)) < 0)
    rc = -errno;
  if (rc == 0)
    rc = seccomp_export_bpf (ctx, fd);
  seccomp_release (ctx);
  if (rc == 0 && fstat (fd, &st) != 0)
    rc = -errno;
  if (rc == 0)
    {
      size_t len = (size_t) st.st_size;
      struct sock_filter *filter = xmalloc (len);

      if (len == 0 || pread (fd, filter, len, 0) != (ssize_t) len || len % sizeof *filter != 0)
        {
          free (filter);
          rc = -EIO;
        }
      else
        {
          prog->filter = filter;
          prog->len = (unsigned short) (len / sizeof *filter);
        }
    }
  if (fd >= 0)
    close (fd);
  if (rc != 0)
    {
      errno = -rc;
      return -1;
    }
  return 0;
}

int
runner_seccomp_load (const struct sock_fprog *prog)
{
  return (int) syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog);
}
