/* runner-install-policy.c: what an install may bring in; see
 * runner-install.h. Every refusal names the rule that refused. */
#include <ctype.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runner-base.h"
#include "runner-install-policy.h"

static int refuse (char *msg, size_t msg_len, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

static int
refuse (char *msg, size_t msg_len, const char *fmt, ...)
{
  va_list args;

  va_start (args, fmt);
  vsnprintf (msg, msg_len, fmt, args);
  va_end (args);
  return -1;
}

char *
runner_install_normalize (const char *name)
{
  char *out = xcalloc (strlen (name) + 1, 1);
  size_t n = 0;

  for (const char *p = name; *p != '\0'; p++)
    {
      if (*p == '-' || *p == '_' || *p == '.')
        {
          if (n > 0 && out[n - 1] == '-')
            continue;
          out[n++] = '-';
        }
      else
        out[n++] = (char) tolower ((unsigned char) *p);
    }
  out[n] = '\0';
  return out;
}

static bool
name_char (char c)
{
  return isalnum ((unsigned char) c) || c == '-' || c == '_' || c == '.';
}

int
runner_install_parse_spec (const char *spec, char **name, char **pin, char *msg, size_t msg_len)
{
  size_t len = 0;

  *name = *pin = NULL;
  /* A spec is a name first: this refuses options (pip reads "-r FILE",
   * "--index-url"), paths, URLs and "name @ url" before pip sees them. */
  while (name_char (spec[len]))
    len++;
  if (len == 0 || !isalnum ((unsigned char) spec[0]) || len > 128)
    return refuse (msg, msg_len,
                   "\"%.100s\" is not a package name (names, name==version and version "
                   "ranges only; no options, paths or URLs)",
                   spec);
  const char *rest = spec + len;
  /* Optional extras, then version specifiers of digits, letters and
   * comparison signs only. */
  if (*rest == '[')
    {
      const char *close = strchr (rest, ']');
      if (close == NULL)
        return refuse (msg, msg_len, "\"%.100s\": unclosed extras", spec);
      for (const char *p = rest + 1; p < close; p++)
        if (!name_char (*p) && *p != ',')
          return refuse (msg, msg_len, "\"%.100s\": bad extras", spec);
      rest = close + 1;
    }
  for (const char *p = rest; *p != '\0'; p++)
    if (!isalnum ((unsigned char) *p) && strchr ("=<>!~.,*+ ", *p) == NULL)
      return refuse (msg, msg_len,
                     "\"%.100s\" is not a package name with a version (only names, "
                     "name==version and version ranges; no options, paths or URLs)",
                     spec);
  cleanup_free char *raw = strndup (spec, len);
  *name = runner_install_normalize (raw);
  if (strncmp (rest, "==", 2) == 0 && rest[2] != '=' && strpbrk (rest + 2, "=<>!~,* ") == NULL
      && rest[2] != '\0')
    *pin = xstrdup (rest + 2);
  return 0;
}

static bool
has_suffix (const char *s, const char *suffix)
{
  size_t a = strlen (s), b = strlen (suffix);

  return a >= b && strcmp (s + a - b, suffix) == 0;
}

int
runner_install_parse_file (const char *file, RunnerInstallFile *out)
{
  cleanup_free char *stem = NULL;

  *out = (RunnerInstallFile){ 0 };
  if (has_suffix (file, ".whl"))
    {
      /* name-version[-build]-python-abi-platform.whl; names use "_" for
       * "-" inside wheel file names, so the first two fields split. */
      stem = strndup (file, strlen (file) - 4);
      char *dash = strchr (stem, '-');
      if (dash == NULL)
        return -1;
      char *end = strchr (dash + 1, '-');
      if (end == NULL)
        return -1;
      int fields = 1;
      for (char *p = end; *p != '\0'; p++)
        fields += *p == '-';
      if (fields < 4 || fields > 5)
        return -1;
      *dash = '\0';
      *end = '\0';
      out->name = runner_install_normalize (stem);
      out->version = xstrdup (dash + 1);
    }
  else if (has_suffix (file, ".tar.gz") || has_suffix (file, ".zip"))
    {
      /* name-version.tar.gz: the version follows the last dash. */
      stem = strndup (file, strlen (file) - (has_suffix (file, ".zip") ? 4 : 7));
      char *dash = strrchr (stem, '-');
      if (dash == NULL || dash == stem || dash[1] == '\0')
        return -1;
      *dash = '\0';
      out->name = runner_install_normalize (stem);
      out->version = xstrdup (dash + 1);
      out->sdist = true;
    }
  else
    return -1;
  out->file = xstrdup (file);
  if (out->name[0] == '\0' || out->version[0] == '\0')
    {
      runner_install_file_clear (out);
      return -1;
    }
  return 0;
}

void
runner_install_file_clear (RunnerInstallFile *file)
{
  free (file->name);
  free (file->version);
  free (file->file);
  *file = (RunnerInstallFile){ 0 };
}

int
runner_install_check_name (const RunnerInstallPolicy *policy, const char *name, char *msg,
                           size_t msg_len)
{
  for (size_t i = 0; policy->block != NULL && policy->block[i] != NULL; i++)
    if (fnmatch (policy->block[i], name, 0) == 0)
      return refuse (msg, msg_len, "%s is refused by the block list (pattern \"%.100s\")", name,
                     policy->block[i]);
  if (policy->allow == NULL || policy->allow[0] == NULL)
    return 0;
  for (size_t i = 0; policy->allow[i] != NULL; i++)
    if (fnmatch (policy->allow[i], name, 0) == 0)
      return 0;
  return refuse (msg, msg_len, "%s is not on the allow list", name);
}

int
runner_install_check_files (const RunnerInstallPolicy *policy, char *const *names,
                            char *const *pins, size_t n, const RunnerInstallFile *files,
                            size_t n_files, char *msg, size_t msg_len)
{
  int64_t cap = policy->max_bytes > 0 ? policy->max_bytes : RUNNER_INSTALL_DEFAULT_MAX_BYTES;
  int64_t total = 0;

  if (n_files == 0)
    return refuse (msg, msg_len, "the download brought no package files");
  for (size_t i = 0; i < n_files; i++)
    {
      const RunnerInstallFile *f = &files[i];
      if (f->sdist && !policy->allow_sdist)
        return refuse (msg, msg_len,
                       "%s %s came only as a source distribution (%s), whose setup.py would "
                       "run code during the install; the policy accepts wheels only (allow "
                       "sdists to install it)",
                       f->name, f->version, f->file);
      if (runner_install_check_name (policy, f->name, msg, msg_len) != 0)
        return -1;
      if (policy->require_pins)
        {
          size_t j = 0;
          while (j < n && strcmp (names[j], f->name) != 0)
            j++;
          if (j == n || pins[j] == NULL)
            return refuse (msg, msg_len,
                           "%s %s is not pinned: the policy requires every package, "
                           "dependencies included, to be requested as name==version",
                           f->name, f->version);
          if (strcmp (pins[j], f->version) != 0)
            return refuse (msg, msg_len, "%s came as %s, not the pinned %s", f->name, f->version,
                           pins[j]);
        }
      total += f->size;
    }
  if (total > cap)
    return refuse (msg, msg_len,
                   "the install is %lld bytes, over the size cap of %lld bytes per install",
                   (long long) total, (long long) cap);
  return 0;
}
