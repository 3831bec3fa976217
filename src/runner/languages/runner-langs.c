/* runner-langs.c: the languages the runner can run and how. */
#include "runner-langs.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <sys/wait.h>

#include "runner-event.h"
#include "runner-base.h"

static const char *const python_ext[] = { "py", NULL };
static const char *const python_bin[] = { "/usr/bin/python3", "/usr/local/bin/python3", NULL };
static const char *const js_ext[] = { "js", "mjs", "cjs", NULL };
static const char *const js_bin[] = { "/usr/bin/node", "/usr/bin/nodejs", "/usr/local/bin/node",
                                      NULL };
static const char *const bash_ext[] = { "sh", "bash", NULL };
static const char *const bash_bin[] = { "/usr/bin/bash", "/bin/bash", NULL };

/* The compile step's whole environment (issue 37), before the compiler's
 * own variables: nothing of the request's env, the runner's environment
 * or an environment directory. Compilers read many variables, and some
 * are flags under another name (CPATH, COMPILER_PATH, GCC_EXEC_PREFIX,
 * GOFLAGS, GOROOT; rustc's option_env! reads any), so no list of safe
 * ones exists: with a fixed list, a cached output is decided by the code
 * and the toolchain alone. HOME too is the run's fresh /tmp, so no
 * configuration file (Go's $HOME/.config/go/env) is found. Part of the
 * cache key. */
const char *const runner_compile_env_base[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "HOME={tmp}",
                                                "TMPDIR={tmp}", "LANG=C.UTF-8", NULL };

/* The compiled languages (issue 27), Debian's toolchains. "-x" names the
 * language, so a snippet named without its extension still compiles. */
static const char *const c_ext[] = { "c", "h", NULL };
static const char *const c_bin[] = { "/usr/bin/gcc", "/usr/local/bin/gcc", NULL };
static const RunnerCompiler c_compiler = {
  .args = (const char *const[]){ "-x", "c", "-std=gnu17", "-O2", "-Wall",
                                 "-fdiagnostics-color=never", "-fno-diagnostics-show-caret", "-o",
                                 "{out}", "{src}", "-lm", NULL },
  .output = "main",
};
static const char *const cpp_ext[] = { "cpp", "cc", "cxx", "hpp", NULL };
static const char *const cpp_bin[] = { "/usr/bin/g++", "/usr/local/bin/g++", NULL };
static const RunnerCompiler cpp_compiler = {
  .args = (const char *const[]){ "-x", "c++", "-std=gnu++17", "-O2", "-Wall",
                                 "-fdiagnostics-color=never", "-fno-diagnostics-show-caret", "-o",
                                 "{out}", "{src}", NULL },
  .output = "main",
};
static const char *const rust_ext[] = { "rs", NULL };
/* Debian's rustc, never a rustup one under a user's home: the run's user
 * (nobody) cannot reach it, nor should a run depend on a home. */
static const char *const rust_bin[] = { "/usr/bin/rustc", NULL };
static const RunnerCompiler rust_compiler = {
  .args = (const char *const[]){ "--edition=2021", "-C", "opt-level=1", "--color=never", "-o",
                                 "{out}", "{src}", NULL },
  .output = "main",
};
static const char *const go_ext[] = { "go", NULL };
static const char *const go_bin[] = { "/usr/bin/go", "/usr/lib/go/bin/go", NULL };
/* The snippet's own paths trimmed by the compiler's -trimpath, not go
 * build's: go build -trimpath changes every package's build ID, so Debian
 * 12's precompiled standard library (GOROOT/pkg) goes stale and each run
 * builds it again from an empty cache (~10 s of CPU for a hello; 0.8 s
 * without). Tracebacks read ./main.go:LINE either way. A source folder
 * the go tool would split or misread (a space, a quote, a rewrite rule's
 * own "=>" or ";") falls back to go build -trimpath. */
static const RunnerCompiler go_compiler = {
  .args = (const char *const[]){ "build", "-gcflags={trim:-trimpath={srcdir}=>.}", "-o", "{out}",
                                 "{src}", NULL },
  .output = "main",
  /* Go's caches in the run's /tmp, never a home; no module lookups, no
   * cgo (its directives would pass flags to gcc), no network, no go env
   * file (GOENV=off: a GOFLAGS there is read when the variable is empty). */
  .env = (const char *const[]){ "GOCACHE={tmp}/.go-cache", "GOPATH={tmp}/.go-path",
                                "GO111MODULE=off", "CGO_ENABLED=0", "GOPROXY=off",
                                "GOTELEMETRY=off", "GOFLAGS=", "GOENV=off", NULL },
};
static const char *const ts_ext[] = { "ts", "mts", "cts", NULL };
static const char *const ts_bin[] = { "/usr/bin/esbuild", NULL };
static const RunnerCompiler ts_compiler = {
  .args = (const char *const[]){ "{src}", "--outfile={out}", "--format=cjs", "--platform=node",
                                 "--sourcemap=inline", "--color=false", "--log-level=warning",
                                 NULL },
  .output = "main.js",
  .runtime = "javascript",
  /* Stack traces through the inline source map: the snippet's lines. */
  .runtime_args = (const char *const[]){ "--enable-source-maps", NULL },
};
static const char *const ruby_ext[] = { "rb", NULL };
static const char *const ruby_bin[] = { "/usr/bin/ruby", "/usr/local/bin/ruby", NULL };

/* R (issue 42): Debian's r-base-core, through the driver every R run
 * gets (runner-r-driver.R): it says where an error happened. */
static const char *const r_ext[] = { "R", "r", NULL };
static const char *const r_bin[] = { "/usr/bin/Rscript", "/usr/local/bin/Rscript", NULL };
/* Java (issue 42): the JDK's source launcher compiles the one file in
 * memory and runs its first class's main (Java 11 and later, so the file
 * name need not match the class). default-java is the JDK Debian's
 * default-jdk-headless points at, kept under /usr. */
static const char *const java_ext[] = { "java", NULL };
static const char *const java_bin[] = { "/usr/lib/jvm/default-java/bin/java", "/usr/bin/java",
                                        NULL };

static const RunnerLanguage builtin[] = {
  { "python", python_ext, python_bin, "main.py", NULL, NULL },
  { "javascript", js_ext, js_bin, "main.js", NULL, NULL },
  { "bash", bash_ext, bash_bin, "main.sh", NULL, NULL },
  { "c", c_ext, c_bin, "main.c", NULL, NULL, .compiler = &c_compiler, .package = "gcc" },
  { "cpp", cpp_ext, cpp_bin, "main.cpp", NULL, NULL, .compiler = &cpp_compiler, .package = "g++" },
  { "rust", rust_ext, rust_bin, "main.rs", NULL, NULL, .compiler = &rust_compiler,
    .package = "rustc" },
  { "go", go_ext, go_bin, "main.go", NULL, NULL, .compiler = &go_compiler, .version_arg = "version",
    .package = "golang-go" },
  { "typescript", ts_ext, ts_bin, "main.ts", NULL, NULL, .compiler = &ts_compiler,
    .package = "esbuild" },
  { "ruby", ruby_ext, ruby_bin, "main.rb", NULL, NULL, .package = "ruby" },
  /* R refuses to start below ~170 open files (its connections). */
  { "r", r_ext, r_bin, "main.R", NULL, NULL, .package = "r-base-core", .open_files = 256 },
  { "java", java_ext, java_bin, "Main.java", NULL, NULL, .package = "default-jdk-headless" },
};

void
runner_langs_init (RunnerLanguages *langs)
{
  langs->n_langs = N_ELEMENTS (builtin);
  langs->langs = xcalloc (langs->n_langs, sizeof *langs->langs);
  for (size_t i = 0; i < langs->n_langs; i++)
    {
      langs->langs[i] = builtin[i];
      for (size_t j = 0; builtin[i].candidates[j] != NULL; j++)
        if (access (builtin[i].candidates[j], X_OK) == 0)
          {
            langs->langs[i].path = xstrdup (builtin[i].candidates[j]);
            break;
          }
    }
}

void
runner_langs_clear (RunnerLanguages *langs)
{
  for (size_t i = 0; i < langs->n_langs; i++)
    {
      free (langs->langs[i].path);
      free (langs->langs[i].version);
    }
  free (langs->langs);
  langs->langs = NULL;
  langs->n_langs = 0;
}

int
runner_langs_override (RunnerLanguages *langs, const char *spec)
{
  const char *eq = strchr (spec, '=');
  cleanup_free char *name = eq ? strndup (spec, (size_t) (eq - spec)) : NULL;
  RunnerLanguage *lang = name ? runner_langs_find (langs, name) : NULL;

  if (lang == NULL || eq[1] != '/' || access (eq + 1, X_OK) != 0)
    return -1;
  free (lang->path);
  lang->path = xstrdup (eq + 1);
  return 0;
}

RunnerLanguage *
runner_langs_find (const RunnerLanguages *langs, const char *name)
{
  for (size_t i = 0; i < langs->n_langs; i++)
    if (strcmp (langs->langs[i].name, name) == 0)
      return &langs->langs[i];
  return NULL;
}

RunnerLanguage *
runner_langs_for_file (const RunnerLanguages *langs, const char *file_name)
{
  const char *dot = strrchr (file_name, '.');

  if (dot == NULL || strchr (dot, '/') != NULL)
    return NULL;
  for (size_t i = 0; i < langs->n_langs; i++)
    for (size_t j = 0; langs->langs[i].extensions[j] != NULL; j++)
      if (strcmp (langs->langs[i].extensions[j], dot + 1) == 0)
        return &langs->langs[i];
  return NULL;
}

/* R reads at most 10,000 bytes of -e, counted after Rscript writes each
 * space as "~+~" and each newline as "~n~"; past that it warns, drops the
 * expression and reads its commands from stdin, so a run's input became
 * code (seen when the driver's comments grew). The driver as -e gets is
 * its code alone: no comment line, no indentation (R needs neither; no
 * string of the driver spans lines), about half of it. */
char *
runner_r_driver_expression (void)
{
  char *out = xmalloc (strlen (runner_r_driver) + 1);
  size_t n = 0;

  for (const char *line = runner_r_driver; *line != '\0';)
    {
      const char *end = strchr (line, '\n');
      size_t len = end != NULL ? (size_t) (end - line) : strlen (line);
      size_t skip = strspn (line, " ");

      if (skip < len && line[skip] != '#')
        {
          memcpy (out + n, line + skip, len - skip);
          n += len - skip;
          out[n++] = '\n';
        }
      line += len + (end != NULL);
    }
  out[n] = '\0';
  return out;
}

char **
runner_lang_argv (const RunnerLanguage *lang, const char *code_path, char *const *args,
                  int64_t memory_mib, bool snippet)
{
  size_t n_args = sp_strv_length (args);
  char **argv = xcalloc (n_args + 8, sizeof *argv);
  size_t n = 0;

  argv[n++] = xstrdup (lang->path);
  if (strcmp (lang->name, "python") == 0)
    {
      /* -u: stream output as it is written, not when a buffer fills;
       * -B: no __pycache__ droppings in the user's directory. */
      argv[n++] = xstrdup ("-u");
      argv[n++] = xstrdup ("-B");
      if (snippet)
        {
          argv[n++] = xstrdup ("-c");
          argv[n++] = xstrdup (RUNNER_PYTHON_BOOTSTRAP);
        }
    }
  else if (strcmp (lang->name, "javascript") == 0 && memory_mib > 0)
    {
      /* Let V8 hit its own heap ceiling below the memory rlimit, so a
       * runaway script ends with "heap out of memory" rather than a
       * random allocation failure inside the engine. */
      int64_t heap = memory_mib * 3 / 4;
      argv[n++] = xasprintf ("--max-old-space-size=%lld", (long long) (heap > 16 ? heap : 16));
    }
  else if (strcmp (lang->name, "r") == 0)
    {
      /* --vanilla: no site or user profile, no saved workspace. */
      argv[n++] = xstrdup ("--vanilla");
      argv[n++] = xstrdup ("-e");
      argv[n++] = runner_r_driver_expression ();
    }
  else if (strcmp (lang->name, "java") == 0)
    {
      /* The serial collector and the first JIT tier: a snippet's run is
       * short, and these start ~2x quicker with fewer threads; no
       * hsperfdata file in /tmp. The heap below the memory rlimit, as
       * for node: "OutOfMemoryError: Java heap space", not a failed
       * allocation inside the JVM. */
      argv[n++] = xstrdup ("-XX:+UseSerialGC");
      argv[n++] = xstrdup ("-XX:TieredStopAtLevel=1");
      argv[n++] = xstrdup ("-XX:-UsePerfData");
      if (memory_mib > 0)
        {
          int64_t heap = memory_mib / 2;
          argv[n++] = xasprintf ("-Xmx%lldm", (long long) (heap > 16 ? heap : 16));
        }
    }
  argv[n++] = xstrdup (code_path);
  for (size_t i = 0; i < n_args; i++)
    argv[n++] = xstrdup (args[i]);
  argv[n] = NULL;
  return argv;
}

/* Reads the first line of `interpreter --version`, with a short timeout so
 * a broken interpreter cannot hold up the handshake. */
static char *
probe_version (const char *path, const char *arg)
{
  int fds[2];
  char buf[256];
  size_t len = 0;

  if (pipe2 (fds, O_CLOEXEC) != 0)
    return NULL;
  pid_t pid = fork ();
  if (pid == 0)
    {
      char *const argv[] = { (char *) path, (char *) arg, NULL };
      char *const envp[] = { (char *) "PATH=/usr/bin:/bin", (char *) "LANG=C.UTF-8", NULL };
      int devnull = open ("/dev/null", O_RDWR | O_CLOEXEC);

      /* The interpreter gets 0, 1 and 2 and nothing else: not the
       * protocol socket nor anything else the runner holds, even an fd
       * someone opened without O_CLOEXEC. */
      if (devnull < 0 || dup2 (devnull, 0) < 0 || dup2 (fds[1], 1) < 0 || dup2 (fds[1], 2) < 0)
        _exit (127);
      if (syscall (SYS_close_range, 3, ~0U, 0) != 0)
        for (long fd = 3, max = sysconf (_SC_OPEN_MAX); fd < max; fd++)
          close ((int) fd);
      execve (path, argv, envp);
      _exit (127);
    }
  close (fds[1]);
  if (pid < 0)
    {
      close (fds[0]);
      return NULL;
    }

  int64_t deadline = now_ns () + 5 * INT64_C (1000000000);
  for (;;)
    {
      struct pollfd pfd = { .fd = fds[0], .events = POLLIN };
      int left = (int) ((deadline - now_ns ()) / 1000000);
      if (left <= 0 || poll (&pfd, 1, left) <= 0)
        break;
      ssize_t n = read (fds[0], buf + len, sizeof buf - 1 - len);
      if (n <= 0)
        break;
      len += (size_t) n;
      if (len == sizeof buf - 1)
        break;
    }
  close (fds[0]);
  kill (pid, SIGKILL);
  waitpid (pid, NULL, 0);

  buf[len] = '\0';
  buf[strcspn (buf, "\n")] = '\0';
  /* "Python 3.11.2", "v20.20.2", "GNU bash, version 5.2.15(1)-release (...)":
   * keep the first token that starts with a digit (after an optional v). */
  for (char *tok = strtok (buf, " ,"); tok != NULL; tok = strtok (NULL, " ,"))
    {
      if (tok[0] == 'v' && tok[1] >= '0' && tok[1] <= '9')
        tok++;
      if (strncmp (tok, "go", 2) == 0 && tok[2] >= '0' && tok[2] <= '9')
        tok += 2;
      if (tok[0] >= '0' && tok[0] <= '9')
        {
          tok[strcspn (tok, "()")] = '\0';
          return xstrdup (tok);
        }
    }
  return NULL;
}

void
runner_langs_probe_versions (RunnerLanguages *langs)
{
  for (size_t i = 0; i < langs->n_langs; i++)
    runner_lang_version (&langs->langs[i]);
}

const char *
runner_lang_version (RunnerLanguage *lang)
{
  if (lang->path != NULL && lang->version == NULL)
    {
      /* "go version go1.19.8 linux/amd64": the token with a digit first
       * after "go" is its number. */
      lang->version = probe_version (lang->path,
                                     lang->version_arg ? lang->version_arg : "--version");
      if (lang->version == NULL)
        lang->version = xstrdup ("unknown");
    }
  return lang->version;
}

/* "-gcflags={trim:-trimpath={srcdir}=>.}": the flag with the source's
 * folder filled in, or go build's own -trimpath where that folder holds a
 * character the go tool would split the flag at (it takes no quotes at
 * the start of a field) or its rewrite rule would misread. */
static char *
fill_trim_arg (const char *arg, const char *src)
{
  const char *open = strstr (arg, "{trim:");
  const char *dir_at = strstr (arg, "{srcdir}");
  const char *slash = strrchr (src, '/');
  size_t dir_len = slash != NULL ? (size_t) (slash - src) : 0;

  if (open == NULL || dir_at == NULL || dir_len == 0 || strpbrk (src, " \t\n'\"\\") != NULL
      || memmem (src, dir_len, "=>", 2) != NULL || memchr (src, ';', dir_len) != NULL)
    return xstrdup ("-trimpath");
  /* Between "{trim:" and the closing "}": prefix, the folder, suffix. */
  const char *body = open + strlen ("{trim:");
  const char *after = dir_at + strlen ("{srcdir}");
  size_t tail = strlen (after);
  if (tail == 0 || after[tail - 1] != '}')
    return xstrdup ("-trimpath");
  return xasprintf ("%.*s%.*s%.*s%.*s", (int) (open - arg), arg, (int) (dir_at - body), body,
                    (int) dir_len, src, (int) (tail - 1), after);
}

/* One compiler argument with {src} or {out} filled in (at its end). */
static char *
fill_arg (const char *arg, const char *src, const char *out)
{
  size_t len = strlen (arg);

  if (strstr (arg, "{trim:") != NULL)
    return fill_trim_arg (arg, src);

  if (len >= 5 && strcmp (arg + len - 5, "{src}") == 0)
    return xasprintf ("%.*s%s", (int) (len - 5), arg, src);
  if (len >= 5 && strcmp (arg + len - 5, "{out}") == 0)
    return xasprintf ("%.*s%s", (int) (len - 5), arg, out);
  return xstrdup (arg);
}

char **
runner_lang_compile_argv (const RunnerLanguage *lang, const char *src, const char *out)
{
  const char *const *args = lang->compiler->args;
  size_t n_args = sp_strv_length ((char *const *) args);
  char **argv = xcalloc (n_args + 2, sizeof *argv);

  argv[0] = xstrdup (lang->path);
  for (size_t i = 0; i < n_args; i++)
    argv[i + 1] = fill_arg (args[i], src, out);
  return argv;
}

char **
runner_lang_compiled_argv (const RunnerLanguage *lang, const char *runtime, const char *out,
                           char *const *args)
{
  const char *const *rargs = lang->compiler->runtime_args;
  size_t n_rargs = runtime && rargs ? sp_strv_length ((char *const *) rargs) : 0;
  size_t n_args = sp_strv_length (args);
  char **argv = xcalloc (n_rargs + n_args + 3, sizeof *argv);
  size_t n = 0;

  if (runtime != NULL)
    argv[n++] = xstrdup (runtime);
  for (size_t i = 0; i < n_rargs; i++)
    argv[n++] = xstrdup (rargs[i]);
  argv[n++] = xstrdup (out);
  for (size_t i = 0; i < n_args; i++)
    argv[n++] = xstrdup (args[i]);
  argv[n] = NULL;
  return argv;
}

void
runner_langs_describe (const RunnerLanguages *langs, SpLanguage **out, size_t *n_out,
                       char ***unavailable)
{
  SpLanguage *list = xcalloc (langs->n_langs + 1, sizeof *list);
  char **missing = xcalloc (langs->n_langs + 1, sizeof *missing);
  size_t n = 0, n_missing = 0;

  for (size_t i = 0; i < langs->n_langs; i++)
    {
      const RunnerLanguage *lang = &langs->langs[i];

      /* Only what can actually run is offered to clients; what cannot is
       * named apart, so a client says why rather than hiding it. */
      if (lang->path == NULL)
        {
          missing[n_missing++] = xstrdup (lang->name);
          continue;
        }
      list[n].name = xstrdup (lang->name);
      /* Both come from outside (--interpreter, the interpreter's own
       * output) and need not be UTF-8; ready must be. */
      list[n].path = runner_escape_name (lang->path, 4096);
      list[n].version = runner_escape_name (lang->version ? lang->version : "unknown", 256);
      list[n].extensions = sp_strv_copy ((char *const *) lang->extensions);
      n++;
    }
  *out = list;
  *n_out = n;
  *unavailable = missing;
}

int
runner_langs_write_python_alias (const char *sandpad_dir)
{
  /* In the order of the runs' PATH (runner-run.c), which the sandbox
   * shows as the host has them: the python3 a run would find. */
  static const char *const python3[] = { "/usr/local/bin/python3", "/usr/bin/python3",
                                         "/bin/python3", NULL };
  cleanup_free char *bin = xasprintf ("%s/bin", sandpad_dir);
  cleanup_free char *link = xasprintf ("%s/bin/python", sandpad_dir);

  for (size_t i = 0; python3[i] != NULL; i++)
    if (access (python3[i], X_OK) == 0)
      {
        if ((mkdir (bin, 0755) != 0 && errno != EEXIST) || symlink (python3[i], link) != 0)
          return -1;
        return 0;
      }
  return 0;
}
