/* runner-error.c: a program's error read from its stderr.
 *
 * Plain C (POSIX regex for the two line shapes where a pattern is
 * clearer, plain string checks elsewhere) so every front end of the
 * engine reports the same object: the app, sandpad-run --json and
 * sandpad-mcp. The text is the program's, so it is only trusted to be
 * valid UTF-8: every value is capped on a character boundary, the
 * frame list is bounded, which keeps exited within its frame budget, and
 * every number is within the range the protocol's decoder accepts. */
#include <errno.h>
#include <regex.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "runner-error.h"
#include "runner-base.h"

typedef struct
{
  SpProgramError *error;
  size_t cap;
  const char *snippet;
} Parse;

/* A copy of at most SP_PROGRAM_ERROR_MAX_TEXT bytes, never ending inside
 * a UTF-8 character (the input is valid UTF-8). */
static char *
capped (const char *s, size_t len)
{
  if (len > SP_PROGRAM_ERROR_MAX_TEXT)
    {
      len = SP_PROGRAM_ERROR_MAX_TEXT;
      while (len > 0 && ((unsigned char) s[len] & 0xC0) == 0x80)
        len--;
    }
  char *copy = xmalloc (len + 1);
  memcpy (copy, s, len);
  copy[len] = '\0';
  return copy;
}

/* The patterns are fixed, so only a lack of memory fails them: treated
 * as xmalloc treats it. */
static void
xregcomp (regex_t *re, const char *pattern, int flags)
{
  if (regcomp (re, pattern, flags) != 0)
    abort ();
}

static char *
group (const char *line, const regmatch_t *m)
{
  if (m->rm_so < 0)
    return NULL;
  return capped (line + m->rm_so, (size_t) (m->rm_eo - m->rm_so));
}

/* A line or column number the program printed (digits first). Anything
 * can be printed: a number past what the decoder accepts made the whole
 * exited undecodable and the app restart the runner every window shares
 * (issue 29), so such a number is no location and its line is not read
 * as one. */
static bool
location_number (const char *digits, int64_t *out)
{
  char *end;
  long long value;

  errno = 0;
  value = strtoll (digits, &end, 10);
  if (end == digits || errno != 0 || value < 0 || value > SP_PROGRAM_ERROR_MAX_LINE)
    return false;
  *out = value;
  return true;
}

/* The 1-based column of a caret `offset` bytes into its line, 0 (unknown)
 * when that is no column the protocol carries. */
static int64_t
caret_column (ptrdiff_t offset)
{
  return offset >= 0 && offset < SP_PROGRAM_ERROR_MAX_LINE ? (int64_t) offset + 1 : 0;
}

static void
set_text (char **field, char *value)
{
  free (*field);
  *field = value;
}

static void
clear_frames (SpProgramError *error)
{
  for (size_t i = 0; i < error->n_frames; i++)
    {
      free (error->frames[i].file);
      free (error->frames[i].function);
    }
  error->n_frames = 0;
}

/* Appends (or, for node, which lists innermost first, prepends) a frame. */
static void
add_frame (Parse *p, char *file, char *function, int64_t line, int64_t column, bool prepend)
{
  SpProgramError *error = p->error;

  if (error->n_frames == p->cap)
    {
      p->cap = p->cap ? p->cap * 2 : 16;
      error->frames = xrealloc (error->frames, p->cap * sizeof *error->frames);
    }
  if (prepend)
    memmove (error->frames + 1, error->frames, error->n_frames * sizeof *error->frames);
  error->frames[prepend ? 0 : error->n_frames]
    = (SpProgramFrame){ .file = file, .function = function, .line = line, .column = column };
  error->n_frames++;
}

static bool
in_snippet (const char *file, const char *snippet)
{
  size_t f = strlen (file), s = strlen (snippet);

  if (strcmp (file, snippet) == 0)
    return true;
  return f > s && file[f - s - 1] == '/' && strcmp (file + f - s, snippet) == 0;
}

/* The snippet's innermost line, then only the innermost frames kept. */
static SpProgramError *
finish (Parse *p)
{
  SpProgramError *error = p->error;

  if (error->type == NULL)
    error->type = xstrdup ("Error");
  if (error->message == NULL)
    error->message = xstrdup ("");
  for (size_t i = error->n_frames; i > 0 && p->snippet != NULL; i--)
    if (in_snippet (error->frames[i - 1].file, p->snippet))
      {
        error->line = error->frames[i - 1].line;
        break;
      }
  if (error->n_frames > SP_PROGRAM_ERROR_MAX_FRAMES)
    {
      size_t drop = error->n_frames - SP_PROGRAM_ERROR_MAX_FRAMES;
      for (size_t i = 0; i < drop; i++)
        {
          free (error->frames[i].file);
          free (error->frames[i].function);
        }
      memmove (error->frames, error->frames + drop,
               SP_PROGRAM_ERROR_MAX_FRAMES * sizeof *error->frames);
      error->n_frames = SP_PROGRAM_ERROR_MAX_FRAMES;
    }
  return error;
}

static bool
has_suffix (const char *s, const char *suffix)
{
  size_t a = strlen (s), b = strlen (suffix);
  return a >= b && strcmp (s + a - b, suffix) == 0;
}

/* Whether the first len bytes of s end with suffix. */
static bool
has_suffix_len (const char *s, size_t len, const char *suffix)
{
  size_t b = strlen (suffix);
  return len >= b && strncmp (s + len - b, suffix, b) == 0;
}

/* The lines of text, each NUL-terminated, in one private copy. */
static char **
split_lines (const char *text, size_t *n_out)
{
  char *copy = xstrdup (text);
  size_t n = 1;

  for (const char *c = copy; *c; c++)
    n += *c == '\n';
  char **lines = xcalloc (n + 2, sizeof *lines);
  lines[0] = copy; /* lines[0] owns the copy; free (lines[0]) frees all */
  n = 0;
  for (char *line = copy, *next; line != NULL; line = next)
    {
      next = strchr (line, '\n');
      if (next != NULL)
        *next++ = '\0';
      lines[n++] = line;
    }
  *n_out = n;
  return lines;
}

static void
free_lines (char **lines)
{
  free (lines[0]);
  free (lines);
}

static bool
python_exception (SpProgramError *error, const regex_t *re, const char *line)
{
  regmatch_t m[4];

  if (regexec (re, line, 4, m, 0) != 0)
    return false;
  set_text (&error->type, group (line, &m[1]));
  set_text (&error->message, m[3].rm_so >= 0 ? group (line, &m[3]) : xstrdup (""));
  error->syntax = has_suffix (error->type, "SyntaxError")
                  || has_suffix (error->type, "IndentationError")
                  || has_suffix (error->type, "TabError");
  return true;
}

static SpProgramError *
parse_python (Parse *p, char **lines, size_t n)
{
  regex_t frame_re, exc_re, caret_re;
  bool found = false, in_traceback = false;
  int64_t caret_at = 0, number;

  xregcomp (&frame_re, "^  File \"(.+)\", line ([0-9]+)(, in (.+))?$", REG_EXTENDED);
  xregcomp (&exc_re, "^([A-Za-z_][A-Za-z0-9_.]*)(: ?(.*))?$", REG_EXTENDED);
  xregcomp (&caret_re, "^[ \t]+\\^+[ \t]*$", REG_EXTENDED | REG_NOSUB);
  for (size_t i = 0; i < n; i++)
    {
      const char *line = lines[i];
      regmatch_t m[5];

      /* Each traceback of a chain starts afresh: the last one is the
       * error that ended the program. */
      if (strncmp (line, "Traceback (most recent call last):", 34) == 0)
        {
          clear_frames (p->error);
          caret_at = 0;
          in_traceback = true;
        }
      else if (regexec (&frame_re, line, 5, m, 0) == 0
               && location_number (line + m[2].rm_so, &number))
        {
          add_frame (p, group (line, &m[1]), m[4].rm_so >= 0 ? group (line, &m[4]) : NULL, number,
                     0, false);
          caret_at = 0;
          in_traceback = true;
        }
      /* SyntaxError's caret line: the column under the code line above. */
      else if (i > 0 && strncmp (lines[i - 1], "    ", 4) == 0
               && regexec (&caret_re, line, 0, NULL, 0) == 0)
        caret_at = caret_column ((strchr (line, '^') - line) - 4);
      else if (in_traceback && line[0] != ' ' && line[0] != '\0'
               && python_exception (p->error, &exc_re, line))
        {
          found = true;
          in_traceback = false;
          p->error->column = p->error->syntax ? caret_at : 0;
        }
    }
  regfree (&frame_re);
  regfree (&exc_re);
  regfree (&caret_re);
  return found ? finish (p) : NULL;
}

/* "    at fn (file:line:col)" or "    at file:line:col". */
static bool
node_at (Parse *p, const char *line)
{
  const char *rest = line + strspn (line, " \t");
  size_t len;

  if (rest == line || strncmp (rest, "at ", 3) != 0)
    return false;
  rest += 3;
  len = strlen (rest);

  const char *loc = rest, *paren = NULL;
  size_t loc_len = len;
  if (len > 0 && rest[len - 1] == ')')
    for (const char *c = rest; (c = strstr (c, " (")) != NULL; c++)
      paren = c; /* the last " (" opens the location */
  if (paren != NULL)
    {
      loc = paren + 2;
      loc_len = (size_t) (rest + len - 1 - loc);
    }
  /* file:line:col, read from the end since the file may hold colons. */
  const char *end = loc + loc_len, *c = end;
  int64_t nums[2];
  for (int k = 1; k >= 0; k--)
    {
      const char *digits_end = c;
      while (c > loc && c[-1] >= '0' && c[-1] <= '9')
        c--;
      if (c == digits_end || c == loc || c[-1] != ':' || !location_number (c, &nums[k]))
        return false;
      c--;
    }
  if (c == loc)
    return false;
  add_frame (p, capped (loc, (size_t) (c - loc)),
             paren != NULL && paren > rest ? capped (rest, (size_t) (paren - rest)) : NULL, nums[0],
             nums[1], true);
  return true;
}

static SpProgramError *
parse_node (Parse *p, char **lines, size_t n)
{
  regex_t where_re, error_re;
  char *where_file = NULL;
  int64_t where_line = 0, where_column = 0, number;
  bool found = false;

  xregcomp (&where_re, "^(/.+|[A-Za-z]:.+|[^ \t]+\\.[mc]?js):([0-9]+)$", REG_EXTENDED);
  xregcomp (&error_re, "^(Uncaught )?([A-Z][A-Za-z0-9_]*(Error|Exception)|Error)(: ?(.*))?$",
            REG_EXTENDED);
  for (size_t i = 0; i < n; i++)
    {
      regmatch_t m[6];

      if (!found && regexec (&where_re, lines[i], 3, m, 0) == 0
          && location_number (lines[i] + m[2].rm_so, &number))
        {
          free (where_file);
          where_file = group (lines[i], &m[1]);
          where_line = number;
          /* The source line, then a caret under the spot. */
          if (i + 2 < n && strchr (lines[i + 2], '^') != NULL)
            where_column = caret_column (strchr (lines[i + 2], '^') - lines[i + 2]);
        }
      else if (!found && regexec (&error_re, lines[i], 6, m, 0) == 0)
        {
          p->error->type = group (lines[i], &m[2]);
          p->error->message = m[5].rm_so >= 0 ? group (lines[i], &m[5]) : xstrdup ("");
          p->error->syntax = strcmp (p->error->type, "SyntaxError") == 0;
          found = true;
        }
      else if (found)
        node_at (p, lines[i]);
    }
  regfree (&where_re);
  regfree (&error_re);
  if (!found)
    {
      free (where_file);
      return NULL;
    }
  /* A parse error has no stack in the snippet: its location line is it. */
  if (where_file != NULL && (p->error->syntax || p->error->n_frames == 0))
    add_frame (p, where_file, NULL, where_line, where_column, false);
  else
    free (where_file);
  p->error->column = where_column;
  return finish (p);
}

/* "FILE: line N: MESSAGE"; the first is the cause, bash may add the
 * offending line after it. */
static SpProgramError *
parse_bash (Parse *p, char **lines, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      const char *mark = strstr (lines[i], ": line ");
      if (mark == NULL || mark == lines[i])
        continue;
      const char *num = mark + 7, *c = num;
      int64_t line;
      while (*c >= '0' && *c <= '9')
        c++;
      if (c == num || strncmp (c, ": ", 2) != 0 || !location_number (num, &line))
        continue;
      p->error->message = capped (c + 2, strlen (c + 2));
      p->error->syntax = strstr (p->error->message, "syntax error") != NULL;
      p->error->type = xstrdup (p->error->syntax ? "SyntaxError" : "Error");
      add_frame (p, capped (lines[i], (size_t) (mark - lines[i])), NULL, line, 0, false);
      return finish (p);
    }
  return NULL;
}

/* "FILE:LINE:COL: KIND: MESSAGE" (gcc, g++, clang, go): the numbers, and
 * where the message starts; false when the line is not one. */
static bool
file_line_col (const char *line, size_t *file_len, int64_t *lnum, int64_t *col, const char **rest)
{
  /* The file may hold colons; the location is the first ":N:N: ". */
  for (const char *c = strchr (line, ':'); c != NULL; c = strchr (c + 1, ':'))
    {
      const char *a = c + 1, *b;
      if (*a < '0' || *a > '9')
        continue;
      b = a + strspn (a, "0123456789");
      if (*b != ':' || b[1] < '0' || b[1] > '9')
        continue;
      const char *e = b + 1 + strspn (b + 1, "0123456789");
      /* rustc's "--> FILE:LINE:COL" ends there. */
      if ((*e != ':' && *e != '\0') || c == line || !location_number (a, lnum)
          || !location_number (b + 1, col))
        continue;
      *file_len = (size_t) (c - line);
      *rest = *e == '\0' ? e : e[1] == ' ' ? e + 2 : e + 1;
      return true;
    }
  return false;
}

/* gcc and g++: the first error (a warning is no error); a linker's
 * "undefined reference" has no line of the snippet, only its message. */
static SpProgramError *
parse_cc (Parse *p, char **lines, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      size_t file_len;
      int64_t line, column;
      const char *rest;

      if (!file_line_col (lines[i], &file_len, &line, &column, &rest))
        continue;
      const char *msg = NULL;
      if (strncmp (rest, "error: ", 7) == 0)
        msg = rest + 7;
      else if (strncmp (rest, "fatal error: ", 13) == 0)
        msg = rest + 13;
      if (msg == NULL)
        continue;
      p->error->type = xstrdup ("CompileError");
      p->error->message = capped (msg, strlen (msg));
      p->error->syntax = true;
      p->error->column = column;
      add_frame (p, capped (lines[i], file_len), NULL, line, column, false);
      return finish (p);
    }
  for (size_t i = 0; i < n; i++)
    if (strstr (lines[i], "undefined reference to") != NULL)
      {
        const char *msg = strstr (lines[i], "undefined reference to");
        p->error->type = xstrdup ("LinkError");
        p->error->message = capped (msg, strlen (msg));
        p->error->syntax = true;
        return finish (p);
      }
  return NULL;
}

/* rustc: "error[E0425]: MESSAGE" then " --> FILE:LINE:COL"; a panic:
 * "thread 'main' panicked at 'MESSAGE', FILE:LINE:COL" (Rust before
 * 1.73), or "... panicked at FILE:LINE:COL:" with the message next. */
static SpProgramError *
parse_rust (Parse *p, char **lines, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      size_t file_len;
      int64_t line, column;
      const char *rest;

      if (strncmp (lines[i], "error", 5) == 0 && (lines[i][5] == ':' || lines[i][5] == '['))
        {
          const char *msg = strstr (lines[i], ": ");
          if (msg == NULL || strncmp (msg + 2, "aborting due to", 15) == 0)
            continue;
          p->error->type = xstrdup ("CompileError");
          p->error->message = capped (msg + 2, strlen (msg + 2));
          p->error->syntax = true;
          for (size_t j = i + 1; j < n && j < i + 4; j++)
            {
              const char *arrow = strstr (lines[j], "--> ");
              if (arrow != NULL && file_line_col (arrow + 4, &file_len, &line, &column, &rest))
                {
                  add_frame (p, capped (arrow + 4, file_len), NULL, line, column, false);
                  p->error->column = column;
                  break;
                }
            }
          return finish (p);
        }
      const char *at = strstr (lines[i], "' panicked at ");
      if (strncmp (lines[i], "thread '", 8) == 0 && at != NULL)
        {
          const char *tail = at + 14;
          p->error->type = xstrdup ("panic");
          if (tail[0] == '\'')
            {
              /* 'MESSAGE', FILE:LINE:COL: the location is after the last "', ". */
              const char *end = NULL;
              for (const char *c = strstr (tail + 1, "', "); c != NULL; c = strstr (c + 1, "', "))
                end = c;
              if (end == NULL)
                continue;
              p->error->message = capped (tail + 1, (size_t) (end - tail - 1));
              tail = end + 3;
            }
          else if (i + 1 < n)
            p->error->message = capped (lines[i + 1], strlen (lines[i + 1]));
          /* "FILE:LINE:COL" ends the line (":" after it in new Rust). */
          cleanup_free char *loc = xstrdup (tail);
          size_t len = strlen (loc);
          if (len > 0 && loc[len - 1] == ':')
            loc[len - 1] = '\0';
          cleanup_free char *with_colon = xasprintf ("%s: ", loc);
          if (file_line_col (with_colon, &file_len, &line, &column, &rest))
            {
              add_frame (p, capped (with_colon, file_len), NULL, line, column, false);
              p->error->column = column;
            }
          return finish (p);
        }
    }
  return NULL;
}

/* go build: "FILE:LINE:COL: MESSAGE" (after "# command-line-arguments");
 * a panic: "panic: MESSAGE", then per frame "FUNC(...)" and
 * "\tFILE:LINE +0x..", innermost first. */
static SpProgramError *
parse_go (Parse *p, char **lines, size_t n)
{
  bool panicked = false;

  for (size_t i = 0; i < n; i++)
    {
      size_t file_len;
      int64_t line, column;
      const char *rest;

      if (!panicked && file_line_col (lines[i], &file_len, &line, &column, &rest)
          && has_suffix_len (lines[i], file_len, ".go"))
        {
          p->error->type = xstrdup ("CompileError");
          p->error->message = capped (rest, strlen (rest));
          p->error->syntax = true;
          p->error->column = column;
          add_frame (p, capped (lines[i], file_len), NULL, line, column, false);
          return finish (p);
        }
      if (!panicked
          && (strncmp (lines[i], "panic: ", 7) == 0
              || strncmp (lines[i], "fatal error: ", 13) == 0))
        {
          const char *msg = strchr (lines[i], ':') + 2;
          p->error->type = xstrdup (lines[i][0] == 'p' ? "panic" : "fatal error");
          p->error->message = capped (msg, strlen (msg));
          panicked = true;
          continue;
        }
      /* A frame: the function's line, then its location indented. */
      if (panicked && lines[i][0] == '\t' && i > 0 && lines[i - 1][0] != '\t')
        {
          const char *loc = lines[i] + 1;
          const char *colon = strrchr (loc, ':');
          int64_t lnum;
          if (colon == NULL || !location_number (colon + 1, &lnum))
            continue;
          const char *fn = lines[i - 1], *paren = strrchr (fn, '(');
          add_frame (p, capped (loc, (size_t) (colon - loc)),
                     capped (fn, paren ? (size_t) (paren - fn) : strlen (fn)), lnum, 0, true);
        }
    }
  return panicked ? finish (p) : NULL;
}

/* esbuild: "✘ [ERROR] MESSAGE", a blank line, then "    FILE:LINE:COL:". */
static SpProgramError *
parse_esbuild (Parse *p, char **lines, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      const char *mark = strstr (lines[i], "[ERROR] ");
      if (mark == NULL)
        continue;
      p->error->type = xstrdup ("CompileError");
      p->error->message = capped (mark + 8, strlen (mark + 8));
      p->error->syntax = true;
      for (size_t j = i + 1; j < n && j < i + 4; j++)
        {
          size_t file_len;
          int64_t line, column;
          const char *rest, *loc = lines[j] + strspn (lines[j], " ");
          if (loc != lines[j] && file_line_col (loc, &file_len, &line, &column, &rest))
            {
              /* esbuild counts columns from 0. */
              add_frame (p, capped (loc, file_len), NULL, line, column + 1, false);
              p->error->column = column + 1;
              break;
            }
        }
      return finish (p);
    }
  return NULL;
}

/* Ruby: "FILE:LINE:in `FUNC': MESSAGE (Type)" then "\tfrom FILE:LINE:in
 * `FUNC'" outwards; a parse error: "FILE:LINE: syntax error, ...". */
static bool
ruby_location (Parse *p, const char *loc, const char **after)
{
  const char *c = strstr (loc, ":in ");
  const char *num;
  int64_t line;

  if (c == NULL)
    return false;
  /* The digits right before ":in " (none at the text's start: fuzz-error
   * read before loc there). */
  num = c;
  while (num > loc && num[-1] >= '0' && num[-1] <= '9')
    num--;
  if (num == c || num == loc || num[-1] != ':' || !location_number (num, &line))
    return false;
  const char *fn = c + 4, *fn_end;
  if (*fn == '`' || *fn == '\'')
    fn++;
  fn_end = strchr (fn, '\'');
  if (fn_end == NULL)
    return false;
  add_frame (p, capped (loc, (size_t) (num - 1 - loc)), capped (fn, (size_t) (fn_end - fn)), line,
             0, true);
  *after = fn_end + 1;
  return true;
}

static SpProgramError *
parse_ruby (Parse *p, char **lines, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      const char *after;
      const char *syn = strstr (lines[i], ": syntax error");
      if (syn != NULL)
        {
          const char *num = syn;
          int64_t line;
          while (num > lines[i] && num[-1] >= '0' && num[-1] <= '9')
            num--;
          if (num == syn || num == lines[i] || num[-1] != ':' || !location_number (num, &line))
            continue;
          p->error->type = xstrdup ("SyntaxError");
          p->error->message = capped (syn + 2, strlen (syn + 2));
          p->error->syntax = true;
          add_frame (p, capped (lines[i], (size_t) (num - 1 - lines[i])), NULL, line, 0, false);
          return finish (p);
        }
      if (!ruby_location (p, lines[i], &after))
        continue;
      /* ": MESSAGE (Type)" */
      const char *msg = strncmp (after, ": ", 2) == 0 ? after + 2 : after;
      const char *open = strrchr (msg, '(');
      size_t len = strlen (msg);
      if (open != NULL && len > 0 && msg[len - 1] == ')')
        {
          p->error->type = capped (open + 1, (size_t) (msg + len - 1 - open - 1));
          while (open > msg && open[-1] == ' ')
            open--;
          p->error->message = capped (msg, (size_t) (open - msg));
        }
      else
        p->error->message = capped (msg, len);
      for (size_t j = i + 1; j < n; j++)
        {
          const char *from = strstr (lines[j], "from ");
          if (from == NULL || lines[j][0] != '\t' || !ruby_location (p, from + 5, &after))
            break;
        }
      return finish (p);
    }
  return NULL;
}

/* "  at FILE:LINE" or "  at FILE:LINE in FUNC", a frame of R's driver. */
static bool
r_frame (Parse *p, const char *text)
{
  const char *loc, *in, *end, *colon;
  int64_t line;

  if (strncmp (text, "  at ", 5) != 0)
    return false;
  loc = text + 5;
  in = strstr (loc, " in ");
  end = in != NULL ? in : loc + strlen (loc);
  colon = end;
  while (colon > loc && colon[-1] >= '0' && colon[-1] <= '9')
    colon--;
  if (colon == end || colon == loc || colon[-1] != ':' || colon - 1 == loc
      || !location_number (colon, &line))
    return false;
  add_frame (p, capped (loc, (size_t) (colon - 1 - loc)),
             in != NULL ? capped (in + 4, strlen (in + 4)) : NULL, line, 0, true);
  return true;
}

/* R, as the runner's driver says it (runner-langs.c): "Error in CALL :
 * MESSAGE" or "Error: MESSAGE", then "  at FILE:LINE[ in FUNC]" from
 * the innermost call out; a parse error: "Error: FILE:LINE:COL: MESSAGE"
 * and R's lines around it, no frame. */
static SpProgramError *
parse_r (Parse *p, char **lines, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      const char *msg, *sep, *rest;
      size_t j = i + 1, file_len;
      int64_t line, col;

      if (strncmp (lines[i], "Error in ", 9) == 0 && (sep = strstr (lines[i], " : ")) != NULL)
        msg = sep + 3;
      else if (strncmp (lines[i], "Error: ", 7) == 0)
        msg = lines[i] + 7;
      else
        continue;
      /* A message of several lines goes on until the frames. */
      while (j < n && strncmp (lines[j], "  at ", 5) != 0 && j < i + 8)
        j++;
      if (j < n)
        {
          /* A frame whose number is no line the protocol carries is
           * left out, not the ones after it. */
          p->error->message = capped (msg, strlen (msg));
          for (; j < n && strncmp (lines[j], "  at ", 5) == 0; j++)
            r_frame (p, lines[j]);
          return finish (p);
        }
      if (msg == lines[i] + 7 && file_line_col (msg, &file_len, &line, &col, &rest) && file_len > 0)
        {
          p->error->type = xstrdup ("SyntaxError");
          p->error->message = capped (rest, strlen (rest));
          p->error->syntax = true;
          p->error->column = col;
          add_frame (p, capped (msg, file_len), NULL, line, col, false);
          return finish (p);
        }
    }
  return NULL;
}

/* Java's source launcher: javac's "FILE:LINE: error: MESSAGE" (the first
 * one), or "Exception in thread "main" TYPE: MESSAGE" then "\tat
 * CLASS.METHOD(FILE:LINE)" from the innermost call out, and "Caused by:"
 * with its own. */
static bool
java_frame (Parse *p, const char *text, bool outwards)
{
  const char *at = strstr (text, "at "), *open, *close, *colon;
  int64_t line;

  if (text[0] != '\t' || at != text + 1)
    return false;
  open = strchr (at, '(');
  close = open != NULL ? strchr (open, ')') : NULL;
  if (close == NULL)
    return false;
  /* The source launcher's own frames (its class is Main too, in
   * Main.java): not the program's. */
  if (strncmp (at + 3, "jdk.compiler/com.sun.tools.javac.launcher.", 42) == 0)
    return true;
  colon = memchr (open, ':', (size_t) (close - open));
  if (colon == NULL || !location_number (colon + 1, &line))
    {
      /* "(Native Method)", "(Unknown Source)": a frame with no line. */
      add_frame (p, capped ("", 0), capped (at + 3, (size_t) (open - at - 3)), 0, 0, outwards);
      return true;
    }
  add_frame (p, capped (open + 1, (size_t) (colon - open - 1)),
             capped (at + 3, (size_t) (open - at - 3)), line, 0, outwards);
  return true;
}

/* "TYPE: MESSAGE" or "TYPE": the exception said, its frames to come. */
static void
java_exception (Parse *p, const char *text)
{
  SpProgramError *error = p->error;
  const char *sep = strstr (text, ": ");

  for (size_t i = 0; i < error->n_frames; i++)
    {
      free (error->frames[i].file);
      free (error->frames[i].function);
    }
  error->n_frames = 0;
  free (error->type);
  free (error->message);
  error->type = capped (text, sep != NULL ? (size_t) (sep - text) : strlen (text));
  error->message = sep != NULL ? capped (sep + 2, strlen (sep + 2)) : xstrdup ("");
}

static SpProgramError *
parse_java (Parse *p, char **lines, size_t n)
{
  for (size_t i = 0; i < n; i++)
    {
      const char *err = strstr (lines[i], ": error: ");
      if (err != NULL)
        {
          const char *num = err;
          int64_t line;
          while (num > lines[i] && num[-1] >= '0' && num[-1] <= '9')
            num--;
          if (num == err || num == lines[i] || num[-1] != ':' || !location_number (num, &line))
            continue;
          p->error->type = xstrdup ("CompileError");
          p->error->message = capped (err + 9, strlen (err + 9));
          p->error->syntax = true;
          add_frame (p, capped (lines[i], (size_t) (num - 1 - lines[i])), NULL, line, 0, false);
          /* The caret under the source line gives the column. */
          if (i + 2 < n && strchr (lines[i + 2], '^') != NULL && lines[i + 2][0] == ' ')
            {
              p->error->column = (int64_t) (strchr (lines[i + 2], '^') - lines[i + 2]) + 1;
              p->error->frames[0].column = p->error->column;
            }
          return finish (p);
        }
      const char *exc = strncmp (lines[i], "Exception in thread ", 20) == 0
                          ? strchr (lines[i] + 20, ' ')
                          : NULL;
      if (exc == NULL)
        continue;
      java_exception (p, exc + 1);
      /* "Caused by:": the innermost cause is where it went wrong, and is
       * what is said, with its own frames. */
      for (size_t j = i + 1; j < n; j++)
        {
          if (strncmp (lines[j], "Caused by: ", 11) == 0)
            {
              java_exception (p, lines[j] + 11);
              continue;
            }
          if (!java_frame (p, lines[j], true) && strncmp (lines[j], "\t... ", 5) != 0)
            break;
        }
      return finish (p);
    }
  return NULL;
}

SpProgramError *
runner_error_parse (const char *language, const char *text, const char *snippet_name)
{
  Parse p = { .error = xcalloc (1, sizeof (SpProgramError)), .snippet = snippet_name };
  SpProgramError *result = NULL;
  size_t n;
  char **lines = split_lines (text, &n);

  if (strcmp (language, "python") == 0)
    result = parse_python (&p, lines, n);
  else if (strcmp (language, "javascript") == 0)
    result = parse_node (&p, lines, n);
  else if (strcmp (language, "bash") == 0)
    result = parse_bash (&p, lines, n);
  else if (strcmp (language, "c") == 0 || strcmp (language, "cpp") == 0)
    result = parse_cc (&p, lines, n);
  else if (strcmp (language, "rust") == 0)
    result = parse_rust (&p, lines, n);
  else if (strcmp (language, "go") == 0)
    result = parse_go (&p, lines, n);
  else if (strcmp (language, "typescript") == 0)
    {
      /* esbuild's diagnostics, else node's error through the source map. */
      result = parse_esbuild (&p, lines, n);
      if (result == NULL)
        result = parse_node (&p, lines, n);
    }
  else if (strcmp (language, "ruby") == 0)
    result = parse_ruby (&p, lines, n);
  else if (strcmp (language, "r") == 0)
    result = parse_r (&p, lines, n);
  else if (strcmp (language, "java") == 0)
    result = parse_java (&p, lines, n);
  free_lines (lines);
  if (result == NULL)
    sp_program_error_free (p.error);
  return result;
}
