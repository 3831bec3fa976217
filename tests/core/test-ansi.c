/* test-ansi.c: terminal colours become markup; nothing else is obeyed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp-ansi.h"

/* Well-formed as Pango parses it: XML inside one root element. */
static gboolean
markup_ok (const char *markup)
{
  static const GMarkupParser parser = { 0 };
  g_autoptr (GMarkupParseContext) ctx = g_markup_parse_context_new (&parser, 0, NULL, NULL);
  g_autofree char *wrapped = g_strconcat ("<markup>", markup, "</markup>", NULL);

  return g_markup_parse_context_parse (ctx, wrapped, -1, NULL)
         && g_markup_parse_context_end_parse (ctx, NULL);
}

static void
check (const char *in, const char *want)
{
  g_autofree char *got = sp_ansi_to_markup (in);

  g_assert_cmpstr (got, ==, want);
  /* Whatever came in, the result is valid markup. */
  g_assert_true (markup_ok (got));
}

static void
test_colours (void)
{
  check ("plain <b>&", "plain &lt;b&gt;&amp;");
  check ("\033[31mred\033[0m done", "<span foreground=\"#c01c28\">red</span> done");
  check ("\033[1;32mok\033[0m", "<span foreground=\"#26a269\" weight=\"bold\">ok</span>");
  check ("\033[91mbright\033[39m", "<span foreground=\"#f66151\">bright</span>");
  check ("\033[44mbg\033[m", "<span background=\"#12488b\">bg</span>");
  check ("\033[31munclosed", "<span foreground=\"#c01c28\">unclosed</span>");
}

/* xterm's 256 colours and truecolour, in both separator forms. */
static void
test_extended_colours (void)
{
  /* 196 is the cube's (5, 0, 0); 244 the grey 8 + 10 * 12. */
  check ("\033[38;5;196mX\033[0m", "<span foreground=\"#ff0000\">X</span>");
  check ("\033[48;5;244mX\033[0m", "<span background=\"#808080\">X</span>");
  check ("\033[38;5;16mX", "<span foreground=\"#000000\">X</span>");
  check ("\033[38;5;110mX", "<span foreground=\"#87afd7\">X</span>");
  /* The first 16 are the themed ones. */
  check ("\033[38;5;1mX", "<span foreground=\"#c01c28\">X</span>");
  check ("\033[38;2;1;2;255mX", "<span foreground=\"#0102ff\">X</span>");
  check ("\033[38:2:10:20:30mX", "<span foreground=\"#0a141e\">X</span>");
  check ("\033[1;48;2;255;255;0;38;5;21mX",
         "<span foreground=\"#0000ff\" background=\"#ffff00\" weight=\"bold\">X</span>");
  /* Malformed: dropped, never a crash, never markup gone wrong. */
  check ("\033[38;5mX", "X");
  check ("\033[38;5;300mX", "X");
  check ("\033[38;2;1;2mX", "X");
}

static double
channel (unsigned v)
{
  double c = v / 255.0;
  return c <= 0.03928 ? c / 12.92 : pow ((c + 0.055) / 1.055, 2.4);
}

static double
luminance (const char *hex)
{
  unsigned rgb = (unsigned) strtoul (hex + 1, NULL, 16);
  return 0.2126 * channel (rgb >> 16 & 0xff) + 0.7152 * channel (rgb >> 8 & 0xff)
         + 0.0722 * channel (rgb & 0xff);
}

/* The colour the markup gives its text, as "#rrggbb". */
static char *
foreground_of (const char *markup)
{
  const char *at = strstr (markup, "foreground=\"");
  g_assert_nonnull (at);
  return g_strndup (at + strlen ("foreground=\""), 7);
}

/* Red, blue (and every other of the 16 but black's stand-in) read on
 * Adwaita's dark view background, by WCAG's contrast ratio. */
static void
test_dark_is_readable (void)
{
  const double background = luminance ("#1e1e1e");

  for (int code = 30; code <= 37; code++)
    for (int bright = 0; bright <= 1; bright++)
      {
        g_autofree char *in = g_strdup_printf ("\033[%dmX", code + bright * 60);
        g_autofree char *dark = sp_ansi_to_markup_for (in, TRUE);
        g_autofree char *colour = foreground_of (dark);
        double ratio = (luminance (colour) + 0.05) / (background + 0.05);

        g_test_message ("%d in dark: %s, contrast %.2f", code + bright * 60, colour, ratio);
        g_assert_cmpfloat (ratio, >=, 4.5);
        g_assert_true (markup_ok (dark));
      }
  /* The light style keeps its colours. */
  {
    g_autofree char *light = sp_ansi_to_markup_for ("\033[31mX", FALSE);
    g_assert_cmpstr (light, ==, "<span foreground=\"#c01c28\">X</span>");
  }
}

static void
test_other_sequences_are_shown (void)
{
  /* Cursor movement, clearing the screen, a window title: visible, inert. */
  check ("\033[2J\033[Hx", "\xe2\x90\x9b[2J\xe2\x90\x9b[Hx");
  check ("\033]0;title\007", "\xe2\x90\x9b]0;title\xe2\x90\x87"); /* BEL shown as U+2407 */
  check ("end\033", "end\xe2\x90\x9b");
  g_assert_false (sp_ansi_has_escapes ("no escapes"));
  g_assert_true (sp_ansi_has_escapes ("a\033[0m"));
}

/* One escape with 100,000 parameters: its first 32 are read, as xterm
 * reads its first 30, and the rest only passed over (issue 38: the old
 * parser split them all and counted them again for each colour, and held
 * the window for seconds); huge numbers are invalid, not overflows. */
static void
test_many_parameters (void)
{
  g_autoptr (GString) in = g_string_new ("\033[");
  g_autoptr (GString) colours = g_string_new ("\033[");

  for (int i = 0; i < 100000; i++)
    g_string_append (in, i == 0 ? "1" : ";1");
  /* Past the 32nd: not read. */
  g_string_append (in, ";31mbold\033[0m");
  check (in->str, "<span weight=\"bold\">bold</span>");
  for (int i = 0; i < 30000; i++)
    g_string_append (colours, i == 0 ? "38;5;196" : ";38;5;21");
  g_string_append (colours, "mX");
  check (colours->str, "<span foreground=\"#0000ff\">X</span>");
  check ("\033[38;5;99999999999999999999mX", "X");
  check ("\033[;1mX", "<span weight=\"bold\">X</span>");
  check ("\033[?25mX", "X");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/Ansi/colours", test_colours);
  g_test_add_func ("/Sandpad/Ansi/other-sequences-are-shown", test_other_sequences_are_shown);
  g_test_add_func ("/Sandpad/Ansi/extended-colours", test_extended_colours);
  g_test_add_func ("/Sandpad/Ansi/dark-is-readable", test_dark_is_readable);
  g_test_add_func ("/Sandpad/Ansi/many-parameters", test_many_parameters);
  return g_test_run ();
}
