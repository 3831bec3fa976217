/* sp-error-info.c: a run's error, read from its stderr. */
#include "sp-error-info-private.h"

#include <string.h>

struct _SpErrorInfo
{
  gatomicrefcount ref_count;
  char *type;
  char *message;
  gboolean syntax;
  GArray *frames; /* SpErrorFrame, outermost first */
  int column;     /* of the error itself, when the interpreter points at it */
};

G_DEFINE_BOXED_TYPE (SpErrorInfo, sp_error_info, sp_error_info_ref, sp_error_info_unref)

static void
clear_frame (gpointer data)
{
  SpErrorFrame *frame = data;

  g_free (frame->file);
  g_free (frame->function);
}

static SpErrorInfo *
info_new (void)
{
  SpErrorInfo *self = g_new0 (SpErrorInfo, 1);

  g_atomic_ref_count_init (&self->ref_count);
  self->frames = g_array_new (FALSE, TRUE, sizeof (SpErrorFrame));
  g_array_set_clear_func (self->frames, clear_frame);
  return self;
}

SpErrorInfo *
sp_error_info_ref (SpErrorInfo *self)
{
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
sp_error_info_unref (SpErrorInfo *self)
{
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_free (self->type);
  g_free (self->message);
  g_array_unref (self->frames);
  g_free (self);
}

static void
add_frame (SpErrorInfo *self, const char *file, const char *function, int line, int column,
           const char *snippet_name)
{
  SpErrorFrame frame = { g_strdup (file), g_strdup (function), line, column, FALSE };
  g_autofree char *suffix = g_strconcat ("/", snippet_name, NULL);

  frame.in_snippet = snippet_name != NULL
                     && (g_str_equal (file, snippet_name) || g_str_has_suffix (file, suffix));
  g_array_append_val (self->frames, frame);
}

/* "Name: message" or a bare "Name" ending a Python traceback. */
static gboolean
parse_python_exception (SpErrorInfo *self, const char *line)
{
  g_autoptr (GRegex) re = g_regex_new ("^([A-Za-z_][\\w.]*)(?::\\s?(.*))?$", 0, 0, NULL);
  g_autoptr (GMatchInfo) match = NULL;

  if (!g_regex_match (re, line, 0, &match))
    return FALSE;
  g_free (self->type);
  g_free (self->message);
  self->type = g_match_info_fetch (match, 1);
  self->message = g_match_info_fetch (match, 2);
  if (self->message == NULL)
    self->message = g_strdup ("");
  self->syntax = g_str_has_suffix (self->type, "SyntaxError")
                 || g_str_has_suffix (self->type, "IndentationError")
                 || g_str_has_suffix (self->type, "TabError");
  return TRUE;
}

static SpErrorInfo *
parse_python (const char *text, const char *snippet_name)
{
  g_autoptr (GRegex) frame_re = g_regex_new ("^  File \"(.+)\", line (\\d+)(?:, in (.+))?$", 0, 0,
                                             NULL);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  SpErrorInfo *self = info_new ();
  gboolean found = FALSE;
  gboolean in_traceback = FALSE; /* a bare "Name" line is only an error after one */
  int caret_column = 0;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr (GMatchInfo) match = NULL;
      const char *line = lines[i];

      /* Each traceback of a chain starts afresh: the last one is the
       * error that ended the program. */
      if (g_str_has_prefix (line, "Traceback (most recent call last):"))
        {
          g_array_set_size (self->frames, 0);
          caret_column = 0;
          in_traceback = TRUE;
          continue;
        }
      if (g_regex_match (frame_re, line, 0, &match))
        {
          g_autofree char *file = g_match_info_fetch (match, 1);
          g_autofree char *num = g_match_info_fetch (match, 2);
          g_autofree char *function = g_match_info_fetch (match, 3);
          add_frame (self, file, function && *function ? function : NULL, atoi (num), 0,
                     snippet_name);
          caret_column = 0;
          in_traceback = TRUE;
          continue;
        }
      /* SyntaxError's caret line: the column under the code line above. */
      if (i > 0 && g_regex_match_simple ("^\\s+\\^+\\s*$", line, 0, 0)
          && g_str_has_prefix (lines[i - 1], "    "))
        {
          caret_column = (int) (strchr (line, '^') - line) - 4 + 1;
          continue;
        }
      if (in_traceback && line[0] != ' ' && line[0] != '\0' && parse_python_exception (self, line))
        {
          found = TRUE;
          in_traceback = FALSE;
          self->column = self->syntax ? caret_column : 0;
        }
    }
  if (!found)
    {
      sp_error_info_unref (self);
      return NULL;
    }
  return self;
}

static SpErrorInfo *
parse_node (const char *text, const char *snippet_name)
{
  g_autoptr (GRegex) location_re = g_regex_new ("^(/.+|[A-Za-z]:.+|\\S+\\.[mc]?js):(\\d+)$", 0, 0,
                                                NULL);
  g_autoptr (GRegex) error_re
    = g_regex_new ("^(?:Uncaught )?([A-Z]\\w*(?:Error|Exception)|Error)(?::\\s?(.*))?$", 0, 0,
                   NULL);
  g_autoptr (GRegex) at_re = g_regex_new ("^\\s+at (?:(.+?) \\()?(.+?):(\\d+):(\\d+)\\)?$", 0, 0,
                                          NULL);
  g_auto (GStrv) lines = g_strsplit (text, "\n", -1);
  SpErrorInfo *self = info_new ();
  g_autofree char *where_file = NULL;
  int where_line = 0, where_column = 0;
  gboolean found = FALSE;

  for (guint i = 0; lines[i] != NULL; i++)
    {
      g_autoptr (GMatchInfo) match = NULL;

      if (!found && g_regex_match (location_re, lines[i], 0, &match))
        {
          g_autofree char *num = g_match_info_fetch (match, 2);
          g_free (where_file);
          where_file = g_match_info_fetch (match, 1);
          where_line = atoi (num);
          /* The source line, then a caret under the spot. */
          if (lines[i + 1] != NULL && lines[i + 2] != NULL && strchr (lines[i + 2], '^'))
            where_column = (int) (strchr (lines[i + 2], '^') - lines[i + 2]) + 1;
          continue;
        }
      g_clear_pointer (&match, g_match_info_free);
      if (!found && g_regex_match (error_re, lines[i], 0, &match))
        {
          self->type = g_match_info_fetch (match, 1);
          self->message = g_match_info_fetch (match, 2);
          if (self->message == NULL)
            self->message = g_strdup ("");
          self->syntax = g_str_equal (self->type, "SyntaxError");
          found = TRUE;
          continue;
        }
      g_clear_pointer (&match, g_match_info_free);
      if (found && g_regex_match (at_re, lines[i], 0, &match))
        {
          g_autofree char *function = g_match_info_fetch (match, 1);
          g_autofree char *file = g_match_info_fetch (match, 2);
          g_autofree char *num = g_match_info_fetch (match, 3);
          g_autofree char *col = g_match_info_fetch (match, 4);
          /* node lists innermost first; keep outermost first like Python. */
          SpErrorFrame frame = { g_strdup (file),
                                 function && *function ? g_strdup (function) : NULL, atoi (num),
                                 atoi (col), FALSE };
          g_autofree char *suffix = g_strconcat ("/", snippet_name ? snippet_name : "", NULL);
          frame.in_snippet = snippet_name != NULL && g_str_has_suffix (file, suffix);
          g_array_prepend_val (self->frames, frame);
        }
    }
  if (!found)
    {
      sp_error_info_unref (self);
      return NULL;
    }
  /* A parse error has no stack in the snippet: its location line is it. */
  if (where_file != NULL && (self->syntax || self->frames->len == 0))
    add_frame (self, where_file, NULL, where_line, where_column, snippet_name);
  self->column = where_column;
  return self;
}

static SpErrorInfo *
parse_bash (const char *text, const char *snippet_name)
{
  g_autoptr (GRegex) re = g_regex_new ("^(.+?): line (\\d+): (.*)$", G_REGEX_MULTILINE, 0, NULL);
  g_autoptr (GMatchInfo) match = NULL;
  SpErrorInfo *self;

  /* The first message is the cause; bash may add the offending line. */
  if (!g_regex_match (re, text, 0, &match))
    return NULL;
  self = info_new ();
  g_autofree char *file = g_match_info_fetch (match, 1);
  g_autofree char *num = g_match_info_fetch (match, 2);
  self->message = g_match_info_fetch (match, 3);
  self->syntax = strstr (self->message, "syntax error") != NULL;
  self->type = g_strdup (self->syntax ? "SyntaxError" : "Error");
  add_frame (self, file, NULL, atoi (num), 0, snippet_name);
  return self;
}

SpErrorInfo *
sp_error_info_parse (const char *language, const char *text, const char *snippet_name)
{
  g_return_val_if_fail (language != NULL, NULL);
  g_return_val_if_fail (text != NULL, NULL);

  if (g_str_equal (language, "python"))
    return parse_python (text, snippet_name);
  if (g_str_equal (language, "javascript"))
    return parse_node (text, snippet_name);
  if (g_str_equal (language, "bash"))
    return parse_bash (text, snippet_name);
  return NULL;
}

SpErrorInfo *
_sp_error_info_new_from_proto (const SpProgramError *error, const char *snippet_name)
{
  SpErrorInfo *self = info_new ();
  const char *line_file = NULL;

  g_return_val_if_fail (error != NULL, NULL);
  self->type = g_strdup (error->type);
  self->message = g_strdup (error->message);
  self->syntax = error->syntax;
  self->column = (int) error->column;
  /* Without a name, the runner's line says which file is the snippet:
   * the innermost frame at that line is its. */
  for (size_t i = error->n_frames; i > 0 && snippet_name == NULL && error->line > 0; i--)
    if (error->frames[i - 1].line == error->line)
      {
        line_file = error->frames[i - 1].file;
        break;
      }
  for (size_t i = 0; i < error->n_frames; i++)
    {
      const SpProgramFrame *f = &error->frames[i];

      add_frame (self, f->file, f->function, (int) f->line, (int) f->column,
                 snippet_name ? snippet_name : line_file);
    }
  return self;
}

const char *
sp_error_info_get_error_type (SpErrorInfo *self)
{
  return self->type;
}

const char *
sp_error_info_get_message (SpErrorInfo *self)
{
  return self->message;
}

gboolean
sp_error_info_is_syntax_error (SpErrorInfo *self)
{
  return self->syntax;
}

guint
sp_error_info_get_n_frames (SpErrorInfo *self)
{
  return self->frames->len;
}

const SpErrorFrame *
sp_error_info_get_frame (SpErrorInfo *self, guint index)
{
  g_return_val_if_fail (index < self->frames->len, NULL);
  return &g_array_index (self->frames, SpErrorFrame, index);
}

int
sp_error_info_get_line (SpErrorInfo *self)
{
  for (guint i = self->frames->len; i > 0; i--)
    {
      const SpErrorFrame *frame = &g_array_index (self->frames, SpErrorFrame, i - 1);
      if (frame->in_snippet)
        return frame->line;
    }
  return 0;
}

int
sp_error_info_get_column (SpErrorInfo *self)
{
  return self->column;
}
