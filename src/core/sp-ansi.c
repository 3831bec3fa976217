/* sp-ansi.c: program output with terminal colours, as Pango markup. */
#include "sp-ansi.h"
#include "sp-visible-text.h"

#include <string.h>

/* The parameters of one SGR sequence that are read (sgr_params). */
#define SGR_MAX_PARAMS 32

/* The 16 colours, as GNOME's palette has them, for a light background. */
static const char *const light_palette[16] = {
  "#000000", "#c01c28", "#26a269", "#a2734c", "#12488b", "#a347ba", "#2aa1b3", "#d0cfcc",
  "#5e5c64", "#f66151", "#33d17a", "#e9ad0c", "#2a7bde", "#c061cb", "#33c7de", "#ffffff",
};

/* The same on a dark background: dark red and dark blue (and black) are
 * lifted until they read against it (at least 4.5:1 on #1e1e1e, tested). */
static const char *const dark_palette[16] = {
  "#9a9996", "#ff7b63", "#57e389", "#f6d32d", "#62a0ea", "#dc8add", "#5bc8af", "#deddda",
  "#c0bfbc", "#ffa8a0", "#8ff0a4", "#f9f06b", "#99c1f1", "#f0b4f0", "#93ddc2", "#ffffff",
};

/* A colour: none, one of the 16 (themed), or an RGB value (256-colour
 * cube and greys, truecolour). */
typedef struct
{
  enum
  {
    COLOUR_NONE,
    COLOUR_INDEX,
    COLOUR_RGB
  } kind;
  guint32 value;
} Colour;

typedef struct
{
  Colour fg;
  Colour bg;
  gboolean bold;
} Style;

static const Style plain_style = { { COLOUR_NONE, 0 }, { COLOUR_NONE, 0 }, FALSE };

/* xterm's 256 colours: 16 themed, a 6x6x6 cube, 24 greys. */
static Colour
colour_256 (int n)
{
  static const int levels[6] = { 0, 95, 135, 175, 215, 255 };

  if (n < 16)
    return (Colour){ COLOUR_INDEX, (guint32) n };
  if (n < 232)
    {
      n -= 16;
      return (Colour){ COLOUR_RGB,
                       (guint32) (levels[n / 36] << 16 | levels[n / 6 % 6] << 8 | levels[n % 6]) };
    }
  n = 8 + 10 * (n - 232);
  return (Colour){ COLOUR_RGB, (guint32) (n << 16 | n << 8 | n) };
}

/* 38;5;N or 38;2;R;G;B (and 48 for the background), starting at codes[*i]
 * (the 38 or 48) of n; moves *i past what it used. A malformed one is
 * dropped, as is the rest of the sequence, since its numbers no longer mean
 * what they say. Returns FALSE then. */
static gboolean
extended_colour (const int *codes, guint n, guint *i, Colour *out)
{
  int mode = *i + 1 < n ? codes[*i + 1] : -1;

  if (mode == 5 && *i + 2 < n)
    {
      int index = codes[*i + 2];
      if (index < 0 || index > 255)
        return FALSE;
      *out = colour_256 (index);
      *i += 2;
      return TRUE;
    }
  if (mode == 2 && *i + 4 < n)
    {
      int r = codes[*i + 2], g = codes[*i + 3], b = codes[*i + 4];
      if (r < 0 || r > 255 || g < 0 || g > 255 || b < 0 || b > 255)
        return FALSE;
      *out = (Colour){ COLOUR_RGB, (guint32) (r << 16 | g << 8 | b) };
      *i += 4;
      return TRUE;
    }
  return FALSE;
}

gboolean
sp_ansi_has_escapes (const char *text)
{
  return strchr (text, '\033') != NULL;
}

/* The numbers of an SGR sequence ("1;38;5;196", or "38:5:196", the ITU
 * form), at most SGR_MAX_PARAMS of them: xterm reads 30 and drops the
 * rest, and one escape of 100,000 parameters costs a pass over its text,
 * never more (issue 38: it held the window for seconds). An empty one is
 * 0; one that does not start with a digit ("?25") is 0 too, and a number
 * stops at the first character that is not a digit. Returns how many. */
static guint
sgr_params (const char *params, gsize len, int *codes)
{
  guint n = 0;
  int value = 0;
  gboolean stopped = FALSE;

  for (gsize i = 0; i <= len && n < SGR_MAX_PARAMS; i++)
    {
      char c = i < len ? params[i] : ';';

      if (c == ';' || c == ':')
        {
          codes[n++] = value;
          value = 0;
          stopped = FALSE;
        }
      else if (c >= '0' && c <= '9' && !stopped)
        /* No colour, style or channel goes past 255; bigger is invalid. */
        value = MIN (value * 10 + (c - '0'), 100000);
      else
        stopped = TRUE;
    }
  return n;
}

static void
apply_sgr (Style *style, const char *params, gsize len)
{
  int codes[SGR_MAX_PARAMS];
  guint n = sgr_params (params, len, codes);

  for (guint i = 0; i < n; i++)
    {
      int code = codes[i];

      if (code == 0)
        *style = plain_style;
      else if (code == 1)
        style->bold = TRUE;
      else if (code == 22)
        style->bold = FALSE;
      else if (code >= 30 && code <= 37)
        style->fg = (Colour){ COLOUR_INDEX, (guint32) (code - 30) };
      else if (code == 38 || code == 48)
        {
          if (!extended_colour (codes, n, &i, code == 38 ? &style->fg : &style->bg))
            return;
        }
      else if (code == 39)
        style->fg.kind = COLOUR_NONE;
      else if (code >= 40 && code <= 47)
        style->bg = (Colour){ COLOUR_INDEX, (guint32) (code - 40) };
      else if (code == 49)
        style->bg.kind = COLOUR_NONE;
      else if (code >= 90 && code <= 97)
        style->fg = (Colour){ COLOUR_INDEX, (guint32) (code - 90 + 8) };
      else if (code >= 100 && code <= 107)
        style->bg = (Colour){ COLOUR_INDEX, (guint32) (code - 100 + 8) };
      /* Anything else (underline, blink) is left out. */
    }
}

static gboolean
is_plain (const Style *style)
{
  return style->fg.kind == COLOUR_NONE && style->bg.kind == COLOUR_NONE && !style->bold;
}

static void
append_colour (GString *out, const char *attr, Colour colour, const char *const *palette)
{
  if (colour.kind == COLOUR_INDEX)
    g_string_append_printf (out, " %s=\"%s\"", attr, palette[colour.value]);
  else if (colour.kind == COLOUR_RGB)
    g_string_append_printf (out, " %s=\"#%06x\"", attr, colour.value);
}

static void
open_span (GString *out, const Style *style, const char *const *palette)
{
  if (is_plain (style))
    return;
  g_string_append (out, "<span");
  append_colour (out, "foreground", style->fg, palette);
  append_colour (out, "background", style->bg, palette);
  if (style->bold)
    g_string_append (out, " weight=\"bold\"");
  g_string_append_c (out, '>');
}

static void
close_span (GString *out, const Style *style)
{
  if (!is_plain (style))
    g_string_append (out, "</span>");
}

/* Other control characters (a bell, a backspace) are shown as their
 * Unicode control pictures, U+2400 + c: visible, inert, and valid in
 * markup, which has no place for them; characters that hide or reorder
 * text as their code points (sp-visible-text.h). */
static void
append_escaped (GString *out, const char *text, gsize len)
{
  g_autoptr (GString) visible = g_string_sized_new (len);

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
  sp_visible_text_append_markup (out, visible->str, (gssize) visible->len);
}

char *
sp_ansi_to_markup (const char *text)
{
  return sp_ansi_to_markup_for (text, FALSE);
}

char *
sp_ansi_to_markup_for (const char *text, gboolean dark)
{
  const char *const *palette = dark ? dark_palette : light_palette;
  GString *out = g_string_new (NULL);
  Style style = plain_style;
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
          while (*q && ((*q >= '0' && *q <= '9') || *q == ';' || *q == ':' || *q == '?'))
            q++;
          if (*q == 'm')
            {
              close_span (out, &style);
              apply_sgr (&style, esc + 2, (gsize) (q - esc - 2));
              open_span (out, &style, palette);
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
