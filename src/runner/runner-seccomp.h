/* runner-seccomp.h: the system-call filter every program runs under.
 *
 * Compiled with libseccomp in the runner, before fork, and handed to the
 * child as plain BPF: libseccomp 2.5 is not async-signal-safe, and building
 * the filter once per policy instead of once per run saves ~0.1 ms a run.
 * The child loads it with seccomp(2) as its very last step before execve,
 * because the filter also forbids steps taken before it (setsid, mount). */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>

typedef struct
{
  bool fallback; /* no namespaces: the filter carries more of the weight */
  bool network;  /* the run may open internet sockets */
} RunnerSeccompPolicy;

/* Fills *prog (filter array malloc'd) or returns -1 with errno set. */
int runner_seccomp_compile (const RunnerSeccompPolicy *policy, struct sock_fprog *prog);

/* In the child, after PR_SET_NO_NEW_PRIVS. Returns -1 with errno set. */
int runner_seccomp_load (const struct sock_fprog *prog);
