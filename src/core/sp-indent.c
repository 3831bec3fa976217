/* sp-indent.c: where the next line starts, from the text before it.
 *
 * One pass over the text finds the brackets still open, skipping strings
 * and comments as each language writes them (Python's triple quotes and
 * '#', JavaScript's quotes, template strings and comments, Bash's quotes
 * and '#' at the start of a word), and where the last statement began, so
 * a line after a call spread over several lines goes back to the call's
 * indent. The language's rules then look at that statement: its last
 * character or word opens a block, or its first word ends one. It is a
 * reading of the text, not a parser: an odd construct gets the previous
 * line's indent, which is what a plain editor does. */
#include "config.h"

#include "sp-indent.h"

#include <string.h>

SpIndentLanguage
sp_indent_language_from_id (const char *id)
{
  if (id == NULL)
    return SP_INDENT_OTHER;
  if (g_str_has_prefix (id, "python"))
    return SP_INDENT_PYTHON;
  if (g_str_equal (id, "js") || g_str_equal (id, "javascript") || g_str_equal (id, "typescript"))
    return SP_INDENT_JAVASCRIPT;
  if (g_str_equal (id, "sh") || g_str_equal (id, "bash"))
    return SP_INDENT_BASH;
  return SP_INDENT_OTHER;
}

typedef struct
{
  char ch;          /* '(', '[' or '{' */
  const char *line; /* start of the line it is on */
  guint column;     /* its column */
} Open;

typedef struct
{
  GArray *open;          /* of Open: the brackets still open, innermost last */
  const char *last_line; /* start of the text's last line */
  const char *stmt_line; /* start of the line the last statement began on */
  const char *code_end;  /* the last line's end without a trailing comment */
} Scan;

static guint
column_of (const char *line, const char *p, guint width)
{
  guint col = 0;

  for (const char *q = line; q < p; q = g_utf8_next_char (q))
    col = *q == '\t' ? (col / width + 1) * width : col + 1;
  return col;
}

static guint
indent_of (const char *line, guint width)
{
  const char *p = line;

  while (*p == ' ' || *p == '\t')
    p++;
  return column_of (line, p, width);
}

static char
closer_of (char open)
{
  return open == '(' ? ')' : open == '[' ? ']' : '}';
}

/* Past a string that starts at p (a quote), or to the text's end. */
static const char *
skip_string (SpIndentLanguage language, const char *p)
{
  char quote = *p;
  gboolean triple = language == SP_INDENT_PYTHON && p[1] == quote && p[2] == quote;

  p += triple ? 3 : 1;
  for (; *p != '\0'; p++)
    {
      /* Backslash escapes, except in Bash's single quotes. */
      if (*p == '\\' && !(language == SP_INDENT_BASH && quote == '\''))
        {
          if (p[1] != '\0')
            p++;
          continue;
        }
      if (*p == '\n' && !triple && quote != '`' && language != SP_INDENT_BASH)
        return p; /* an unclosed one-line string ends with its line */
      if (*p == quote && (!triple || (p[1] == quote && p[2] == quote)))
        return p + (triple ? 3 : 1);
    }
  return p;
}

static gboolean
starts_comment (SpIndentLanguage language, const char *text, const char *p)
{
  if (language == SP_INDENT_JAVASCRIPT)
    return p[0] == '/' && p[1] == '/';
  if (*p != '#')
    return FALSE;
  /* Bash: only at the start of a word ($# and a#b are not comments). */
  return language != SP_INDENT_BASH || p == text || p[-1] == ' ' || p[-1] == '\t' || p[-1] == '\n'
         || p[-1] == ';';
}

static void
scan (SpIndentLanguage language, const char *text, guint width, Scan *s)
{
  const char *line = text;

  s->open = g_array_new (FALSE, FALSE, sizeof (Open));
  s->last_line = s->stmt_line = text;
  s->code_end = NULL;
  for (const char *p = text; *p != '\0';)
    {
      if (*p == '\n')
        {
          line = p + 1;
          s->last_line = line;
          s->code_end = NULL;
          if (s->open->len == 0)
            s->stmt_line = line;
          p++;
        }
      else if (*p == '"' || *p == '\'' || (*p == '`' && language == SP_INDENT_JAVASCRIPT))
        {
          const char *end = skip_string (language, p);
          /* A string over several lines: the statement goes on. */
          for (const char *q = p; q < end; q++)
            if (*q == '\n')
              s->last_line = line = q + 1;
          p = end;
        }
      else if (starts_comment (language, text, p))
        {
          s->code_end = p;
          while (*p != '\0' && *p != '\n')
            p++;
        }
      else if (language == SP_INDENT_JAVASCRIPT && p[0] == '/' && p[1] == '*')
        {
          const char *end = strstr (p + 2, "*/");
          end = end != NULL ? end + 2 : p + strlen (p);
          for (const char *q = p; q < end; q++)
            if (*q == '\n')
              s->last_line = line = q + 1;
          p = end;
        }
      else
        {
          if (*p == '(' || *p == '[' || *p == '{')
            {
              Open o = { *p, line, column_of (line, p, width) };
              g_array_append_val (s->open, o);
            }
          else if ((*p == ')' || *p == ']' || *p == '}') && s->open->len > 0
                   && closer_of (g_array_index (s->open, Open, s->open->len - 1).ch) == *p)
            g_array_set_size (s->open, s->open->len - 1);
          p++;
        }
    }
  if (s->code_end == NULL)
    s->code_end = s->last_line + strlen (s->last_line);
}

static char *
make_indent (guint columns, guint width, gboolean spaces)
{
  GString *out = g_string_new (NULL);

  if (!spaces && width > 0)
    for (; columns >= width; columns -= width)
      g_string_append_c (out, '\t');
  for (; columns > 0; columns--)
    g_string_append_c (out, ' ');
  return g_string_free (out, FALSE);
}

/* The statement's last word (letters, digits, '_'), or "". */
static char *
last_word (const char *start, const char *end)
{
  const char *p = end;

  while (p > start && g_ascii_isspace (p[-1]))
    p--;
  if (p > start && p[-1] == ';')
    p--;
  const char *word_end = p;
  while (p > start && (g_ascii_isalnum (p[-1]) || p[-1] == '_'))
    p--;
  if (p > start && !g_ascii_isspace (p[-1]) && p[-1] != ';')
    return g_strdup ("");
  return g_strndup (p, (gsize) (word_end - p));
}

static gboolean
first_word_is (const char *line, const char *const *words)
{
  while (*line == ' ' || *line == '\t')
    line++;
  for (guint i = 0; words[i] != NULL; i++)
    {
      gsize len = strlen (words[i]);
      if (strncmp (line, words[i], len) == 0 && !g_ascii_isalnum (line[len]) && line[len] != '_')
        return TRUE;
    }
  return FALSE;
}

static char
last_char (const char *start, const char *end)
{
  while (end > start && g_ascii_isspace (end[-1]))
    end--;
  return end > start ? end[-1] : '\0';
}

char *
sp_indent_after_newline (SpIndentLanguage language, const char *before, guint width,
                         gboolean spaces)
{
  static const char *const py_enders[] = { "return", "pass", "break", "continue", "raise", NULL };
  Scan s;
  guint columns;

  g_return_val_if_fail (before != NULL, NULL);
  width = MAX (width, 1);
  scan (language, before, width, &s);
  if (s.open->len > 0)
    {
      Open *o = &g_array_index (s.open, Open, s.open->len - 1);
      const char *after = o->line;

      /* Where the bracket is: find it again on its line by its column. */
      while (*after != '\0' && *after != '\n' && column_of (o->line, after, width) <= o->column)
        after = g_utf8_next_char (after);
      while (*after == ' ' || *after == '\t')
        after++;
      /* Nothing after it on its line (or only a comment): a level in from
       * that line, else aligned with what follows it. */
      if (*after == '\0' || *after == '\n' || starts_comment (language, before, after))
        columns = indent_of (o->line, width) + width;
      else
        columns = column_of (o->line, after, width);
      g_array_unref (s.open);
      return make_indent (columns, width, spaces);
    }

  columns = indent_of (s.stmt_line, width);
  char end = last_char (s.last_line, s.code_end);
  g_autofree char *word = last_word (s.last_line, s.code_end);
  switch (language)
    {
    case SP_INDENT_PYTHON:
      if (end == ':')
        columns += width;
      else if (first_word_is (s.stmt_line, py_enders))
        columns = columns >= width ? columns - width : 0;
      break;
    case SP_INDENT_BASH:
      if (g_str_equal (word, "then") || g_str_equal (word, "do") || g_str_equal (word, "else")
          || end == '{')
        columns += width;
      break;
    case SP_INDENT_JAVASCRIPT:
    case SP_INDENT_OTHER:
    default:
      break;
    }
  g_array_unref (s.open);
  return make_indent (columns, width, spaces);
}

char *
sp_indent_for_closer (SpIndentLanguage language, const char *before_line, guint width,
                      gboolean spaces)
{
  Scan s;
  char *indent = NULL;

  g_return_val_if_fail (before_line != NULL, NULL);
  width = MAX (width, 1);
  scan (language, before_line, width, &s);
  if (s.open->len > 0)
    {
      Open *o = &g_array_index (s.open, Open, s.open->len - 1);
      indent = make_indent (indent_of (o->line, width), width, spaces);
    }
  g_array_unref (s.open);
  return indent;
}
