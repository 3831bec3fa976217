/* mcp-command.c: execute_command's filters.
 *
 * These are policy, not the boundary. A shell command can be spelt in
 * endless ways (eval, base64, variables, another interpreter), so no
 * pattern list can decide what it will do; the kernel sandbox that every
 * run gets decides what it *can* do. The filters exist to refuse the
 * obvious mistakes early, with a reason a model can act on, and to let
 * whoever configured the server narrow what it is asked to run.
 *
 * Order: the built-in check (the dangerous patterns of ../shared/seeds/004,
 * after AG2's sanitizer), then --block-command, then --allow-command.
 * Configured patterns are POSIX extended regexes matched against the
 * whole command. */
#include <stdio.h>
#include <string.h>

#include "mcp-server.h"

/* Where a command word may start: the beginning, or after a separator. */
#define WORD_START "(^|[;&|(`{!]|\\$\\(|[[:space:]])"
#define WORD_END "([[:space:]]|[;&|)`}]|$)"

static const struct
{
  const char *pattern;
  const char *reason;
} builtin[] = {
  { WORD_START
    "rm[[:space:]]+(-[[:alnum:]-]+[[:space:]]+)*(/|/\\*|~|~/|\\$HOME|\\$\\{HOME\\})" WORD_END,
    "rm of / or the home directory deletes everything" },
  { WORD_START "sudo" WORD_END, "sudo escalates privileges" },
  { WORD_START "su" WORD_END, "su switches to another user" },
  { WORD_START "dd[[:space:]]([^;&|]*[[:space:]])?of=/dev/", "dd writes raw data to a device" },
  { ":[[:space:]]*\\([[:space:]]*\\)[[:space:]]*\\{[^}]*:[[:space:]]*\\|[[:space:]]*:",
    "a fork bomb exhausts the process table" },
  { ">[[:space:]]*/dev/(sd|hd|vd|xvd|nvme|mmcblk|loop|dm-|md|mem|kmem|port|disk/|mapper/)",
    "writing to a block device or to memory destroys data" },
  { WORD_START "mv[[:space:]][^;&|]*[[:space:]]/dev/null" WORD_END,
    "moving files to /dev/null destroys them" },
  { WORD_START "(chmod|chown|chgrp)[[:space:]]([^;&|]*[[:space:]])?"
               "/(etc|usr|bin|sbin|lib|lib32|lib64|boot|dev|proc|sys|var|root|home)?" WORD_END,
    "changing permissions or owners of system paths" },
  { WORD_START "(chmod|chown|chgrp)[[:space:]]([^;&|]*[[:space:]])?"
               "/(etc|usr|bin|sbin|lib|lib32|lib64|boot|dev|proc|sys|var|root|home)/",
    "changing permissions or owners of system paths" },
  { WORD_START "mkfs(\\.[[:alnum:]]+)?" WORD_END, "mkfs formats a filesystem" },
};

int
mcp_filters_init (McpFilters *filters)
{
  filters->n_builtin = N_ELEMENTS (builtin);
  filters->builtin = xcalloc (filters->n_builtin, sizeof *filters->builtin);
  for (size_t i = 0; i < filters->n_builtin; i++)
    if (regcomp (&filters->builtin[i], builtin[i].pattern, REG_EXTENDED | REG_NOSUB) != 0)
      abort (); /* a typo in the table above */
  return 0;
}

int
mcp_filters_add (McpFilters *filters, bool allow, const char *pattern, char *error,
                 size_t error_len)
{
  regex_t **list = allow ? &filters->allow : &filters->block;
  size_t *n = allow ? &filters->n_allow : &filters->n_block;
  /* The whole command must match, so "pytest.*" cannot be satisfied by
   * "rm -rf ~; pytest" (a prefix) nor by "x; pytest" (a search). */
  cleanup_free char *anchored = xasprintf ("^(%s)$", pattern);

  *list = xrealloc (*list, (*n + 1) * sizeof **list);
  int rc = regcomp (&(*list)[*n], anchored, REG_EXTENDED | REG_NOSUB);
  if (rc != 0)
    {
      regerror (rc, &(*list)[*n], error, error_len);
      return -1;
    }
  (*n)++;
  return 0;
}

void
mcp_filters_clear (McpFilters *filters)
{
  for (size_t i = 0; i < filters->n_builtin; i++)
    regfree (&filters->builtin[i]);
  for (size_t i = 0; i < filters->n_block; i++)
    regfree (&filters->block[i]);
  for (size_t i = 0; i < filters->n_allow; i++)
    regfree (&filters->allow[i]);
  free (filters->builtin);
  free (filters->block);
  free (filters->allow);
  *filters = (McpFilters){ 0 };
}

char *
mcp_filters_check (const McpFilters *filters, const char *command)
{
  for (size_t i = 0; i < filters->n_builtin; i++)
    if (regexec (&filters->builtin[i], command, 0, NULL, 0) == 0)
      return xasprintf ("refused by the built-in check: %s", builtin[i].reason);
  for (size_t i = 0; i < filters->n_block; i++)
    if (regexec (&filters->block[i], command, 0, NULL, 0) == 0)
      return xasprintf ("refused: it matches this server's --block-command pattern %zu", i + 1);
  if (filters->n_allow == 0)
    return NULL;
  for (size_t i = 0; i < filters->n_allow; i++)
    if (regexec (&filters->allow[i], command, 0, NULL, 0) == 0)
      return NULL;
  return xstrdup ("refused: it matches none of this server's --allow-command patterns");
}
