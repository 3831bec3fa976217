/* runner-seccomp.c: the argument rules, and compiling and loading both
 * filters (see runner-seccomp.h; the allow list is runner-seccomp-allow.c).
 *
 * Calls are refused with an errno (never a kill), so runtimes that probe
 * for a feature fall back gracefully; the exception is a system call of
 * another architecture (i386 or x32 on x86_64), which kills the process:
 * that is only ever an attempt to slip past these filters. */
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
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runner-seccomp-notify.h"
#include "runner-util.h"

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef MAP_SHARED_VALIDATE
#define MAP_SHARED_VALIDATE 0x03
#endif
#define IOPRIO_WHO_USER 3

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

int
runner_seccomp_deny_sockets (scmp_filter_ctx ctx, const RunnerSeccompPolicy *policy)
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

/* A rule per argument value: libseccomp compares an argument once per
 * rule, and a masked compare is how "this bit is set" is said. */
static int
deny_bit (scmp_filter_ctx ctx, const char *name, unsigned int arg, scmp_datum_t bit)
{
  struct scmp_arg_cmp cmp
    = { .arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = bit, .datum_b = bit };

  return deny (ctx, name, EPERM, 1, &cmp);
}

static int
deny_arg (scmp_filter_ctx ctx, const char *name, unsigned int arg, enum scmp_compare op,
          scmp_datum_t value)
{
  struct scmp_arg_cmp cmp = { .arg = arg, .op = op, .datum_a = value };

  return deny (ctx, name, EPERM, 1, &cmp);
}

/* An int argument equal to value: the kernel reads the low 32 bits only,
 * so the compare must ignore the upper ones. */
static int
deny_int (scmp_filter_ctx ctx, const char *name, unsigned int arg, scmp_datum_t value)
{
  struct scmp_arg_cmp cmp
    = { .arg = arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffu, .datum_b = value };

  return deny (ctx, name, EPERM, 1, &cmp);
}

/* Setuid and setgid files: on a --cwd directory they would outlive the
 * run as the user's (or nobody's) setuid programs. Every call that sets a
 * mode, with the argument that carries it. */
static int
deny_setuid_modes (scmp_filter_ctx ctx)
{
  static const struct
  {
    const char *name;
    unsigned int arg;
  } calls[] = {
    { "chmod", 1 }, { "fchmod", 1 }, { "fchmodat", 2 }, { "fchmodat2", 2 }, { "open", 2 },
    { "creat", 1 }, { "openat", 3 }, { "mknod", 1 },    { "mknodat", 2 },
  };
  int rc = 0;

  for (size_t i = 0; i < N_ELEMENTS (calls) && rc == 0; i++)
    {
      rc = deny_bit (ctx, calls[i].name, calls[i].arg, S_ISUID);
      if (rc == 0)
        rc = deny_bit (ctx, calls[i].name, calls[i].arg, S_ISGID);
    }
  return rc;
}

/* Shared anonymous memory is not counted by RLIMIT_DATA (only private
 * writable mappings are), so 64 MiB of limit held 2 GiB this way. Shared
 * file mappings stay: their pages belong to files the disk cap counts. */
static int
deny_shared_anonymous (scmp_filter_ctx ctx)
{
  static const scmp_datum_t shared[] = { MAP_SHARED, MAP_SHARED_VALIDATE };
  int rc = 0;

  for (size_t i = 0; i < N_ELEMENTS (shared) && rc == 0; i++)
    {
      struct scmp_arg_cmp cmp = SCMP_A3 (SCMP_CMP_MASKED_EQ, 0x0f | MAP_ANONYMOUS,
                                         shared[i] | MAP_ANONYMOUS);
      rc = deny (ctx, "mmap", EPERM, 1, &cmp);
    }
  return rc;
}

/* A pipe's buffer is kernel memory in no process's RSS; where the run has
 * no memory cgroup the tree watch counts each pipe at what it can hold,
 * the kernel's default of 16 pages (runner-sockets.h). F_SETPIPE_SZ could
 * grow one to fs.pipe-max-size (1 MiB): growth past 64 KiB is refused, as
 * the kernel itself refuses it past the user's soft limit (EPERM, which
 * programs that ask for bigger pipes take in their stride); shrinking
 * stays. The kernel reads the size as an unsigned int: any upper bit set
 * is over the limit here too. F_SETPIPE_SZ exists on every architecture
 * with the same number, so this holds for fcntl64 as well. */
static int
deny_pipe_growth (scmp_filter_ctx ctx)
{
  static const char *const calls[] = { "fcntl", "fcntl64" };
  int rc = 0;

  for (size_t i = 0; i < N_ELEMENTS (calls) && rc == 0; i++)
    {
      struct scmp_arg_cmp cmp[2] = {
        SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xffffffffu, 1031 /* F_SETPIPE_SZ */),
        SCMP_A2 (SCMP_CMP_GT, 65536),
      };
      rc = deny (ctx, calls[i], EPERM, 2, cmp);
    }
  return rc;
}

/* Fallback mode only. Landlock mediates opening, creating and removing,
 * not metadata: without a mount namespace, chmod, chown, utimes and xattrs
 * by path reach every file the uid owns (~/.ssh/id_rsa made 0644). The fd
 * forms reach every file the run may open, read-only ones included: a
 * read-only fd of a --context-path document or the run's venv took
 * fchmod 0777, futimens to 1970 and an xattr. So every form is refused,
 * by path and by fd, but times through an fd open for writing, which the
 * run init decides (runner-seccomp-notify.h); the runner's prelude gives
 * Python's os.chmod a rewrite of the run's own files instead, and os.utime
 * by path an fd of the file open for writing (runner-prelude.py). Reading
 * xattrs by path is refused too: Landlock lets no read of the file, yet
 * getxattr by path read user.xdg.origin.url of any of the user's files.
 * Xattrs answer ENOTSUP, "not supported here", which copying code (Python's
 * shutil.copystat) takes in its stride; the rest EPERM. */
static int
deny_metadata (scmp_filter_ctx ctx)
{
  static const char *const eperm[] = {
    "chmod",
    "fchmod",
    "fchmodat",
    "fchmodat2",
    "chown",
    "fchown",
    "lchown",
    "fchownat",
    "utime",
    "utimes",
    "futimesat",
    /* Watching files is reading their activity, which Landlock does not
     * mediate either (~/.ssh being read, a document being saved). */
    "inotify_add_watch",
    NULL,
  };
  static const char *const enotsup[] = {
    "setxattr",     "lsetxattr",  "fsetxattr",     "removexattr", "lremovexattr",
    "fremovexattr", "setxattrat", "removexattrat", "getxattr",    "lgetxattr",
    "listxattr",    "llistxattr", "getxattrat",    "listxattrat", NULL,
  };
  /* The inode flags (immutable, append-only, nodump) and the project id:
   * metadata through ioctl, in both sizes of the request. */
  static const scmp_datum_t flag_ioctls[] = { 0x40086602 /* FS_IOC_SETFLAGS */,
                                              0x40046602 /* FS_IOC32_SETFLAGS */,
                                              0x401c5820 /* FS_IOC_FSSETXATTR */ };
  int rc = 0;

  for (size_t i = 0; eperm[i] != NULL && rc == 0; i++)
    rc = deny (ctx, eperm[i], EPERM, 0, NULL);
  for (size_t i = 0; enotsup[i] != NULL && rc == 0; i++)
    rc = deny (ctx, enotsup[i], ENOTSUP, 0, NULL);
  for (size_t i = 0; i < N_ELEMENTS (flag_ioctls) && rc == 0; i++)
    rc = deny_int (ctx, "ioctl", 1, flag_ioctls[i]);
  /* utimensat through an fd (no path, futimens) goes to the run init,
   * which sets the times only through a file open for writing: unpacking
   * an archive (pip, tarfile) sets each file's times, and refusing that
   * broke installs, while letting it through changed read-only files'
   * times (fs-33). With a path, "" with AT_EMPTY_PATH included: refused. */
  if (rc == 0)
    rc = deny_arg (ctx, "utimensat", 1, SCMP_CMP_NE, 0);
  if (rc == 0)
    rc = seccomp_rule_add (ctx, SCMP_ACT_NOTIFY, SCMP_SYS (utimensat), 1, SCMP_A1 (SCMP_CMP_EQ, 0));
  return rc;
}

/* Fallback mode only. RLIMIT_NPROC is the runner's: it leaves the hard
 * limit where it was, so that it can give a session's interpreter room
 * again as the uid's other tasks grow (runner-nproc.h), and the program
 * may not raise its soft limit to that hard one, nor change either. The
 * resource is an unsigned int to the kernel: the compare ignores the
 * upper bits; prlimit64 with no new limit (a query) stays. */
static int
deny_nproc_change (scmp_filter_ctx ctx)
{
  struct scmp_arg_cmp prlimit_set[2] = {
    { .arg = 1, .op = SCMP_CMP_MASKED_EQ, .datum_a = 0xffffffffu, .datum_b = RLIMIT_NPROC },
    { .arg = 2, .op = SCMP_CMP_NE, .datum_a = 0 },
  };
  int rc = deny_int (ctx, "setrlimit", 0, RLIMIT_NPROC);

  if (rc == 0)
    rc = deny (ctx, "prlimit64", EPERM, 2, prlimit_set);
  return rc;
}

/* Fallback mode only. Without a pid namespace the uid's other processes,
 * the user's desktop among them, share the run's credentials: prlimit set
 * another process's CPU limit to 1 s and killed it. Each call may act on
 * the caller (0) and, for priorities, its own process group. */
static int
deny_other_processes (scmp_filter_ctx ctx)
{
  static const char *const self_only[] = { "prlimit64",      "sched_setaffinity",
                                           "sched_setparam", "sched_setscheduler",
                                           "sched_setattr",  NULL };
  int rc = 0;

  for (size_t i = 0; self_only[i] != NULL && rc == 0; i++)
    rc = deny_arg (ctx, self_only[i], 0, SCMP_CMP_NE, 0);
  /* setpriority and ioprio_set (which, who): who 0 is the caller, its
   * group or its user; the user is every process of the uid. */
  if (rc == 0)
    rc = deny_arg (ctx, "setpriority", 1, SCMP_CMP_NE, 0);
  if (rc == 0)
    rc = deny_int (ctx, "setpriority", 0, PRIO_USER);
  if (rc == 0)
    rc = deny_arg (ctx, "ioprio_set", 1, SCMP_CMP_NE, 0);
  if (rc == 0)
    rc = deny_int (ctx, "ioprio_set", 0, IOPRIO_WHO_USER);
  /* kill(-1) signals every process the uid may signal. Landlock ABI 6
   * scopes signals to the sandbox; this holds on older kernels too. */
  if (rc == 0)
    rc = deny_int (ctx, "kill", 0, 0xffffffffu);
  /* A new session or process group would let a program leave the group
   * that cancel signals (the supervisor's sweep still finds it). */
  if (rc == 0)
    rc = deny (ctx, "setsid", EPERM, 0, NULL);
  if (rc == 0)
    rc = deny (ctx, "setpgid", EPERM, 0, NULL);
  if (rc == 0)
    rc = deny_nproc_change (ctx);
  return rc;
}

static int
add_rules (scmp_filter_ctx ctx, const RunnerSeccompPolicy *policy)
{
  const unsigned long ns_flags = CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC
                                 | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWTIME;
  int rc = 0;

  /* clone with any namespace flag (a new user namespace would hand the
   * program fresh capabilities to attack the kernel with); plain fork and
   * threads stay allowed. clone3 hides its flags behind a pointer and is
   * not on the allow list; glibc then falls back to clone. */
  for (unsigned long bit = 1; bit <= CLONE_NEWNET && rc == 0; bit <<= 1)
    if (ns_flags & bit)
      rc = deny_bit (ctx, "clone", 0, bit);

  /* Pushing keystrokes into a terminal (CVE-2017-5226, CVE-2023-28100);
   * the mask matches the 32 bits the kernel compares. */
  struct scmp_arg_cmp tiocsti = SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI);
  struct scmp_arg_cmp tioclinux = SCMP_A1 (SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX);
  if (rc == 0)
    rc = deny (ctx, "ioctl", EPERM, 1, &tiocsti);
  if (rc == 0)
    rc = deny (ctx, "ioctl", EPERM, 1, &tioclinux);

  /* personality flags that weaken exploit mitigations (executable data,
   * no address randomisation, a mapped page zero). The 0xffffffff query
   * has every bit set and is refused too, which nothing here uses. */
  static const unsigned long weakening[] = { 0x0400000 /* READ_IMPLIES_EXEC */,
                                             0x0040000 /* ADDR_NO_RANDOMIZE */,
                                             0x0100000 /* MMAP_PAGE_ZERO */,
                                             0x0200000 /* ADDR_COMPAT_LAYOUT */ };
  for (size_t i = 0; i < N_ELEMENTS (weakening) && rc == 0; i++)
    rc = deny_bit (ctx, "personality", 0, weakening[i]);

  if (rc == 0)
    rc = runner_seccomp_deny_sockets (ctx, policy);
  if (rc == 0)
    rc = deny_setuid_modes (ctx);
  if (rc == 0)
    rc = deny_shared_anonymous (ctx);
  if (rc == 0)
    rc = deny_pipe_growth (ctx);
  if (policy->fallback && rc == 0)
    rc = deny_metadata (ctx);
  if (policy->fallback && rc == 0)
    rc = deny_other_processes (ctx);
  return rc;
}

static int
add_allowed (scmp_filter_ctx ctx)
{
  int rc = 0;

  for (size_t i = 0; runner_seccomp_allowed[i] != NULL && rc == 0; i++)
    {
      int nr = seccomp_syscall_resolve_name (runner_seccomp_allowed[i]);

      /* Newer than this libseccomp: it stays closed (ENOSYS). */
      if (nr != __NR_SCMP_ERROR)
        rc = seccomp_rule_add (ctx, SCMP_ACT_ALLOW, nr, 0);
    }
  return rc;
}

/* libseccomp 2.5 exports only to an fd: go through a memfd. Returns 0 or
 * a negative errno. */
static int
export_bpf (scmp_filter_ctx ctx, struct sock_fprog *prog)
{
  cleanup_fd int fd = memfd_create ("sandpad-seccomp", MFD_CLOEXEC);
  struct stat st;
  int rc;

  if (fd < 0)
    return -errno;
  rc = seccomp_export_bpf (ctx, fd);
  if (rc != 0)
    return rc;
  if (fstat (fd, &st) != 0)
    return -errno;

  size_t len = (size_t) st.st_size;
  if (len == 0 || len % sizeof (struct sock_filter) != 0
      || len / sizeof (struct sock_filter) > BPF_MAXINSNS)
    return -EIO;
  struct sock_filter *filter = xmalloc (len);
  if (pread (fd, filter, len, 0) != (ssize_t) len)
    {
      free (filter);
      return -EIO;
    }
  prog->filter = filter;
  prog->len = (unsigned short) (len / sizeof *filter);
  return 0;
}

static int
compile_one (uint32_t default_action, const RunnerSeccompPolicy *policy, struct sock_fprog *prog)
{
  scmp_filter_ctx ctx = seccomp_init (default_action);
  int rc;

  if (ctx == NULL)
    return -ENOMEM;
  rc = seccomp_attr_set (ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS);
  if (rc == 0)
    rc = default_action == SCMP_ACT_ALLOW ? add_rules (ctx, policy) : add_allowed (ctx);
  if (rc == 0)
    rc = export_bpf (ctx, prog);
  seccomp_release (ctx);
  return rc;
}

int
runner_seccomp_compile_now (const RunnerSeccompPolicy *policy, RunnerSeccompFilter *filter)
{
  int rc;

  memset (filter, 0, sizeof *filter);
  rc = compile_one (SCMP_ACT_ERRNO (ENOSYS), policy, &filter->allow);
  if (rc == 0)
    rc = compile_one (SCMP_ACT_ALLOW, policy, &filter->rules);
  if (rc != 0)
    {
      runner_seccomp_clear (filter);
      errno = -rc;
      return -1;
    }
  return 0;
}

void
runner_seccomp_clear (RunnerSeccompFilter *filter)
{
  free (filter->allow.filter);
  free (filter->rules.filter);
  memset (filter, 0, sizeof *filter);
}

int
runner_seccomp_load (const RunnerSeccompFilter *filter, int *listener)
{
  *listener = -1;
  /* The allow list first, so that the rules, loaded last, give their own
   * errno where both refuse (see the header). The allow list lets the
   * second seccomp() through: a filter can only narrow. */
  if (syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &filter->allow) != 0)
    return -1;
  if (!runner_seccomp_notifies (&filter->rules))
    return (int) syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &filter->rules);
  /* Rules that hand a call over come with the listener that takes it
   * (close-on-exec), for the caller to pass on. */
  int fd = (int) syscall (SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                          &filter->rules);
  if (fd < 0)
    return -1;
  *listener = fd;
  return 0;
}

bool
runner_seccomp_compiled (const RunnerSeccompFilter *filter)
{
  return filter->allow.len > 0;
}
