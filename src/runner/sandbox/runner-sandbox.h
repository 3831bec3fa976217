/* runner-sandbox.h: the isolation layers every run goes through.
 *
 * Two modes. "namespaces" where unprivileged user namespaces work: the run
 * gets new user, pid, mount, network, ipc, uts and cgroup namespaces and a
 * private root holding only /usr, a few /etc files, its working directory
 * and a fresh /proc, /dev and /tmp. "fallback" where they are refused
 * (inside Flatpak, hardened kernels): the same steps minus namespaces,
 * with Landlock as the filesystem boundary and a stricter seccomp filter.
 * In both, the program never runs as root, starts with no capabilities,
 * no_new_privs, Landlock and seccomp as its last step before execve.
 *
 * The plan is built in the runner before fork; the functions that apply it
 * run in the forked children and only use what the plan holds. */
#pragma once

#include <linux/filter.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "runner-seccomp.h"
#include "runner-util.h"

typedef enum
{
  RUNNER_SANDBOX_AUTO,
  RUNNER_SANDBOX_NAMESPACES,
  RUNNER_SANDBOX_FALLBACK,
} RunnerSandboxMode;

/* "auto", "namespaces", "fallback"; -1 for anything else. */
int runner_sandbox_mode_parse (const char *name, RunnerSandboxMode *mode);

/* What this kernel and this process allow, probed once at startup. */
typedef struct
{
  bool userns;      /* namespace mode works here: a user namespace with our ids
                     * mapped, the others, a tmpfs and a pivot into it */
  int landlock_abi; /* 0: no Landlock */
  bool seccomp;
} RunnerSandboxCaps;

void runner_sandbox_probe (RunnerSandboxCaps *caps);

/* The uid a program runs as when the runner is root: nobody. */
#define RUNNER_SANDBOX_NOBODY 65534
/* The program's uid and gid inside the user namespace. */
#define RUNNER_SANDBOX_INNER_ID 1000

/* The system files outside /usr a run may read (bound into the private root, or
 * allowed by Landlock in fallback mode). NULL-terminated. */
extern const char *const runner_sandbox_etc[27];

/* Where a run's pieces appear to the program in namespace mode. */
#define RUNNER_SANDBOX_WORK "/work"
#define RUNNER_SANDBOX_CODE "/code"
/* Where namespace mode binds the runner's prelude files (plan->prelude_dir). */
#define RUNNER_SANDBOX_CODE_PRELUDE RUNNER_SANDBOX_CODE "/.sandpad/prelude"
/* Readable only by runs that have the network. */
#define RUNNER_SANDBOX_RESOLV_CONF "/etc/resolv.conf"

/* Layers a plan may go without, each only when named in its waived set
 * (a host that lacks it, outside strict mode; the runner reports why in
 * ready and started). A field left at zero is never a waiver: a plan
 * whose landlock_abi is 0 or whose seccomp is NULL without the waiver is
 * refused (runner_sandbox_plan_check), not run with fewer layers. */
typedef enum
{
  RUNNER_LAYER_LANDLOCK = 1u << 0,
  RUNNER_LAYER_SECCOMP = 1u << 1,
} RunnerSandboxLayer;

#define RUNNER_LAYER_ALL (RUNNER_LAYER_LANDLOCK | RUNNER_LAYER_SECCOMP)

/* A run's limits, all in its plan (issue 40): the program's rlimits, set
 * by runner_spawn (or a warm spare, from the plan's codec), and its
 * cgroups' where the runner has them (set on the run's groups, or on a
 * warm spare's seat). The process cap is the plan's max_processes. */
typedef struct
{
  int64_t memory_bytes;        /* RLIMIT_DATA */
  int64_t cpu_seconds;         /* RLIMIT_CPU; 0: none (a session's interpreter) */
  int64_t file_size_bytes;     /* RLIMIT_FSIZE */
  int64_t open_files;          /* RLIMIT_NOFILE */
  int64_t cgroup_memory_bytes; /* memory.max: memory_bytes and, in namespace
                                * mode, the private /tmp, whose tmpfs pages
                                * are charged there too */
  int64_t cgroup_tasks;        /* pids.max */
} RunnerLimits;

typedef struct
{
  bool namespaces;
  bool network;
  int landlock_abi;                   /* > 0, unless Landlock is waived */
  const RunnerSeccompFilter *seccomp; /* set, unless seccomp is waived */
  unsigned waived;                    /* RunnerSandboxLayer bits */
  bool drop_to_nobody;                /* the runner is root */
  int64_t max_processes;              /* the run's process cap: RLIMIT_NPROC, over the
                                       * uid's count in fallback mode (runner-nproc.h) */
  int64_t tmp_bytes;                  /* size of the private /tmp (namespaces) */
  RunnerLimits limits;
  const char *root_dir;   /* empty directory for the new root */
  const char *work_dir;   /* host paths */
  dev_t work_dev;         /* work_dir as the runner checked it and */
  ino_t work_ino;         /* holds it (ino 0: not checked): every
                           * lookup of work_dir in the child must
                           * find this very directory */
  bool work_at_host_path; /* namespace mode: work_dir is bound at
                           * its own path too (the same fd, as
                           * writable as /work), for programs told
                           * that path; only where
                           * runner_sandbox_host_path_ok */
  const char *code_dir;
  const char *prelude_dir; /* namespace mode: the runner's own directory
                            * of the prelude's files, bound read-only
                            * over code/.sandpad/prelude; or NULL (the
                            * run has its own copy in code/.sandpad) */
  const char *tmp_dir;
  char *const *read_only_dirs;      /* extra read-only host directories, or NULL */
  const RunnerDirId *read_only_ids; /* each one's id as checked, or NULL (none
                                     * checked): bound and given to Landlock
                                     * only through an fd found to be it */
  const char *env_dir;              /* the run's environment (a venv, node_modules),
                                     * canonical, or NULL: bound at its own path
                                     * and, when it lies in work_dir, over its
                                     * place there too; read-only unless
                                     * env_writable (an install's last step) */
  bool env_writable;
  RunnerDirId env_id; /* env_dir as runner_env_check found it */
} RunnerSandboxPlan;

/* Whether plan is whole: every layer present or waived (never both),
 * and the directories a run is made of named. 0, or -1 with errno EINVAL
 * and what is wrong in *why (static text). runner_spawn and
 * runner_sandbox_restrict refuse a plan that is not. */
int runner_sandbox_plan_check (const RunnerSandboxPlan *plan, const char **why);

/* Opens plan->work_dir (O_PATH, no symlink in any component) and checks
 * it is the directory the runner checked: a run racing this one may have
 * swapped a part of the name since. -1 with errno ESTALE if it is not. */
int runner_sandbox_open_work (const RunnerSandboxPlan *plan);

/* The same for any checked directory: path opened O_PATH without
 * following a symlink, and found to be id (unless id.ino is 0). */
int runner_sandbox_open_checked (const char *path, RunnerDirId id);

/* Whether a canonical host path may be shown at its own path in the
 * private root: not "/" nor under a name the root is made of (/usr, /etc,
 * /bin, /lib*, /dev, /proc, /work, /code), nor /tmp itself (a directory
 * under /tmp lands inside the run's private /tmp, shadowing nothing).
 * False with a reason in *why (static text) otherwise. */
bool runner_sandbox_host_path_ok (const char *path, const char **why);

/* Failing steps, reported in the run's "failed" error. */
typedef enum
{
  RUNNER_STEP_UID = 100,
  RUNNER_STEP_USERNS,
  RUNNER_STEP_NAMESPACES,
  RUNNER_STEP_ROOT,
  RUNNER_STEP_CAPS,
  RUNNER_STEP_NO_NEW_PRIVS,
  RUNNER_STEP_LANDLOCK,
  RUNNER_STEP_SECCOMP,
  RUNNER_STEP_PLAN, /* runner_sandbox_plan_check refused the plan */
} RunnerSandboxStep;

const char *runner_sandbox_step_name (int step);

/* In the run supervisor (namespace mode): leave root if we are root, then
 * enter fresh namespaces; the next fork()ed child is pid 1 of the new pid
 * namespace. Returns 0, or a RunnerSandboxStep with errno set. */
int runner_sandbox_enter_namespaces (const RunnerSandboxPlan *plan);

/* Its steps, for a warm spare, whose pid 1 is cloned into the namespaces
 * instead (runner-warm-child.c): leave root if the plan says so (0 or
 * RUNNER_STEP_UID); the namespaces a run gets besides the user namespace
 * (CLONE_NEW* flags); and the id maps of a new user namespace, written
 * into proc_dir (an fd of /proc/self) by its creator, uid and gid its ids
 * outside (0, or -1 with errno set). */
int runner_sandbox_leave_root (const RunnerSandboxPlan *plan);
int runner_sandbox_ns_flags (const RunnerSandboxPlan *plan);
int runner_sandbox_map_ids (int proc_dir, uid_t uid, gid_t gid);

/* In pid 1 of the new namespaces: build the private root and pivot into
 * it. Returns 0, or a RunnerSandboxStep with errno set. */
int runner_sandbox_build_root (const RunnerSandboxPlan *plan);

/* In the program, after its rlimits: leave root (fallback), drop
 * capabilities, no_new_privs, Landlock. Returns 0 or a step. */
int runner_sandbox_restrict (const RunnerSandboxPlan *plan);

/* In the program, fallback mode: O_PATH fds of the directories Landlock
 * lets it write beneath (the working directory, its tmp, a writable
 * environment), checked as Landlock's rules were, into fds. How many, or
 * -1 with errno set. The run init's answer to futimens through a
 * read-only fd looks for one of them above the file
 * (runner-seccomp-notify.h). */
#define RUNNER_SANDBOX_MAX_WRITABLE 3
int runner_sandbox_writable_dirs (const RunnerSandboxPlan *plan,
                                  int fds[RUNNER_SANDBOX_MAX_WRITABLE]);

/* In the program, the very last step before execve. *listener: -1, or
 * the filter's listener for the run init (runner_seccomp_load). */
int runner_sandbox_seccomp (const RunnerSandboxPlan *plan, int *listener);
