/* runner-landlock.h: filesystem, network and scope rules with Landlock.
 *
 * Landlock is unprivileged and stacks, so it works everywhere the kernel
 * has it, inside Flatpak included. With namespaces it is a second wall
 * behind the private root; without them it is the filesystem boundary.
 * Best effort by ABI: every right the running kernel knows is handled, so
 * a newer kernel denies more by default, never less. */
#pragma once

#include <stdbool.h>

/* The kernel's Landlock ABI version, 0 when unavailable. */
int runner_landlock_abi (void);

typedef struct
{
  const char *const *read_exec;  /* read and execute beneath these */
  const char *const *read_only;  /* read beneath these */
  const char *const *read_write; /* everything beneath these */
  const char *const *devices;    /* read and write these device files */
  bool network;                  /* leave TCP unrestricted */
} RunnerLandlockRules;

/* In the child, after PR_SET_NO_NEW_PRIVS. A path that does not exist is
 * skipped. Returns -1 with errno set. */
int runner_landlock_apply (int abi, const RunnerLandlockRules *rules);
