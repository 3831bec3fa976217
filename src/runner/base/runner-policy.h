/* runner-policy.h: which host paths a request may name.
 *
 * A run request may name a file to run ("path") and a directory to run in
 * ("cwd"). Whoever writes requests (an assistant, through the MCP server)
 * is not trusted to choose them: the client that starts the runner sets,
 * once and on its command line, the directories under which they may lie
 * (--allow-path DIR, --allow-cwd DIR). With no such flag the field is
 * refused. Every name is resolved (realpath) before it is compared, and
 * opened without following symlinks afterwards, so neither a symlink nor
 * ".." leads out of an allowed directory. */
#pragma once

#include <stdbool.h>
#include <sys/types.h>

#include "sp-proto.h"

typedef struct
{
  char **paths;               /* canonical directories: files under them may be a "path" */
  char **cwds;                /* canonical directories: they and those under them may be a "cwd" */
  bool cwd_any_owner;         /* sandpad-run: the person at the shell named the directory */
  char **environments;        /* canonical directories: an "environment" may lie under
                               * them (or under paths or cwds); see runner-venv.h */
  bool environments_anywhere; /* the app's runner: its one client, the user's own
                               * app, names the venv of the file the user opened */
} RunnerPathPolicy;

/* Adds DIR (made canonical; it must be an existing directory other than
 * "/") to a list; returns -1 with errno set (EINVAL for "/" or a non-directory). */
int runner_policy_allow (char ***list, const char *dir);
void runner_policy_clear (RunnerPathPolicy *policy);

/* Checks a request's cwd against the policy: resolved, under an allowed
 * directory, neither inside nor around `private_dir` (the runner's own
 * directory of runs), a directory owned by run_uid (unless cwd_any_owner)
 * and not "/". On success *canonical is the resolved path and, when
 * dir_fd is not NULL, *dir_fd an O_PATH fd of the very directory checked:
 * from then on the caller uses the fd, never the name, which a run racing
 * this one can swap for a symlink at any moment. */
int runner_policy_check_cwd (const RunnerPathPolicy *policy, const char *private_dir,
                             const char *cwd, uid_t run_uid, char **canonical, int *dir_fd,
                             SpProtoError *err);

/* Reads a request's path under the same rules (no directory check, but a
 * regular file of at most max_bytes), with the privileges of run_uid: a
 * root runner reads it in a child that has become run_uid, so a file the
 * run could not read is refused. On success *text is NUL-terminated and
 * *canonical the resolved path. */
int runner_policy_read_path (const RunnerPathPolicy *policy, const char *private_dir,
                             const char *path, uid_t run_uid, size_t max_bytes, char **text,
                             char **canonical, SpProtoError *err);
