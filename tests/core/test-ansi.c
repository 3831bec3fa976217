/* test-ansi.c: terminal colours become markup; nothing else is obeyed. */
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

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/Ansi/colours", test_colours);
  g_test_add_func ("/Sandpad/Ansi/other-sequences-are-shown", test_other_sequences_are_shown);
  return g_test_run ();
}
