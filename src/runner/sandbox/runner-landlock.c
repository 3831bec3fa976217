/* runner-landlock.c: filesystem, network and scope rules with Landlock.
 *
 * Debian 12's kernel headers know Landlock ABI 1 and 2 only; the newer
 * constants are defined here from the kernel's UAPI so the runner uses
 * what a newer kernel offers. */
#include "runner-landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <stdint.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runner-util.h"

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#define __NR_landlock_add_rule 445
#define __NR_landlock_restrict_self 446
#endif

/* ABI 3 and later, from include/uapi/linux/landlock.h. */
#define ACCESS_FS_TRUNCATE (1ULL << 14)  /* ABI 3 */
#define ACCESS_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 */
#define ACCESS_NET_BIND_TCP (1ULL << 0)  /* ABI 4 */
#define ACCESS_NET_CONNECT_TCP (1ULL << 1)
#define SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0) /* ABI 6 */
#define SCOPE_SIGNAL (1ULL << 1)

/* The ruleset attribute as of ABI 6; the kernel takes a prefix of it. */
struct ruleset_attr
{
  uint64_t handled_access_fs;
  uint64_t handled_access_net;
  uint64_t scoped;
};

struct path_beneath_attr
{
  uint64_t allowed_access;
  int32_t parent_fd;
} __attribute__ ((packed));

#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define FS_WRITE_ALL                                                                               \
  (LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR | LANDLOCK_ACCESS_FS_REMOVE_FILE  \
   | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_MAKE_SOCK      \
   | LANDLOCK_ACCESS_FS_MAKE_FIFO | LANDLOCK_ACCESS_FS_MAKE_SYM)

int
runner_landlock_abi (void)
{
  long abi = syscall (__NR_landlock_create_ruleset, NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);

  return abi < 0 ? 0 : (int) abi;
}

static uint64_t
fs_rights_for (int abi)
{
  /* Everything ABI 1 knows, up to and including its last right,
   * MAKE_SYM: a right that is not handled is not restricted, and an
   * unhandled MAKE_SYM let fallback runs plant symlinks anywhere the uid
   * may write. Device creation is handled and never granted, so no device
   * node can be made. */
  uint64_t rights = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1;

  if (abi >= 2)
    rights |= LANDLOCK_ACCESS_FS_REFER;
  if (abi >= 3)
    rights |= ACCESS_FS_TRUNCATE;
  if (abi >= 5)
    rights |= ACCESS_FS_IOCTL_DEV;
  return rights;
}

static int
allow (int ruleset, const char *const *paths, uint64_t access, uint64_t handled)
{
  for (size_t i = 0; paths != NULL && paths[i] != NULL; i++)
    {
      struct stat st;
      int fd = open (paths[i], O_PATH | O_CLOEXEC);

      if (fd < 0)
        continue;
      /* Directory-only rights on a file are rejected by the kernel. */
      uint64_t mask = access & handled;
      if (fstat (fd, &st) == 0 && !S_ISDIR (st.st_mode))
        mask &= ~(LANDLOCK_ACCESS_FS_READ_DIR | LANDLOCK_ACCESS_FS_REMOVE_DIR
                  | LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR
                  | LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG
                  | LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO
                  | LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM
                  | LANDLOCK_ACCESS_FS_REFER);
      struct path_beneath_attr attr = { .allowed_access = mask, .parent_fd = fd };
      long rc = syscall (__NR_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &attr, 0);
      int errsv = errno;
      close (fd);
      if (rc != 0)
        {
          errno = errsv;
          return -1;
        }
    }
  return 0;
}

int
runner_landlock_apply (int abi, const RunnerLandlockRules *rules)
{
  struct ruleset_attr attr = { 0 };
  size_t attr_size = sizeof attr.handled_access_fs;
  uint64_t fs = fs_rights_for (abi);

  attr.handled_access_fs = fs;
  if (abi >= 4)
    {
      attr_size = offsetof (struct ruleset_attr, scoped);
      /* No port is ever allowed: with network off, TCP is simply gone. */
      attr.handled_access_net = rules->network ? 0 : ACCESS_NET_BIND_TCP | ACCESS_NET_CONNECT_TCP;
    }
  if (abi >= 6)
    {
      attr_size = sizeof attr;
      /* Abstract UNIX sockets (X11, some D-Bus setups) and signals reach
       * only processes inside this sandbox. */
      attr.scoped = SCOPE_ABSTRACT_UNIX_SOCKET | SCOPE_SIGNAL;
    }

  int ruleset = (int) syscall (__NR_landlock_create_ruleset, &attr, attr_size, 0);
  if (ruleset < 0)
    return -1;

  uint64_t rx = FS_READ | LANDLOCK_ACCESS_FS_EXECUTE;
  uint64_t dev = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE
                 | (abi >= 3 ? ACCESS_FS_TRUNCATE : 0) | (abi >= 5 ? ACCESS_FS_IOCTL_DEV : 0);
  uint64_t rw
    = fs & ~(LANDLOCK_ACCESS_FS_MAKE_CHAR | LANDLOCK_ACCESS_FS_MAKE_BLOCK | ACCESS_FS_IOCTL_DEV);
  int rc = 0;

  if (allow (ruleset, rules->read_exec, rx, fs) != 0
      || allow (ruleset, rules->read_only, FS_READ, fs) != 0
      || allow (ruleset, rules->read_write, rw | FS_WRITE_ALL | rx, fs) != 0
      || allow (ruleset, rules->devices, dev, fs) != 0)
    rc = -1;
  if (rc == 0 && syscall (__NR_landlock_restrict_self, ruleset, 0) != 0)
    rc = -1;
  int errsv = errno;
  close (ruleset);
  errno = errsv;
  return rc;
}
