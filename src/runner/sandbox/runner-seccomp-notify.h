/* runner-seccomp-notify.h: the one system call seccomp hands to the run
 * init instead of deciding it: futimens, in fallback mode.
 *
 * Seccomp sees a call's arguments, not what an fd is open for. Landlock
 * does not mediate a file's times, so through a read-only fd (the run's
 * code, a --context-path document, its venv) futimens changed files the run
 * may only read; and refusing it outright broke unpacking archives (pip,
 * tarfile set each file's times). So fallback mode's argument rules give
 * utimensat with no path (futimens) to a listener, which the program sends
 * its run init as its last step before exec; the init sets the times
 * itself, only through a file open for writing (which Landlock allowed) or
 * a directory where the run may write, and with the caller's file system
 * ids (runner-seccomp-notify.c). */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stddef.h>

#include "runner-util.h"

/* Whether a filter returns SECCOMP_RET_USER_NOTIF anywhere, and so must be
 * loaded with a listener: without one the kernel answers such a call with
 * ENOSYS. */
bool runner_seccomp_notifies (const struct sock_fprog *prog);

/* In the run init, when the listener is readable: takes one notification
 * and answers it. writable: the n_writable directories the run may write
 * beneath (runner_sandbox_writable_dirs), where a file needs no fd open for
 * writing (a directory cannot have one). 0 (answered, or the caller went
 * away meanwhile), or -1 when the listener is of no more use (every
 * process under the filter is gone: stop watching it). */
int runner_seccomp_notify_answer (int listener, const RunnerDirId *writable, size_t n_writable);
