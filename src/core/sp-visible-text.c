/* sp-visible-text.c: hidden characters of a run's text shown as their
 * code points. */
#include "config.h"

#include <string.h>

#include "sp-visible-text.h"

/* How an escape is drawn in markup: marked as not part of the text (the
 * wavy underline spell checkers use), whatever the theme's colours. */
#define ESCAPE_OPEN "<span underline=\"error\" style=\"italic\" font_features=\"tnum\">"
#define ESCAPE_CLOSE "</span>"

gboolean
sp_visible_text_is_hidden (gunichar c)
{
  switch (g_unichar_type (c))
    {
    case G_UNICODE_FORMAT:              /* bidi controls, ZW*, BOM, tags, soft hyphen */
    case G_UNICODE_LINE_SEPARATOR:      /* U+2028 */
    case G_UNICODE_PARAGRAPH_SEPARATOR: /* U+2029 */
      return TRUE;
    default:
      break;
    }
  /* Letters drawn as blank space, long used to fake an empty name. */
  return c == 0x115F || c == 0x1160 || c == 0x3164
         || c == 0xFFA0
         /* Not in Cf in every Unicode version GLib may follow. */
         || c == 0x180E || c == 0x061C || (c >= 0x200B && c <= 0x200F)
         || (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x206F) || c == 0xFEFF;
}

gboolean
sp_visible_text_has_hidden (const char *text, gssize len)
{
  const char *end;

  g_return_val_if_fail (text != NULL, FALSE);
  end = len < 0 ? text + strlen (text) : text + len;
  for (const char *p = text; p < end; p = g_utf8_next_char (p))
    {
      /* Every hidden character is outside ASCII: skip it quickly. */
      if ((guchar) *p < 0x80)
        continue;
      if (sp_visible_text_is_hidden (g_utf8_get_char_validated (p, end - p)))
        return TRUE;
    }
  return FALSE;
}

/* Walks text, handing each stretch of plain text and each hidden
 * character to the caller's appenders. */
typedef void (*PlainFunc) (GString *out, const char *text, gsize len);
typedef void (*HiddenFunc) (GString *out, gunichar c, GArray *spans);

static void
walk (GString *out, const char *text, gssize len, PlainFunc plain, HiddenFunc hidden, GArray *spans)
{
  const char *end = len < 0 ? text + strlen (text) : text + len;
  const char *from = text;
  const char *p = text;

  while (p < end)
    {
      gunichar c = (guchar) *p < 0x80 ? (gunichar) *p : g_utf8_get_char_validated (p, end - p);
      const char *next = g_utf8_next_char (p);

      /* Invalid UTF-8 (never from the runner, which sanitizes) stays as
       * it is, for the caller's own handling. */
      if (c < 0x80 || c == (gunichar) -1 || c == (gunichar) -2 || !sp_visible_text_is_hidden (c))
        {
          p = next > end ? end : next;
          continue;
        }
      plain (out, from, (gsize) (p - from));
      hidden (out, c, spans);
      p = next;
      from = p;
    }
  plain (out, from, (gsize) (end - from));
}

static void
plain_text (GString *out, const char *text, gsize len)
{
  g_string_append_len (out, text, (gssize) len);
}

static void
hidden_text (GString *out, gunichar c, GArray *spans)
{
  SpVisibleSpan span = { out->len, 0 };

  g_string_append_printf (out, "<U+%04X>", c);
  span.end = out->len;
  if (spans != NULL)
    g_array_append_val (spans, span);
}

char *
sp_visible_text_escape (const char *text, gssize len, GArray *spans)
{
  GString *out;

  g_return_val_if_fail (text != NULL, NULL);
  out = g_string_sized_new (len < 0 ? strlen (text) : (gsize) len);
  walk (out, text, len, plain_text, hidden_text, spans);
  return g_string_free (out, FALSE);
}

static void
plain_markup (GString *out, const char *text, gsize len)
{
  g_autofree char *escaped = NULL;

  if (len == 0)
    return;
  escaped = g_markup_escape_text (text, (gssize) len);
  g_string_append (out, escaped);
}

static void
hidden_markup (GString *out, gunichar c, GArray *spans)
{
  g_string_append_printf (out, ESCAPE_OPEN "&lt;U+%04X&gt;" ESCAPE_CLOSE, c);
}

void
sp_visible_text_append_markup (GString *out, const char *text, gssize len)
{
  g_return_if_fail (out != NULL && text != NULL);
  walk (out, text, len, plain_markup, hidden_markup, NULL);
}

char *
sp_visible_text_to_markup (const char *text, gssize len)
{
  GString *out;

  g_return_val_if_fail (text != NULL, NULL);
  out = g_string_new (NULL);
  sp_visible_text_append_markup (out, text, len);
  return g_string_free (out, FALSE);
}
