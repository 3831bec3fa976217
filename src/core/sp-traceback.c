/* sp-traceback.c: an interpreter's error text made to point at the editor.
 *
 * One regular expression per interpreter's way of naming a place; the
 * path in each match is compared by its last component with the snippet's
 * run name, the way SpErrorInfo tells the snippet's frames from others. */
#define G_LOG_DOMAIN "sp-traceback"

#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "sp-traceback.h"
#include "sp-visible-text.h"

/* Each alternative names its place (what becomes the link), its path and
 * its line. Python:  File "PATH", line N
 * bash:    PATH: line N
 * a place: PATH:N or PATH:N:C, as node's stack frames, gcc's, clang's,
 *          rustc's ("--> PATH:N:C"), go's ("./main.go:N:C"), esbuild's
 *          ("main.ts:N:C:", columns from 0), Ruby's ("PATH:N:in ...",
 *          "PATH:N: syntax error"), R's through the runner's driver
 *          ("  at PATH:N in f", "Error: PATH:N:C: unexpected ...") and
 *          Java's ("\tat Main.f(main.java:N)", javac's "PATH:N: error:")
 *          write it; the path ends in an extension
 *          and holds no space, quote or parenthesis
 * a header: "PATH: In function 'main':" and "PATH: At top level:" (gcc,
 *          g++), renamed but not a link: it names no line. */
static const char place_pattern[]
  = "(File \"(?<py>[^\"\\n]+)\", line (?<pyline>[0-9]+))"
    "|^(?<bashplace>(?<bash>/[^\\s:]+): line (?<bashline>[0-9]+))"
    "|(?<srcplace>(?<src>[^\\s():'\"`]*[^\\s():'\"`/.]\\.[A-Za-z0-9+]+):(?<srcline>[0-9]+)"
    "(?::[0-9]+)?)(?![0-9])"
    "|^(?<head>/[^\\s:]+)(?=: (?:In |At top level:))";

static gboolean
names_snippet (const char *path, const char *snippet_name)
{
  g_autofree char *base = g_path_get_basename (path);

  return g_str_equal (base, snippet_name);
}

/* Markup-escaped, and a character that would hide or reorder text shown
 * as its code point (sp-visible-text.h). */
static void
append_escaped (GString *out, const char *text, gssize len)
{
  sp_visible_text_append_markup (out, text, len);
}

/* The named groups of whichever alternative matched; *line is 0 for a
 * place that names no line. */
static gboolean
match_parts (GMatchInfo *match, char **place, char **path, int *line, int *start, int *end)
{
  static const char *const groups[][3] = { { NULL, "py", "pyline" },
                                           { "bashplace", "bash", "bashline" },
                                           { "srcplace", "src", "srcline" },
                                           { "head", "head", NULL } };

  for (guint i = 0; i < G_N_ELEMENTS (groups); i++)
    {
      g_autofree char *p = g_match_info_fetch_named (match, groups[i][1]);
      g_autofree char *l = NULL;

      if (p == NULL || p[0] == '\0')
        continue;
      l = groups[i][2] != NULL ? g_match_info_fetch_named (match, groups[i][2]) : NULL;
      if (groups[i][0] != NULL)
        g_match_info_fetch_named_pos (match, groups[i][0], start, end);
      else
        g_match_info_fetch_pos (match, 1, start, end);
      *place = groups[i][0] != NULL ? g_match_info_fetch_named (match, groups[i][0])
                                    : g_match_info_fetch (match, 1);
      *path = g_steal_pointer (&p);
      *line = l != NULL ? atoi (l) : 0;
      return TRUE;
    }
  return FALSE;
}

/* Each place in text that names the snippet, renamed; as markup with a
 * link, or as plain text. NULL when none does. */
static char *
rename_places (const char *text, const char *snippet_name, const char *display_name,
               gboolean markup)
{
  g_autoptr (GRegex) regex = NULL;
  g_autoptr (GMatchInfo) match = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  gboolean renamed_any = FALSE;
  int done = 0;

  g_return_val_if_fail (text != NULL, NULL);
  if (snippet_name == NULL || snippet_name[0] == '\0')
    return NULL;
  if (display_name == NULL)
    display_name = snippet_name;
  regex = g_regex_new (place_pattern, G_REGEX_MULTILINE | G_REGEX_DUPNAMES, 0, NULL);
  g_assert (regex != NULL);
  g_regex_match (regex, text, 0, &match);
  for (; g_match_info_matches (match); g_match_info_next (match, NULL))
    {
      g_autofree char *place = NULL;
      g_autofree char *path = NULL;
      g_autofree char *shown = NULL;
      g_autoptr (GString) renamed = NULL;
      int line = 0, start = 0, end = 0;

      if (!match_parts (match, &place, &path, &line, &start, &end)
          || !names_snippet (path, snippet_name))
        continue;
      /* The user's name for it, not the sandbox's path. */
      renamed = g_string_new (place);
      g_string_replace (renamed, path, display_name, 1);
      if (markup)
        {
          append_escaped (out, text + done, start - done);
          shown = sp_visible_text_to_markup (renamed->str, -1);
          if (line > 0)
            g_string_append_printf (out, "<a href=\"" SP_TRACEBACK_LINK_PREFIX "%d\">%s</a>", line,
                                    shown);
          else
            g_string_append (out, shown);
        }
      else
        {
          g_string_append_len (out, text + done, start - done);
          g_string_append (out, renamed->str);
        }
      done = end;
      renamed_any = TRUE;
    }
  if (!renamed_any)
    return NULL;
  if (markup)
    append_escaped (out, text + done, -1);
  else
    g_string_append (out, text + done);
  return g_string_free (g_steal_pointer (&out), FALSE);
}

char *
sp_traceback_to_markup (const char *text, const char *snippet_name, const char *display_name)
{
  return rename_places (text, snippet_name, display_name, TRUE);
}

char *
sp_traceback_rename (const char *text, const char *snippet_name, const char *display_name)
{
  char *renamed;

  g_return_val_if_fail (text != NULL, NULL);
  renamed = rename_places (text, snippet_name, display_name, FALSE);
  return renamed != NULL ? renamed : g_strdup (text);
}

int
sp_traceback_link_line (const char *uri)
{
  const char *digits;
  char *end = NULL;
  long line;

  if (uri == NULL || !g_str_has_prefix (uri, SP_TRACEBACK_LINK_PREFIX))
    return 0;
  digits = uri + strlen (SP_TRACEBACK_LINK_PREFIX);
  line = strtol (digits, &end, 10);
  if (end == digits || *end != '\0' || line < 1 || line > G_MAXINT)
    return 0;
  return (int) line;
}
