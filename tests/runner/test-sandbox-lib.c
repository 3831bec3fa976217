/* test-sandbox-lib.c: the sandbox library on its own, as an auditor reads
 * it: src/runner/sandbox linked without the service, the engine or the
 * protocol. runner_spawn() starts a shell under a plan, in each mode this
 * kernel allows, and the shell reports what it got from the kernel
 * itself (/proc/self/status, a write outside its directory, a forbidden
 * read, a new namespace). Each probe first runs without the sandbox as a
 * control, so a probe that could never escape cannot pass for a wall.
 *
 * Prints TAP. Runs as root (the program becomes nobody) or as a user. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "runner-sandbox.h"
#include "runner-seccomp.h"
#include "runner-spawn.h"
#include "runner-base.h"
#include "tap.h"

#define SHELL "/usr/bin/sh"

/* One line per probe: "name value". Outside paths are fixed by main(). */
static const char probe_script[]
  /* The shell reads its own status: /proc/self of a child (grep) is that
   * child's, which fallback's Landlock rules do not open. */
  = "while read -r l; do case \"$l\" in NoNewPrivs:*|Seccomp:*|CapEff:*) set -- $l;"
    " echo \"${1%:} $2\";; esac; done < /proc/self/status\n"
    "echo uid $(id -u)\n"
    "if echo x > \"$OUTSIDE\" 2>/dev/null; then echo write-outside yes; else echo write-outside "
    "no; fi\n"
    "if cat \"$SECRET\" >/dev/null 2>&1; then echo read-secret yes; else echo read-secret no; fi\n"
    "if unshare -U true 2>/dev/null; then echo new-userns yes; else echo new-userns no; fi\n"
    "if echo x > work-file; then echo write-work yes; else echo write-work no; fi\n";

typedef struct
{
  char base[64];
  char *root, *code, *tmp, *work;
  char outside[128]; /* a path the program must not create */
  char secret[128];  /* a file of the test's own it must not read */
} Dirs;

static void
make_dirs (Dirs *d)
{
  uid_t owner = geteuid () == 0 ? RUNNER_SANDBOX_NOBODY : geteuid ();
  char *all[4];

  snprintf (d->base, sizeof d->base, "/tmp/sandpad-sandbox-lib-XXXXXX");
  if (mkdtemp (d->base) == NULL || chmod (d->base, 0711) != 0)
    die_with_error ("mkdtemp");
  d->root = xasprintf ("%s/root", d->base);
  d->code = xasprintf ("%s/code", d->base);
  d->tmp = xasprintf ("%s/tmp", d->base);
  d->work = xasprintf ("%s/work", d->base);
  all[0] = d->root, all[1] = d->code, all[2] = d->tmp, all[3] = d->work;
  for (int i = 0; i < 4; i++)
    if (mkdir (all[i], 0700) != 0 || chown (all[i], owner, owner) != 0)
      die_with_error ("mkdir %s", all[i]);
  /* Beside the run's directories, writable by the program's uid: only
   * the sandbox can keep it out. */
  snprintf (d->outside, sizeof d->outside, "%s/outside", d->base);
  if (mkdir (d->outside, 0700) != 0 || chown (d->outside, owner, owner) != 0)
    die_with_error ("mkdir outside");
  strcat (d->outside, "/planted");
  snprintf (d->secret, sizeof d->secret, "%s/secret", d->base);
  int fd = open (d->secret, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || write_all (fd, "secret\n", 7) != 0 || fchown (fd, owner, owner) != 0)
    die_with_error ("secret");
  close (fd);
}

static void
reset_dirs (const Dirs *d)
{
  cleanup_free char *work_file = xasprintf ("%s/work-file", d->work);
  unlink (d->outside);
  unlink (work_file);
}

static void
remove_dirs (Dirs *d)
{
  remove_tree (d->base);
  free (d->root);
  free (d->code);
  free (d->tmp);
  free (d->work);
}

static char *
read_all (int fd)
{
  Buf buf = { 0 };
  char chunk[4096];
  ssize_t n;

  while ((n = read (fd, chunk, sizeof chunk)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0)
      buf_append (&buf, chunk, (size_t) n);
  buf_append (&buf, "", 1);
  return buf.data;
}

/* The value after "name " on its own line, or "" (static storage). */
static const char *
field (const char *out, const char *name)
{
  static char value[64];
  size_t len = strlen (name);

  value[0] = '\0';
  for (const char *line = out; line != NULL && *line; line = strchr (line, '\n'))
    {
      if (*line == '\n')
        line++;
      if (strncmp (line, name, len) == 0 && line[len] == ' ')
        {
          size_t n = strcspn (line + len + 1, "\n");
          if (n >= sizeof value)
            n = sizeof value - 1;
          memcpy (value, line + len + 1, n);
          value[n] = '\0';
          break;
        }
    }
  return value;
}

static void
free_strv (char **v)
{
  for (char **p = v; *p != NULL; p++)
    free (*p);
  free (v);
}

/* A multi-line text as TAP comments, one "# " per line. */
static void
diag_lines (const char *label, const char *text)
{
  diag ("%s:", label);
  for (const char *line = text; *line;)
    {
      size_t n = strcspn (line, "\n");
      diag ("  %.*s", (int) n, line);
      line += n;
      if (*line == '\n')
        line++;
    }
}

static char **
probe_env (const Dirs *d)
{
  char **env = xcalloc (4, sizeof *env);

  env[0] = xstrdup ("PATH=/usr/bin:/bin");
  env[1] = xasprintf ("OUTSIDE=%s", d->outside);
  /* In namespace mode the host path is not in the private root; the
   * probe still names it, and must not reach it. */
  env[2] = xasprintf ("SECRET=%s", d->secret);
  return env;
}

/* The control: the same shell, forked and exec'd with nothing applied. */
static char *
run_plain (const Dirs *d)
{
  char *const argv[] = { SHELL, "-c", (char *) probe_script, NULL };
  char **env = probe_env (d);
  int out[2];
  pid_t pid;
  char *text;

  if (pipe2 (out, O_CLOEXEC) != 0)
    die_with_error ("pipe");
  pid = fork ();
  if (pid == 0)
    {
      dup2 (out[1], 1);
      if (chdir (d->work) != 0)
        _exit (126);
      execve (SHELL, argv, env);
      _exit (127);
    }
  close (out[1]);
  text = read_all (out[0]);
  close (out[0]);
  waitpid (pid, NULL, 0);
  free_strv (env);
  return text;
}

/* The same shell through runner_spawn() under a plan; returns its output
 * and fills *report from the run init. */
/* What a run gets beyond its own directories: context paths and an
 * environment, each with the id it was checked as. */
typedef struct
{
  const char *script;
  char *const *read_only_dirs;
  const RunnerDirId *read_only_ids;
  const char *env_dir;
  RunnerDirId env_id;
} Extra;

static char *
run_sandboxed (const Dirs *d, bool namespaces, int landlock_abi, const RunnerSeccompFilter *filter,
               RunnerReport *report, const Extra *extra)
{
  char *const argv[] = { SHELL, "-c", (char *) (extra ? extra->script : probe_script), NULL };
  char **env = probe_env (d);
  int in[2], out[2], ctl[2], status[2];
  RunnerSandboxPlan plan = {
    .namespaces = namespaces,
    .network = false,
    .landlock_abi = landlock_abi,
    .seccomp = filter,
    /* A kernel without Landlock: waived by name, as the runner does. */
    .waived = landlock_abi > 0 ? 0 : RUNNER_LAYER_LANDLOCK,
    .drop_to_nobody = geteuid () == 0,
    /* Without a user namespace RLIMIT_NPROC counts every process of the
     * uid on the host (nobody's, from tests running beside this one): not
     * what this test is about, so leave room. */
    .max_processes = namespaces ? 64 : 1 << 16,
    .tmp_bytes = 16 << 20,
    .root_dir = d->root,
    .work_dir = d->work,
    .code_dir = d->code,
    .tmp_dir = d->tmp,
    .read_only_dirs = extra ? extra->read_only_dirs : NULL,
    .read_only_ids = extra ? extra->read_only_ids : NULL,
    .env_dir = extra ? extra->env_dir : NULL,
    .env_id = extra ? extra->env_id : (RunnerDirId){ 0 },
    .limits = {
      .memory_bytes = 256 << 20,
      .cpu_seconds = 10,
      .file_size_bytes = 1 << 20,
      .open_files = 64,
    },
  };
  RunnerSpawnSpec spec = {
    .path = SHELL,
    .argv = argv,
    .envp = env,
    .cwd = namespaces ? RUNNER_SANDBOX_WORK : d->work,
    .sandbox = &plan,
  };
  char *text;
  pid_t pid;

  if (pipe2 (in, O_CLOEXEC) != 0 || pipe2 (out, O_CLOEXEC) != 0 || pipe2 (ctl, O_CLOEXEC) != 0
      || pipe2 (status, O_CLOEXEC) != 0)
    die_with_error ("pipe");
  spec.stdin_fd = in[0];
  spec.stdout_fd = out[1];
  spec.stderr_fd = out[1];
  spec.control_fd = ctl[0];
  spec.status_fd = status[1];
  pid = runner_spawn (&spec);
  if (pid < 0)
    die_with_error ("runner_spawn");
  close (in[0]);
  close (in[1]); /* the probe reads nothing */
  close (out[1]);
  close (ctl[0]);
  close (status[1]);
  text = read_all (out[0]);
  close (out[0]);
  memset (report, 0, sizeof *report);
  if (read (status[0], report, sizeof *report) != (ssize_t) sizeof *report)
    report->kind = -1;
  close (status[0]);
  close (ctl[1]);
  waitpid (pid, NULL, 0);
  free_strv (env);
  return text;
}

static void
check_mode (const Dirs *d, const char *mode, bool namespaces, int landlock_abi)
{
  RunnerSeccompPolicy policy = { .fallback = !namespaces, .network = false };
  RunnerSeccompFilter filter = { 0 };
  RunnerReport report;
  cleanup_free char *out = NULL;

  if (runner_seccomp_compile (&policy, &filter) != 0)
    die_with_error ("seccomp compile");
  reset_dirs (d);
  out = run_sandboxed (d, namespaces, landlock_abi, &filter, &report, NULL);
  diag_lines (mode, out);
  ok (report.kind == RUNNER_REPORT_EXITED && WIFEXITED (report.wait_status)
        && WEXITSTATUS (report.wait_status) == 0,
      "%s: the shell ran to its end (report kind %d, errno %d, step %d)", mode, report.kind,
      report.error_errno, report.error_step);
  is_str (field (out, "NoNewPrivs"), "1", "%s: no_new_privs is set", mode);
  is_str (field (out, "Seccomp"), "2", "%s: seccomp filter mode", mode);
  is_str (field (out, "CapEff"), "0000000000000000", "%s: no effective capabilities", mode);
  ok (strcmp (field (out, "uid"), "0") != 0 && field (out, "uid")[0] != '\0',
      "%s: not root (uid %s)", mode, field (out, "uid"));
  is_str (field (out, "write-outside"), "no", "%s: cannot write beside its directory", mode);
  ok (access (d->outside, F_OK) != 0, "%s: nothing was planted on the host", mode);
  is_str (field (out, "read-secret"), "no", "%s: cannot read the test's file", mode);
  is_str (field (out, "new-userns"), "no", "%s: cannot make a user namespace", mode);
  is_str (field (out, "write-work"), "yes", "%s: can write its own directory", mode);
  runner_seccomp_clear (&filter);
}

/* A directory of the test's (readable by the run's uid) holding "mark". */
static char *
make_marked (const Dirs *d, const char *name, const char *mark)
{
  char *dir = xasprintf ("%s/%s", d->base, name);
  cleanup_free char *file = xasprintf ("%s/mark", dir);

  if (mkdir (dir, 0755) != 0)
    die_with_error ("mkdir %s", dir);
  int fd = open (file, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || write_all (fd, mark, strlen (mark)) != 0)
    die_with_error ("%s", file);
  close (fd);
  return dir;
}

/* A context path and an environment checked, then their names swapped for
 * other directories before the run: bound and granted through fds found
 * to be what was checked, the run never sees the others (it fails: the
 * directory it was given is gone from that name). Control: the same run
 * given the names alone (unchecked) reads the swapped-in directories, so
 * the probe does see a swap. */
static void
check_swapped (const Dirs *d, const char *mode, bool namespaces, int landlock_abi)
{
  RunnerSeccompPolicy policy = { .fallback = !namespaces, .network = false };
  RunnerSeccompFilter filter = { 0 };
  cleanup_free char *ctx = make_marked (d, "ctx", "checked");
  cleanup_free char *env = make_marked (d, "env", "checked");
  cleanup_free char *ctx_real = xasprintf ("%s.real", ctx);
  cleanup_free char *env_real = xasprintf ("%s.real", env);
  cleanup_free char *script
    = xasprintf ("echo ctx $(cat %s/mark 2>/dev/null); echo env $(cat %s/mark 2>/dev/null)", ctx,
                 env);
  struct stat st;
  char *dirs[] = { ctx, NULL };
  RunnerDirId ids[1];
  RunnerDirId env_id;

  if (runner_seccomp_compile (&policy, &filter) != 0)
    die_with_error ("seccomp compile");
  if (stat (ctx, &st) != 0)
    die_with_error ("stat");
  ids[0] = (RunnerDirId){ st.st_dev, st.st_ino };
  if (stat (env, &st) != 0)
    die_with_error ("stat");
  env_id = (RunnerDirId){ st.st_dev, st.st_ino };
  /* After the check: the names now lead to other directories. */
  if (rename (ctx, ctx_real) != 0 || rename (env, env_real) != 0)
    die_with_error ("rename");
  free (make_marked (d, "ctx", "swapped"));
  free (make_marked (d, "env", "swapped"));

  Extra unchecked = { .script = script, .read_only_dirs = dirs, .env_dir = env };
  RunnerReport report;
  cleanup_free char *control = run_sandboxed (d, namespaces, landlock_abi, &filter, &report,
                                              &unchecked);
  diag_lines (mode, control);
  ok (strstr (control, "ctx swapped") != NULL && strstr (control, "env swapped") != NULL,
      "%s: control: by name, a run reads the directories swapped in", mode);

  Extra checked = { .script = script,
                    .read_only_dirs = dirs,
                    .read_only_ids = ids,
                    .env_dir = env,
                    .env_id = env_id };
  cleanup_free char *out = run_sandboxed (d, namespaces, landlock_abi, &filter, &report, &checked);
  diag_lines (mode, out);
  ok (strstr (out, "swapped") == NULL && report.kind != RUNNER_REPORT_EXITED,
      "%s: checked, a run never gets the swapped-in context path or environment (it fails: "
      "report kind %d, step %d, errno %d)",
      mode, report.kind, report.error_step, report.error_errno);
  cleanup_free char *ctx_swapped = xasprintf ("%s/ctx.swapped", d->base);
  cleanup_free char *env_swapped = xasprintf ("%s/env.swapped", d->base);
  /* Put back: the next mode starts from a checked directory again. */
  if (rename (ctx, ctx_swapped) != 0 || rename (env, env_swapped) != 0
      || remove_tree (ctx_swapped) != 0 || remove_tree (env_swapped) != 0
      || remove_tree (ctx_real) != 0 || remove_tree (env_real) != 0)
    die_with_error ("clean up");
  runner_seccomp_clear (&filter);
}

/* Which host paths may be bound at their own path in the private root
 * (sandpad-mcp's workspace): never one that would shadow a directory the
 * root is made of, nor one whose mount point chain would pass through
 * such a directory (/work is the run's own working directory: the chain
 * would be made inside the host's workspace). */
static void
check_host_paths (void)
{
  static const struct
  {
    const char *path;
    bool ok;
  } cases[] = {
    { "/home/me/ws", true },    { "/tmp/ws", true },
    { "/var/tmp/ws", true },    { "/libfoo/ws", true },
    { "/usr/local/ws", false }, { "/etc/ws", false },
    { "/lib/ws", false },       { "/work/ws", false },
    { "/code", false },         { "/proc/1/root", false },
    { "/dev/shm/ws", false },   { "/tmp", false },
    { "/.oldroot/ws", false },  { "/", false },
    { "/home/../usr", false },  { "/home//me", false },
    { "home/me", false },
  };
  for (size_t i = 0; i < N_ELEMENTS (cases); i++)
    {
      const char *why = NULL;
      bool got = runner_sandbox_host_path_ok (cases[i].path, &why);
      ok (got == cases[i].ok && (got || why != NULL), "host path %s %s at its own path",
          cases[i].path, cases[i].ok ? "may be bound" : "is never bound");
    }
}

int
main (void)
{
  RunnerSandboxCaps caps;
  Dirs d;
  cleanup_free char *control = NULL;

  runner_sandbox_probe (&caps);
  make_dirs (&d);
  plan (5 + 12 + 12 + 17);

  /* Controls: the same shell with nothing applied, as the test's own uid
   * (root reads and writes anything; a user owns both paths): each probe
   * escapes, so its "no" under the sandbox is the sandbox's doing. */
  control = run_plain (&d);
  diag_lines ("control", control);
  if (prctl (PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1)
    ok (true, "# SKIP control: the test itself runs with no_new_privs (bwrap, Flatpak)");
  else
    is_str (field (control, "NoNewPrivs"), "0", "control: no_new_privs is not set");
  is_str (field (control, "write-outside"), "yes", "control: the write beside succeeds");
  is_str (field (control, "read-secret"), "yes", "control: the secret is readable");
  is_str (field (control, "write-work"), "yes", "control: the work file is written");
  is_str (field (control, "new-userns"), caps.userns ? "yes" : "no",
          "control: a user namespace can be made exactly when the probe said so");

  if (caps.userns)
    {
      check_mode (&d, "namespaces", true, caps.landlock_abi);
      check_swapped (&d, "namespaces", true, caps.landlock_abi);
    }
  else
    for (int i = 0; i < 12; i++)
      ok (true, "# SKIP namespaces: this kernel or container refuses user namespaces");
  if (caps.landlock_abi > 0 && caps.seccomp)
    {
      check_mode (&d, "fallback", false, caps.landlock_abi);
      check_swapped (&d, "fallback", false, caps.landlock_abi);
    }
  else
    for (int i = 0; i < 12; i++)
      ok (true, "# SKIP fallback: no Landlock here");

  check_host_paths ();
  remove_dirs (&d);
  return done_testing ();
}
