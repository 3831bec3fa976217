/* runner-warm-hand.c: a run handed to a ready spare in one call, on the
 * warm parent's way from the runner's plan to its answer (the driver's
 * serve loop, runner-warm-driver.py).
 *
 * Every spare the parent forks shares the parent's pages again, so each
 * page the parent then writes is a copy-on-write fault. Done in Python,
 * the hand-off wrote ~100 of them (objects' reference counts, frames) and
 * took ~2 ms of a paused warm print(1) before the run started; here it is
 * a few system calls on this stack. The driver does its bookkeeping once
 * the runner has its answer, and anything but the plain case (a message
 * that is not a run, a spare made for another policy or gone, limits
 * that cannot be set, a send that fails) is left to it, as it came.
 *
 * The plan is read only by the one strict decoder (sp_warm_seat_limit),
 * and here for the three switches a spare is made for (as the driver's
 * plan_key), to compare them with the spare's own. */
#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "runner-util.h"

int sp_warm_seat_limit (int version, int memory_dir, int pids_dir, const char *plan, size_t len);
int sp_warm_give (int spare, int version, int memory_dir, int pids_dir, const char *plan,
                  size_t len, const int *fds, size_t n_fds);
int sp_warm_hand (int control, int spare, int spare_pidfd, const char *key, size_t key_len,
                  int version, int memory_dir, int pids_dir, const char *answer, char *msg,
                  size_t size, size_t *len, int *fds, size_t max_fds, size_t *n_fds);

/* The value of "name=value" among blob's NUL-separated items, or NULL. */
static const char *
item (const char *blob, size_t len, const char *name, size_t *value_len)
{
  size_t name_len = strlen (name);

  for (size_t at = 0; at < len;)
    {
      const char *end = memchr (blob + at, '\0', len - at);
      size_t item_len = end != NULL ? (size_t) (end - (blob + at)) : len - at;
      if (item_len > name_len && memcmp (blob + at, name, name_len) == 0
          && blob[at + name_len] == '=')
        {
          *value_len = item_len - name_len - 1;
          return blob + at + name_len + 1;
        }
      at += item_len + 1;
    }
  return NULL;
}

/* Whether the plan asks for what the spare was made for (plan_key). */
static bool
same_key (const char *plan, size_t plan_len, const char *key, size_t key_len)
{
  static const char *const names[] = { "namespaces", "network", "nobody" };

  for (size_t i = 0; i < N_ELEMENTS (names); i++)
    {
      size_t a_len = 0, b_len = 0;
      const char *a = item (plan, plan_len, names[i], &a_len);
      const char *b = item (key, key_len, names[i], &b_len);
      if ((a == NULL) != (b == NULL)
          || (a != NULL && (a_len != b_len || memcmp (a, b, a_len) != 0)))
        return false;
    }
  return true;
}

static bool
gone (int pidfd)
{
  struct pollfd p = { .fd = pidfd, .events = POLLIN };
  return poll (&p, 1, 0) != 0;
}

/* In the warm parent: a run's plan and fds given to a spare (its channel
 * to the init), its seat's cgroup limits set first when version is not 0
 * (its directories' fds, by the strict decoder's sp_warm_seat_limit). 0,
 * or -1 when the limits cannot be set or the spare is gone. The driver's
 * way to hand a run too, when sp_warm_hand left it the run. */
int
sp_warm_give (int spare, int version, int memory_dir, int pids_dir, const char *plan, size_t len,
              const int *fds, size_t n_fds)
{
  if (version != 0
      && (memory_dir < 0 || sp_warm_seat_limit (version, memory_dir, pids_dir, plan, len) != 0))
    return -1;
  return send_with_fds (spare, plan, len, fds, n_fds);
}

/* In the warm parent, once the runner's socket (control) is readable:
 * receives its message (at most size bytes, max_fds fds) and, when
 * it is a run for the spare given (its channel to the init, its pidfd,
 * the switches it was made for in key, its seat's cgroup directories
 * when version is not 0), sets the seat's limits, hands the spare the
 * plan and the run's fds, closes them and answers the runner with answer
 * and the spare's pidfd: 1. Otherwise 0, with the message in msg (len,
 * 0 at the runner's end) and its fds in fds (n_fds), for the driver to
 * deal with; 2 when it came cut short or with too many fds (closed, none
 * given back); -1 with errno when nothing could be received. spare -1:
 * no spare is ready. */
int
sp_warm_hand (int control, int spare, int spare_pidfd, const char *key, size_t key_len, int version,
              int memory_dir, int pids_dir, const char *answer, char *msg, size_t size, size_t *len,
              int *fds, size_t max_fds, size_t *n_fds)
{
  *len = 0;
  *n_fds = 0;
  ssize_t n = recv_with_some_fds (control, msg, size, fds, 0,
                                  max_fds < RUNNER_MAX_PASSED_FDS ? max_fds : RUNNER_MAX_PASSED_FDS,
                                  n_fds);
  if (n < 0)
    return errno == EBADMSG ? 2 : -1;
  *len = (size_t) n;
  /* A run brings its five pipes, and its cgroups' fds when it has them. */
  if (spare < 0 || *n_fds < 5 || *len == 0 || !same_key (msg, *len, key, key_len)
      || gone (spare_pidfd))
    return 0;
  if (sp_warm_give (spare, version, memory_dir, pids_dir, msg, *len, fds, *n_fds) != 0)
    return 0;
  for (size_t i = 0; i < *n_fds; i++)
    close (fds[i]);
  *n_fds = 0;
  send_with_fds (control, answer, strlen (answer), &spare_pidfd, 1);
  return 1;
}
