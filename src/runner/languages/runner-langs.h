/* runner-langs.h: the languages the runner can run and how.
 *
 * Interpreters are looked up at fixed absolute paths (or paths given on
 * the runner's command line), never through $PATH: the runner's own
 * environment is not trusted to pick what code runs. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "sp-proto.h"

/* A language whose snippet is compiled first (issue 27): the compile runs
 * in the run's sandbox as a step of its own, writing `output` into the
 * run's build directory; the program is then that file, or, with a
 * runtime, that language's interpreter running it (TypeScript: esbuild
 * strips the types, node runs the result). */
typedef struct
{
  /* Compiler arguments after its path: "{src}" is the snippet, "{out}"
   * the output, also at the end of an argument ("--outfile={out}").
   * Part of the cache key. */
  const char *const *args;
  const char *output;              /* file name in the build directory */
  const char *runtime;             /* NULL: output is the program; else the language that runs it */
  const char *const *runtime_args; /* before the output, for the runtime */
  const char *const *env;          /* added to the compile's environment; a value
                                    * starting "{tmp}" starts with the run's /tmp */
} RunnerCompiler;

/* The compile step's fixed environment before RunnerCompiler.env, in the
 * same "{tmp}" form: all it gets (runner-compile.c). */
extern const char *const runner_compile_env_base[];

typedef struct
{
  const char *name;               /* protocol name: "python" */
  const char *const *extensions;  /* without the dot */
  const char *const *candidates;  /* absolute paths, first found wins */
  const char *default_file;       /* file name for code without a name */
  char *path;                     /* resolved interpreter, NULL: missing */
  char *version;                  /* filled by runner_langs_probe_versions */
  const RunnerCompiler *compiler; /* NULL: interpreted; path is the compiler */
  const char *version_arg;        /* NULL: "--version" ("version" for go) */
  const char *package;            /* Debian's package with the toolchain, for
                                   * the error when it is missing */
  int64_t open_files;             /* the least RLIMIT_NOFILE it starts with; 0: the
                                   * config's */
} RunnerLanguage;

typedef struct
{
  RunnerLanguage *langs;
  size_t n_langs;
} RunnerLanguages;

void runner_langs_init (RunnerLanguages *langs);
void runner_langs_clear (RunnerLanguages *langs);

/* "python=/opt/python3/bin/python3": replaces the lookup for one language.
 * Returns -1 for an unknown language or a path that is not executable. */
int runner_langs_override (RunnerLanguages *langs, const char *spec);

/* Runs each found interpreter's --version (a few ms each, node tens), for
 * those not probed yet: the server calls it when it answers a hello. */
void runner_langs_probe_versions (RunnerLanguages *langs);

RunnerLanguage *runner_langs_find (const RunnerLanguages *langs, const char *name);
RunnerLanguage *runner_langs_for_file (const RunnerLanguages *langs, const char *file_name);

/* The argv that runs code_path with args, NULL-terminated and malloc'd.
 * A snippet (not a driver or an install step's script) runs in Python
 * through the prelude's _sandpad_main: a trailing expression's value is
 * shown, top-level await works (RUNNER_PYTHON_BOOTSTRAP). */
char **runner_lang_argv (const RunnerLanguage *lang, const char *code_path, char *const *args,
                         int64_t memory_mib, bool snippet);

/* R's driver (runner-r-driver.R): Rscript -e's text for a cold run, and
 * a session's program with --session. */
extern const char runner_r_driver[];
/* The driver as a cold run's Rscript -e takes it: its code alone, within
 * R's 10,000 bytes (malloc'd). tests/runner/test-r-driver.c holds it there. */
char *runner_r_driver_expression (void);
/* Java's session driver (runner-java-session.java), the program of a Java
 * session's JVM. */
extern const char runner_java_session_driver[];

/* python3 -c's text for a snippet: the prelude (sitecustomize, imported
 * at startup from the PYTHONPATH every Python run gets) runs it. The
 * warm driver's cold fallback (runner-warm-driver.py) says it too. */
#define RUNNER_PYTHON_BOOTSTRAP "import sitecustomize as s; s._sandpad_main()"

/* Makes sandpad_dir/bin/python, a symlink to the python3 a run's PATH
 * finds first: the run's PATH has sandpad_dir/bin after a venv's bin/, so
 * `python` (what most tools and assistants type) is python3 in every
 * language's runs, without a change to the host. 0 when there is no
 * python3 to point at. */
int runner_langs_write_python_alias (const char *sandpad_dir);

/* The compile step's argv (NULL-terminated, malloc'd): lang->path with
 * the compiler's args, src and out filled in. */
char **runner_lang_compile_argv (const RunnerLanguage *lang, const char *src, const char *out);

/* The argv that runs a compiled snippet's output (out) with args; runtime
 * is the interpreter of lang->compiler->runtime, if it has one. */
char **runner_lang_compiled_argv (const RunnerLanguage *lang, const char *runtime, const char *out,
                                  char *const *args);

/* The version of one language, probed now if it was not yet. */
const char *runner_lang_version (RunnerLanguage *lang);

/* Fills protocol language descriptions for the ready event: what can run
 * in out, the names of those whose toolchain is missing in *unavailable
 * (NULL-terminated, malloc'd). */
void runner_langs_describe (const RunnerLanguages *langs, SpLanguage **out, size_t *n_out,
                            char ***unavailable);
