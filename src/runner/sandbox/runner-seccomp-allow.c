/* runner-seccomp-allow.c: the system calls a sandboxed program may make.
 *
 * An allow list: every call not named here fails with ENOSYS, so a system
 * call added by a newer kernel (listmount, statmount, open_tree_attr, ...)
 * reaches nothing until it is reviewed and listed. ENOSYS rather than EPERM
 * because runtimes read it as "this kernel is older" and fall back (glibc
 * goes from clone3 to clone this way).
 *
 * The list is what Debian's python3 (numpy, matplotlib, multiprocessing,
 * subprocess, asyncio, sqlite), node (worker threads, child processes,
 * libuv) and bash with coreutils use, measured with strace, plus the
 * ordinary POSIX surface around it. Calls that are listed but dangerous
 * with some arguments (clone with namespace flags, ioctl TIOCSTI, socket
 * families, chmod to setuid, acting on other processes) are narrowed by the
 * second filter in runner-seccomp.c. Deliberately absent: debugging and
 * other processes' memory (ptrace, process_vm_*, pidfd_getfd, kcmp,
 * process_madvise), kernel code and state (bpf, perf_event_open,
 * *_module, kexec_*, syslog, acct, swapon, reboot, clock and host name
 * setters), mounts and namespaces (mount, umount2, the new mount API,
 * listmount, statmount, pivot_root, chroot, unshare, setns, clone3),
 * handles that bypass paths (open_by_handle_at, name_to_handle_at),
 * io_uring and legacy AIO, userfaultfd, keyrings, fanotify, and memory the
 * limits do not count (SysV shm, message queues and semaphores, POSIX
 * message queues, memfd_create, memfd_secret, and vmsplice, which puts
 * the caller's own pages in a pipe: a page of a huge page can keep the
 * whole huge page pinned there after munmap, past the tree watch's count
 * of a pipe as 16 pages). */
#include "runner-seccomp.h"

#include <stddef.h>

const char *const runner_seccomp_allowed[] = {
  /* reading and writing */
  "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2",
  "pwritev2", "lseek", "sendfile", "splice", "tee", "copy_file_range",
  /* file descriptors */
  "open", "openat", "creat", "close", "close_range", "dup", "dup2", "dup3", "fcntl", "flock",
  "fsync", "fdatasync", "sync", "syncfs", "sync_file_range", "ftruncate", "truncate",
  "fallocate", "fadvise64", "readahead", "ioctl", "pipe", "pipe2",
  /* names and metadata (Landlock, the mount namespace and the second
   * filter decide where) */
  "stat", "fstat", "lstat", "newfstatat", "statx", "statfs", "fstatfs", "access", "faccessat",
  "faccessat2", "getdents", "getdents64", "getcwd", "chdir", "fchdir", "readlink", "readlinkat",
  "mkdir", "mkdirat", "rmdir", "unlink", "unlinkat", "rename", "renameat", "renameat2", "link",
  "linkat", "symlink", "symlinkat", "mknod", "mknodat", "umask", "chmod", "fchmod", "fchmodat",
  "fchmodat2", "chown", "fchown", "lchown", "fchownat", "utime", "utimes", "futimesat",
  "utimensat", "getxattr", "lgetxattr", "fgetxattr", "listxattr", "llistxattr", "flistxattr",
  "setxattr", "lsetxattr", "fsetxattr", "removexattr", "lremovexattr", "fremovexattr",
  "getxattrat", "listxattrat", "setxattrat", "removexattrat", "inotify_init", "inotify_init1",
  "inotify_add_watch", "inotify_rm_watch",
  /* memory (RLIMIT_DATA and the tree watch count what these make) */
  "brk", "mmap", "munmap", "mprotect", "mremap", "msync", "mincore", "madvise", "mlock",
  "mlock2", "munlock", "mlockall", "munlockall", "membarrier", "pkey_alloc", "pkey_free",
  "pkey_mprotect", "mseal", "map_shadow_stack", "cachestat", "get_mempolicy", "set_mempolicy",
  /* processes and threads */
  "fork", "vfork", "clone", "execve", "execveat", "exit", "exit_group", "wait4", "waitid",
  "getpid", "getppid", "gettid", "getpgid", "getpgrp", "getsid", "setsid", "setpgid",
  "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid", "getgroups", "setuid",
  "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setfsuid", "setfsgid",
  "setgroups", "capget", "capset", "prctl", "arch_prctl", "personality", "set_tid_address",
  "set_robust_list", "rseq", "sched_yield", "sched_getaffinity", "sched_setaffinity",
  "sched_getparam", "sched_setparam", "sched_getscheduler", "sched_setscheduler",
  "sched_get_priority_max", "sched_get_priority_min", "sched_rr_get_interval", "sched_getattr",
  "sched_setattr", "getpriority", "setpriority", "ioprio_get", "ioprio_set", "getrlimit",
  "setrlimit", "prlimit64", "getrusage", "times", "sysinfo", "uname", "getcpu", "getrandom",
  "pidfd_open", "seccomp", "landlock_create_ruleset", "landlock_add_rule",
  "landlock_restrict_self",
  /* signals (Landlock scopes them to the sandbox) */
  "kill", "tkill", "tgkill", "pidfd_send_signal", "rt_sigaction", "rt_sigprocmask",
  "rt_sigreturn", "rt_sigpending", "rt_sigtimedwait", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
  "rt_sigsuspend", "sigaltstack", "signalfd", "signalfd4", "pause", "alarm", "restart_syscall",
  /* time */
  "nanosleep", "clock_nanosleep", "clock_gettime", "clock_getres", "gettimeofday", "time",
  "getitimer", "setitimer", "timer_create", "timer_settime", "timer_gettime",
  "timer_getoverrun", "timer_delete", "timerfd_create", "timerfd_settime", "timerfd_gettime",
  /* waiting */
  "futex", "futex_waitv", "futex_wake", "futex_wait", "futex_requeue", "poll", "ppoll",
  "select", "pselect6", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait",
  "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2",
  /* sockets (families narrowed by the second filter) */
  "socket", "socketpair", "connect", "accept", "accept4", "bind", "listen", "getsockname",
  "getpeername", "sendto", "recvfrom", "sendmsg", "recvmsg", "sendmmsg", "recvmmsg", "shutdown",
  "setsockopt", "getsockopt",
  NULL,
};
