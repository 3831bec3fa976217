/* runner-sockets.h: what a run's UNIX sockets hold in the kernel, for the
 * tree watch where the run has no memory cgroup.
 *
 * A byte queued on a UNIX socket is the kernel's, in no process's RSS:
 * ten processes filling 400 socketpairs each pinned 945 MiB under a
 * 128 MiB limit. Without a cgroup to charge it to (fallback, Flatpak, an
 * ordinary user without delegation), the runner counts it itself: the
 * inodes of the sockets the run's processes hold (/proc/PID/fd), then the
 * kernel's own numbers for those sockets from sock_diag (a NETLINK_SOCK_DIAG
 * dump of the UNIX sockets of the run's network namespace): the memory
 * each socket has allocated for what it sent (SK_MEMINFO_WMEM_ALLOC,
 * which covers its queued skbs wherever they wait), plus what waits on a
 * socket of the run whose sender is not the run's (its receive queue).
 *
 * Pipes (and FIFOs) count too, at what each can hold: how full a pipe is
 * cannot be read from outside it, so each distinct pipe the run's
 * processes hold counts as full, 16 pages (the kernel's default; the
 * seccomp filter refuses growth past 64 KiB and vmsplice). Other kernel
 * objects (page tables, dentries) are not counted; RLIMIT_NOFILE and the
 * process cap bound them (docs/security.md). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* A sock_diag socket in the network namespace of the process pidfd
 * refers to, whose number is pid; pid 0 (and pidfd -1): the runner's own
 * namespace. For another namespace a forked helper joins the process's
 * user and network namespaces, makes the socket there and hands it back
 * (a socket keeps its namespace); the runner never leaves its own.
 *
 * -1 with errno ESRCH: the process has exited or is exiting, or pid
 * names another process by now; nothing of it is left to count, which
 * is no failure. Told apart by the pidfd, looked at after the opens of
 * /proc/PID/ns: once it shows the exit, what they found (ENOENT, or a
 * reused number's process, another uid's: EACCES) says nothing of ours;
 * while it does not, pid still named ours at the opens, and ENOENT there
 * means its namespaces were already released, which only its exit does
 * (the kernel lets go of them before it reports the exit).
 * -1 with any other errno: it cannot be had while the process lives. */
int runner_sockets_open_diag (pid_t pid, int pidfd);

/* Whether the process of pidfd has exited (its pidfd reads ready). */
bool runner_sockets_pidfd_exited (int pidfd);

/* The bytes the sockets held by pids[0..n) hold in the kernel, through
 * diag_fd; -1 when the dump cannot be read (twice), which the tree watch
 * counts as over the limit: a run is not let past a measure it broke.
 * In the same walk of their fds, *pipe_bytes gets what the distinct pipes
 * and FIFOs they hold can pin, each counted full. */
int64_t runner_sockets_bytes (int diag_fd, const pid_t *pids, size_t n, int64_t *pipe_bytes);
