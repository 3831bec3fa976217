/* runner-seccomp.h: the system-call filters every program runs under.
 *
 * Two filters, both compiled with libseccomp in the runner, before fork,
 * and handed to the child as plain BPF: libseccomp 2.5 is not
 * async-signal-safe, and building them once per policy instead of once per
 * run saves ~0.2 ms a run. Where it can, the runner does not build them at
 * all: seccomp-gen.c builds every policy's filters with the same code when
 * the runner is built, and runner-seccomp-prebuilt.c hands those out while
 * the libseccomp loaded is the one they were built with (a test compares
 * them with what libseccomp builds, byte for byte).
 *
 *  - the allow list (runner-seccomp-allow.c): any call not on it fails with
 *    ENOSYS, so a newer kernel's calls are closed until reviewed;
 *  - the argument rules: listed calls refused with some arguments (clone
 *    with namespace flags, TIOCSTI, socket families, setuid modes, shared
 *    anonymous memory, and in fallback mode metadata changes and acting
 *    on other processes), each with the errno a program expects; fallback
 *    mode's futimens is handed to the run init (runner-seccomp-notify.h).
 *
 * The kernel runs every filter and keeps the strictest answer; between two
 * errnos, the filter loaded last wins, so the rules go last and their
 * EPERM is what a refused call sees. The child loads both as its very last
 * step before execve, because they also forbid steps taken before them
 * (setsid, mount). */
#pragma once

#include <linux/filter.h>
#include <seccomp.h>
#include <stdbool.h>

typedef struct
{
  bool fallback; /* no namespaces: the filter carries more of the weight */
  bool network;  /* the run may open internet sockets */
} RunnerSeccompPolicy;

typedef struct
{
  struct sock_fprog allow; /* the allow list, loaded first */
  struct sock_fprog rules; /* the argument rules, loaded last */
} RunnerSeccompFilter;

/* NULL-terminated; see runner-seccomp-allow.c. */
extern const char *const runner_seccomp_allowed[];

/* Fills *filter (arrays malloc'd) or returns -1 with errno set: from the
 * table built with the runner when this libseccomp is the one it was
 * built with, else through libseccomp now (runner-seccomp-prebuilt.c,
 * above this file: it picks between the two). */
int runner_seccomp_compile (const RunnerSeccompPolicy *policy, RunnerSeccompFilter *filter);

/* Always through libseccomp, now (what the table was built with). */
int runner_seccomp_compile_now (const RunnerSeccompPolicy *policy, RunnerSeccompFilter *filter);

/* From the table only (runner-seccomp-prebuilt.c); -1 when there is none
 * or the libseccomp loaded now is not the one it was built with. */
int runner_seccomp_prebuilt (const RunnerSeccompPolicy *policy, RunnerSeccompFilter *filter);

/* The argument rules' socket families (EAFNOSUPPORT for every family the
 * policy's runs may not open), added to ctx: the warm parent's own filter
 * has them too (runner-warm-filter.c). 0 or a negative errno. */
int runner_seccomp_deny_sockets (scmp_filter_ctx ctx, const RunnerSeccompPolicy *policy);

/* Frees what compile allocated; the filter is then empty. */
void runner_seccomp_clear (RunnerSeccompFilter *filter);
/* Whether filter holds a compiled filter (not cleared, not empty). */
bool runner_seccomp_compiled (const RunnerSeccompFilter *filter);

/* In the child, after PR_SET_NO_NEW_PRIVS. Returns -1 with errno set.
 * *listener: -1, or the listener of calls the rules hand over (fallback
 * mode's futimens, runner-seccomp-notify.h), for the run init to answer. */
int runner_seccomp_load (const RunnerSeccompFilter *filter, int *listener);
