/* sp-ansi.c: program output with terminal colours, as Pango markup. */
#include "sp-ansi.h"

#include <stdlib.h>
#include <string.h>

/* The xterm defaults for the 16 colours, readable on light and dark. */
static const char *const palette[16] = {
  "#000000", "#c01c28", "#26a269", "#a2734c", "#12488b", "#a347ba", "#2aa1b3", "#d0cfcc",
  "#5e5c64", "#f66151", "#33d17a", "#e9ad0c", "#2a7bde", "#c061cb", "#33c7de", "#ffffff",
};

typedef struct
{
  int fg; /* -1: default */
  int bg;
  gboolean bold;
} Style;

gboolean
sp_ansi_has_escapes (const char *text)
{
  return strchr (text, '\033') != NULL;
}

static void
apply_sgr (Style *style, const char *params, gsize len)
{
  g_autofree char *copy = g_strndup (params, len);
  g_auto (GStrv) codes = g_strsplit (copy, ";", -1);

  /* "ESC[m" is a reset, like "ESC[0m". */
  if (codes[0] == NULL)
    *style = (Style){ -1, -1, FALSE };
  for (guint i = 0; codes[i] != NULL; i++)
    {
      int code = codes[i][0] ? atoi (codes[i]) : 0;

      if (code == 0)
        *style = (Style){ -1, -1, FALSE };
      else if (code == 1)
        style->bold = TRUE;
      else if (code == 22)
        style->bold = FALSE;
      else if (code >= 30 && code <= 37)
        style->fg = code - 30;
      else if (code == 39)
        style->fg = -1;
      else if (code >= 40 && code <= 47)
        style->bg = code - 40;
      else if (code == 49)
        style->bg = -1;
      else if (code >= 90 && code <= 97)
        style->fg = code - 90 + 8;
      else if (code >= 100 && code <= 107)
        style->bg = code - 100 + 8;
      /* Anything else (256 colours, underline, blink) is left out. */
    }
}

static void
open_span (GString *out, const Style *style)
{
  if (style->fg < 0 && style->bg < 0 && !style->bold)
    return;
  g_string_append (out, "<span");
  if (style->fg >= 0)
    g_string_append_printf (out, " foreground=\"%s\"", palette[style->fg]);
  if (style->bg >= 0)
    g_string_append_printf (out, " background=\"%s\"", palette[style->bg]);
  if (style->bold)
    g_string_append (out, " weight=\"bold\"");
  g_string_append_c (out, '>');
}

static void
close_span (GString *out, const Style *style)
{
  if (style->fg >= 0 || style->bg >= 0 || style->bold)
    g_string_append (out, "</span>");
}

/* Other control characters (a bell, a backspace) are shown as their
 * Unicode control pictures, U+2400 + c: visible, inert, and valid in
 * markup, which has no place for them. */
static void
append_escaped (GString *out, const char *text, gsize len)
{
  g_autoptr (GString) visible = g_string_sized_new (len);
  g_autofree char *escaped = NULL;

  for (gsize i = 0; i < len; i++)
    {
      unsigned char c = (unsigned char) text[i];
      if (c < 0x20 && c != '\n' && c != '\t')
        g_string_append_unichar (visible, 0x2400 + c);
      else if (c == 0x7f)
        g_string_append_unichar (visible, 0x2421);
      else
        g_string_append_c (visible, (char) c);
    }
  escaped = g_markup_escape_text (visible->str, (gssize) visible->len);
  g_string_append (out, escaped);
}

char *
sp_ansi_to_markup (const char *text)
{
  GString *out = g_string_new (NULL);
  Style style = { -1, -1, FALSE };
  const char *p = text;

  g_return_val_if_fail (text != NULL, NULL);

  for (;;)
    {
      const char *esc = strchr (p, '\033');

      if (esc == NULL)
        {
          append_escaped (out, p, strlen (p));
          break;
        }
      append_escaped (out, p, (gsize) (esc - p));

      /* CSI: ESC [ parameters final-byte. Only "m" (SGR) is honoured. */
      if (esc[1] == '[')
        {
          const char *q = esc + 2;
          while (*q && ((*q >= '0' && *q <= '9') || *q == ';' || *q == '?'))
            q++;
          if (*q == 'm')
            {
              close_span (out, &style);
              apply_sgr (&style, esc + 2, (gsize) (q - esc - 2));
              open_span (out, &style);
              p = q + 1;
              continue;
            }
        }
      /* Shown harmlessly: the ESC becomes a visible symbol, the rest of
       * the sequence stays as plain text. */
      g_string_append (out, "\xe2\x90\x9b"); /* U+241B SYMBOL FOR ESCAPE */
      p = esc + 1;
    }
  close_span (out, &style);
  return g_string_free (out, FALSE);
}
