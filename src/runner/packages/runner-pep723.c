/* runner-pep723.c: a Python snippet's inline script metadata (PEP 723).
 *
 *   # /// script
 *   # requires-python = ">=3.11"
 *   # dependencies = [
 *   #   "tinypkg==1.0",
 *   # ]
 *   # ///
 *
 * The block is TOML, but only two top-level keys mean anything here:
 * `dependencies`, an array of strings, and `requires-python`, a string.
 * So this reads a strict subset: those two values exactly (basic and
 * literal strings, arrays over several lines, comments, trailing commas),
 * any other key's value skipped as a whole (a string, an array, an inline
 * table), tables ([tool.x]) ignored to the end of the block. Anything it
 * cannot read is an error with its line, so a typo never installs half a
 * list. What the strings say is the install path's to check (requirement
 * specs only, the policy), not this file's. */
#include <ctype.h>
#include <dirent.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "runner-base.h"
#include "runner-install.h"
#include "runner-pep723.h"
#include "runner-venv.h"
#include "sp-proto.h"

typedef struct
{
  const char *p;    /* the block's TOML text, '#' prefixes removed */
  int line;         /* in the snippet, for errors */
  const int *lines; /* snippet line of each TOML line */
  int toml_line;
  char *msg;
  size_t msg_len;
} Reader;

static int __attribute__ ((format (printf, 2, 3))) fail (Reader *r, const char *fmt, ...)
{
  char what[256];
  va_list args;

  va_start (args, fmt);
  vsnprintf (what, sizeof what, fmt, args);
  va_end (args);
  snprintf (r->msg, r->msg_len, "the script's metadata (PEP 723), line %d: %s",
            r->lines[r->toml_line], what);
  return -1;
}

static void
newline (Reader *r)
{
  r->p++;
  r->toml_line++;
}

/* Spaces, and with multiline newlines and comments too. */
static void
skip_space (Reader *r, bool multiline)
{
  for (;;)
    {
      if (*r->p == ' ' || *r->p == '\t')
        r->p++;
      else if (*r->p == '#')
        r->p += strcspn (r->p, "\n");
      else if (multiline && *r->p == '\n')
        newline (r);
      else
        return;
    }
}

/* A basic ("...") or literal ('...') one-line string into out (may be
 * NULL to skip it). */
static int
read_string (Reader *r, Buf *out)
{
  char quote = *r->p++;

  if (quote == *r->p && quote == r->p[1])
    return fail (r, "multi-line strings are not read here");
  for (;;)
    {
      char c = *r->p;
      if (c == '\0' || c == '\n')
        return fail (r, "a string is not closed on its line");
      r->p++;
      if (c == quote)
        break;
      if (quote == '"' && c == '\\')
        {
          static const char from[] = "btnfr\"\\", to[] = "\b\t\n\f\r\"\\";
          const char *k = *r->p != '\0' ? strchr (from, *r->p) : NULL;
          if (k == NULL)
            return fail (r, "an escape other than \\b \\t \\n \\f \\r \\\" \\\\ in a string");
          c = to[k - from];
          r->p++;
        }
      if ((unsigned char) c < 0x20 && c != '\t')
        return fail (r, "a control character in a string");
      if (out != NULL)
        buf_append (out, &c, 1);
    }
  if (out != NULL)
    buf_append (out, "", 1);
  return 0;
}

static int skip_value (Reader *r);

/* An array; with strings non-NULL its items must be strings, collected. */
static int
read_array (Reader *r, char ***strings)
{
  size_t n = 0;

  r->p++; /* '[' */
  for (;;)
    {
      skip_space (r, true);
      if (*r->p == ']')
        {
          r->p++;
          return 0;
        }
      if (*r->p == '\0')
        return fail (r, "an array is not closed");
      if (strings != NULL)
        {
          if (*r->p != '"' && *r->p != '\'')
            return fail (r, "\"dependencies\" must be an array of strings");
          Buf item = { 0 };
          if (read_string (r, &item) != 0)
            {
              buf_clear (&item);
              return -1;
            }
          *strings = xrealloc (*strings, (n + 2) * sizeof **strings);
          (*strings)[n++] = item.data;
          (*strings)[n] = NULL;
        }
      else if (skip_value (r) != 0)
        return -1;
      skip_space (r, true);
      if (*r->p == ',')
        r->p++;
      else if (*r->p == '\0')
        return fail (r, "an array is not closed");
      else if (*r->p != ']')
        return fail (r, "expected \",\" or \"]\" in an array");
    }
}

/* Any other value, read only to find its end. */
static int
skip_value (Reader *r)
{
  if (*r->p == '"' || *r->p == '\'')
    {
      if (r->p[1] == *r->p && r->p[2] == *r->p)
        {
          const char quote[4] = { *r->p, *r->p, *r->p, '\0' };
          const char *end = strstr (r->p + 3, quote);
          if (end == NULL)
            return fail (r, "a multi-line string is not closed");
          for (; r->p < end + 3; r->p++)
            if (*r->p == '\n')
              r->toml_line++;
          return 0;
        }
      return read_string (r, NULL);
    }
  if (*r->p == '[')
    return read_array (r, NULL);
  if (*r->p == '{')
    {
      /* An inline table is one line in TOML 1.0. */
      int depth = 0;
      do
        {
          if (*r->p == '"' || *r->p == '\'')
            {
              if (read_string (r, NULL) != 0)
                return -1;
              continue;
            }
          if (*r->p == '\0' || *r->p == '\n')
            return fail (r, "an inline table is not closed on its line");
          depth += *r->p == '{' ? 1 : *r->p == '}' ? -1 : 0;
          r->p++;
        }
      while (depth > 0);
      return 0;
    }
  /* Numbers, booleans, dates: a bare run of characters. */
  size_t n = strcspn (r->p, " \t#,]}\n");
  if (n == 0)
    return fail (r, "a key without a value");
  r->p += n;
  return 0;
}

void
runner_pep723_clear (RunnerPep723 *meta)
{
  sp_strv_free (meta->dependencies);
  free (meta->requires_python);
  *meta = (RunnerPep723){ 0 };
}

/* Finds the one "# /// script" block; its TOML (each line's "# " or "#"
 * removed) into toml, the snippet line of each of its lines into lines.
 * 0 without a block, 1 with one, -1 malformed. */
static int
find_block (const char *code, Buf *toml, int **lines, int *first, char *msg, size_t msg_len)
{
  int line_no = 0, n = 0, found = 0;
  bool inside = false;

  for (const char *line = code; *line != '\0';)
    {
      size_t len = strcspn (line, "\n");
      line_no++;
      if (!inside && len == 12 && strncmp (line, "# /// script", 12) == 0)
        {
          if (found++)
            {
              snprintf (msg, msg_len,
                        "the script's metadata (PEP 723), line %d: a second "
                        "\"# /// script\" block",
                        line_no);
              return -1;
            }
          inside = true;
          *first = line_no;
        }
      else if (inside && len == 5 && strncmp (line, "# ///", 5) == 0)
        inside = false;
      else if (inside)
        {
          if (len == 0 || line[0] != '#' || (len > 1 && line[1] != ' '))
            {
              snprintf (msg, msg_len,
                        "the script's metadata (PEP 723), line %d: every line "
                        "of the block starts with \"# \" (or is \"#\"), and it ends with "
                        "\"# ///\"",
                        line_no);
              return -1;
            }
          size_t skip = len > 1 ? 2 : 1;
          buf_append (toml, line + skip, len - skip);
          buf_append (toml, "\n", 1);
          *lines = xrealloc (*lines, (size_t) (n + 2) * sizeof **lines);
          (*lines)[n++] = line_no;
          (*lines)[n] = line_no;
        }
      line += len + (line[len] == '\n');
    }
  if (inside)
    {
      snprintf (msg, msg_len,
                "the script's metadata (PEP 723), line %d: the block is not "
                "closed by a line \"# ///\"",
                *first);
      return -1;
    }
  buf_append (toml, "", 1);
  return found;
}

int
runner_pep723_parse (const char *code, RunnerPep723 *meta, char *msg, size_t msg_len)
{
  Buf toml = { 0 };
  int *lines = NULL;
  int first = 0;
  int rc = find_block (code, &toml, &lines, &first, msg, msg_len);

  *meta = (RunnerPep723){ 0 };
  if (rc <= 0)
    {
      buf_clear (&toml);
      free (lines);
      return rc;
    }
  if (lines == NULL)
    {
      lines = xcalloc (2, sizeof *lines);
      lines[0] = lines[1] = first;
    }
  Reader r = { .p = toml.data, .lines = lines, .msg = msg, .msg_len = msg_len };
  bool in_table = false, seen_deps = false;
  rc = 0;
  while (rc == 0 && *r.p != '\0')
    {
      skip_space (&r, false);
      if (*r.p == '\n')
        {
          newline (&r);
          continue;
        }
      if (*r.p == '\0')
        break;
      if (*r.p == '[')
        {
          /* A table: nothing in it is the script's dependencies. */
          in_table = true;
          r.p += strcspn (r.p, "\n");
          continue;
        }
      const char *key = r.p;
      size_t key_len;
      if (*r.p == '"' || *r.p == '\'')
        {
          if (read_string (&r, NULL) != 0)
            {
              rc = -1;
              break;
            }
          key_len = (size_t) (r.p - key);
        }
      else
        {
          while (isalnum ((unsigned char) *r.p) || *r.p == '-' || *r.p == '_' || *r.p == '.')
            r.p++;
          key_len = (size_t) (r.p - key);
        }
      skip_space (&r, false);
      if (key_len == 0 || *r.p != '=')
        {
          rc = fail (&r, "expected a line \"key = value\"");
          break;
        }
      r.p++;
      skip_space (&r, false);
      bool is_deps = !in_table && key_len == 12 && strncmp (key, "dependencies", 12) == 0;
      bool is_python = !in_table && key_len == 15 && strncmp (key, "requires-python", 15) == 0;
      if ((is_deps && seen_deps) || (is_python && meta->requires_python != NULL))
        {
          rc = fail (&r, "\"%.*s\" is given twice", (int) key_len, key);
          break;
        }
      if (is_deps)
        {
          seen_deps = true;
          if (*r.p != '[')
            rc = fail (&r, "\"dependencies\" must be an array of strings");
          else
            {
              meta->dependencies = xcalloc (1, sizeof *meta->dependencies);
              rc = read_array (&r, &meta->dependencies);
            }
        }
      else if (is_python)
        {
          Buf value = { 0 };
          if (*r.p != '"' && *r.p != '\'')
            rc = fail (&r, "\"requires-python\" must be a string");
          else if ((rc = read_string (&r, &value)) == 0)
            meta->requires_python = steal_pointer (&value.data);
          buf_clear (&value);
        }
      else
        rc = skip_value (&r);
      if (rc != 0)
        break;
      skip_space (&r, false);
      if (*r.p != '\n' && *r.p != '\0')
        rc = fail (&r, "something after the value on its line");
    }
  buf_clear (&toml);
  free (lines);
  if (rc != 0)
    {
      runner_pep723_clear (meta);
      return -1;
    }
  return 1;
}

/* ---- requires-python ------------------------------------------------- */

/* A version "3.11.4" or "3.11.*" into up to 3 numbers; n the count given,
 * *wild when it ends in ".*". */
static bool
parse_version (const char *s, size_t len, long v[3], int *n, bool *wild)
{
  *n = 0;
  *wild = false;
  v[0] = v[1] = v[2] = 0;
  for (size_t i = 0; i < len;)
    {
      if (*n == 3)
        return false;
      if (s[i] == '*' && i + 1 == len && *n > 0)
        {
          *wild = true;
          return true;
        }
      if (!isdigit ((unsigned char) s[i]))
        return false;
      long x = 0;
      while (i < len && isdigit ((unsigned char) s[i]) && x < 100000)
        x = x * 10 + (s[i++] - '0');
      v[(*n)++] = x;
      if (i < len && s[i++] != '.')
        return false;
      if (i == len && s[len - 1] == '.')
        return false;
    }
  return *n > 0;
}

static int
compare (const long a[3], const long b[3], int n)
{
  for (int i = 0; i < n; i++)
    if (a[i] != b[i])
      return a[i] < b[i] ? -1 : 1;
  return 0;
}

int
runner_pep723_python_ok (const char *spec, const long have[3], char *msg, size_t msg_len)
{
  for (const char *clause = spec; *clause != '\0';)
    {
      size_t len = strcspn (clause, ",");
      const char *p = clause, *end = clause + len;
      while (p < end && isspace ((unsigned char) *p))
        p++;
      while (end > p && isspace ((unsigned char) end[-1]))
        end--;
      static const char *const ops[] = { "~=", "==", "!=", "<=", ">=", "<", ">", NULL };
      const char *op = NULL;
      for (size_t k = 0; ops[k] != NULL && op == NULL; k++)
        if (strncmp (p, ops[k], strlen (ops[k])) == 0)
          op = ops[k];
      long want[3];
      int n;
      bool wild;
      const char *ver = op ? p + strlen (op) : p;
      while (ver < end && isspace ((unsigned char) *ver))
        ver++;
      if (op == NULL || !parse_version (ver, (size_t) (end - ver), want, &n, &wild)
          || (wild && strcmp (op, "==") != 0 && strcmp (op, "!=") != 0)
          || (strcmp (op, "~=") == 0 && n < 2))
        {
          snprintf (msg, msg_len,
                    "the script's metadata (PEP 723): requires-python \"%.100s\" "
                    "is not a version specifier Sandpad reads (OP VERSION, comma-separated)",
                    spec);
          return -1;
        }
      int c = compare (have, want, wild ? n : 3);
      bool met = strcmp (op, "==") == 0   ? c == 0
                 : strcmp (op, "!=") == 0 ? c != 0
                 : strcmp (op, "<=") == 0 ? c <= 0
                 : strcmp (op, ">=") == 0 ? c >= 0
                 : strcmp (op, "<") == 0  ? c < 0
                 : strcmp (op, ">") == 0  ? c > 0
                                          : c >= 0 && compare (have, want, n - 1) == 0;
      if (!met)
        {
          snprintf (msg, msg_len,
                    "the script's metadata (PEP 723): requires-python \"%.100s\" "
                    "is not met by the environment's Python %ld.%ld.%ld; nothing was installed",
                    spec, have[0], have[1], have[2]);
          return -1;
        }
      clause += len + (clause[len] == ',');
    }
  return 0;
}

/* ---- what a front end does with it ----------------------------------- */

/* The environment's Python version, from its pyvenv.cfg ("version = 3.13.5").
 * Read by name: the number only chooses an error message, the venv itself
 * is checked by the engine (runner-venv.c) before anything runs in it. */
static bool
environment_version (const char *environment, long have[3])
{
  static const char *const keys[] = { "version", "version_info" };

  for (size_t i = 0; i < N_ELEMENTS (keys); i++)
    {
      cleanup_free char *value = runner_venv_cfg_get (environment, keys[i]);
      if (value != NULL && sscanf (value, "%ld.%ld.%ld", &have[0], &have[1], &have[2]) == 3)
        return true;
    }
  return false;
}

RunnerPep723Verdict
runner_pep723_declared (const char *code, const char *environment, char ***deps, char *msg,
                        size_t msg_len)
{
  RunnerPep723 meta;
  long have[3];

  *deps = NULL;
  int found = runner_pep723_parse (code, &meta, msg, msg_len);
  if (found < 0)
    {
      size_t len = strlen (msg);
      snprintf (msg + len, msg_len - len, "; nothing was installed or run");
      return RUNNER_PEP723_INVALID;
    }
  if (found == 0)
    return RUNNER_PEP723_NONE;
  if (meta.requires_python != NULL && environment != NULL && environment_version (environment, have)
      && runner_pep723_python_ok (meta.requires_python, have, msg, msg_len) != 0)
    {
      runner_pep723_clear (&meta);
      return RUNNER_PEP723_INVALID;
    }
  if (meta.dependencies == NULL || meta.dependencies[0] == NULL)
    {
      runner_pep723_clear (&meta);
      return RUNNER_PEP723_NONE;
    }
  if (environment == NULL)
    {
      *deps = steal_pointer (&meta.dependencies);
      runner_pep723_clear (&meta);
      return RUNNER_PEP723_NO_ENVIRONMENT;
    }
  /* Only what the venv lacks goes to the install path: a script run again
   * starts no pip at all, so it costs nothing and needs no package source
   * (an offline index, a wheelhouse gone) once its packages are in. */
  char **missing = runner_pep723_missing (environment, meta.dependencies);
  runner_pep723_clear (&meta);
  if (missing[0] == NULL)
    {
      free (missing);
      return RUNNER_PEP723_NONE;
    }
  *deps = missing;
  return RUNNER_PEP723_INSTALL;
}

/* ---- what the environment already has -------------------------------- */

typedef struct
{
  char **names;    /* normalized */
  char **versions; /* same index */
  size_t n;
} Installed;

static bool
has_suffix (const char *s, const char *suffix)
{
  size_t a = strlen (s), b = strlen (suffix);

  return a >= b && strcmp (s + a - b, suffix) == 0;
}

/* "Foo_Bar-1.0.dist-info", "numpy-1.24.2.egg-info", "six-1.16.0-py3.11.egg-info":
 * the name up to the first "-", the version up to the next "-" or the
 * suffix (wheels write "-" inside a name as "_"). */
static void
read_site (const char *dir, Installed *have)
{
  DIR *d = opendir (dir);
  struct dirent *e;

  if (d == NULL)
    return;
  while ((e = readdir (d)) != NULL)
    {
      size_t len = strlen (e->d_name);
      if (has_suffix (e->d_name, ".dist-info"))
        len -= strlen (".dist-info");
      else if (has_suffix (e->d_name, ".egg-info"))
        len -= strlen (".egg-info");
      else
        continue;
      const char *dash = memchr (e->d_name, '-', len);
      if (dash == NULL || dash == e->d_name)
        continue;
      cleanup_free char *raw = strndup (e->d_name, (size_t) (dash - e->d_name));
      size_t vlen = strcspn (dash + 1, "-");
      if (dash + 1 + vlen > e->d_name + len)
        vlen = (size_t) (e->d_name + len - (dash + 1));
      have->names = xrealloc (have->names, (have->n + 1) * sizeof *have->names);
      have->versions = xrealloc (have->versions, (have->n + 1) * sizeof *have->versions);
      have->names[have->n] = runner_install_normalize (raw);
      have->versions[have->n] = strndup (dash + 1, vlen);
      have->n++;
    }
  closedir (d);
}

static void
read_sites (const char *pattern, Installed *have)
{
  glob_t g;

  if (glob (pattern, GLOB_NOSORT, NULL, &g) != 0)
    return;
  for (size_t i = 0; i < g.gl_pathc; i++)
    read_site (g.gl_pathv[i], have);
  globfree (&g);
}

/* pyvenv.cfg's include-system-site-packages: the run then imports the
 * system's packages too (numpy from Debian, say). */
static bool
includes_system_site (const char *environment)
{
  cleanup_free char *value = runner_venv_cfg_get (environment, "include-system-site-packages");

  return value != NULL && strcmp (value, "true") == 0;
}

char **
runner_pep723_missing (const char *environment, char *const *deps)
{
  Installed have = { 0 };
  char **missing = xcalloc (1, sizeof *missing);
  size_t n = 0;

  {
    cleanup_free char *venv = xasprintf ("%s/lib/python3*/site-packages", environment);
    read_sites (venv, &have);
  }
  if (includes_system_site (environment))
    {
      read_site ("/usr/lib/python3/dist-packages", &have);
      read_sites ("/usr/local/lib/python3*/dist-packages", &have);
    }
  for (size_t i = 0; deps != NULL && deps[i] != NULL; i++)
    {
      char *name = NULL, *pin = NULL;
      char msg[256];
      bool found = false;

      /* A spec the install path refuses stays: it says why, not this. */
      if (runner_install_parse_spec (deps[i], &name, &pin, msg, sizeof msg) == 0)
        for (size_t j = 0; j < have.n && !found; j++)
          found = strcmp (have.names[j], name) == 0
                  && (pin == NULL || strcmp (have.versions[j], pin) == 0);
      free (name);
      free (pin);
      if (found)
        continue;
      missing = xrealloc (missing, (n + 2) * sizeof *missing);
      missing[n++] = xstrdup (deps[i]);
      missing[n] = NULL;
    }
  for (size_t j = 0; j < have.n; j++)
    {
      free (have.names[j]);
      free (have.versions[j]);
    }
  free (have.names);
  free (have.versions);
  return missing;
}
