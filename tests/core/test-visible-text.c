/* test-visible-text.c: hidden characters escaped, everything else kept. */
#include <string.h>

#include "sp-visible-text.h"

/* Each of the characters issue 29 names, and the other invisible ones,
 * is escaped; ordinary text of every script is not. */
static void
test_hidden_set (void)
{
  static const gunichar hidden[] = {
    0x202A, 0x202B, 0x202C, 0x202D, 0x202E, /* embeddings, overrides */
    0x2066, 0x2067, 0x2068, 0x2069,         /* isolates */
    0x200B, 0x200C, 0x200D, 0x200E, 0x200F, /* zero-width, marks */
    0x2028, 0x2029, 0xFEFF, 0x061C, 0x2060,
    0x00AD, 0x180E, 0x3164, 0x115F, 0xE0041, /* Hangul filler, a tag */
  };
  static const gunichar shown[] = {
    'a', ' ', '<', 0x00E9, 0x05D0, 0x0627, 0x4E2D, 0x1F600, 0x2400, 0xFFFD, 0x00A0,
  };

  for (guint i = 0; i < G_N_ELEMENTS (hidden); i++)
    {
      char buf[8] = { 0 };
      g_autofree char *escaped = NULL;
      g_autofree char *want = g_strdup_printf ("x<U+%04X>y", hidden[i]);
      g_autofree char *text = NULL;

      g_unichar_to_utf8 (hidden[i], buf);
      text = g_strconcat ("x", buf, "y", NULL);
      g_assert_true (sp_visible_text_is_hidden (hidden[i]));
      g_assert_true (sp_visible_text_has_hidden (text, -1));
      escaped = sp_visible_text_escape (text, -1, NULL);
      g_assert_cmpstr (escaped, ==, want);
    }
  for (guint i = 0; i < G_N_ELEMENTS (shown); i++)
    {
      char buf[8] = { 0 };
      g_autofree char *escaped = NULL;

      g_unichar_to_utf8 (shown[i], buf);
      g_assert_false (sp_visible_text_is_hidden (shown[i]));
      g_assert_false (sp_visible_text_has_hidden (buf, -1));
      escaped = sp_visible_text_escape (buf, -1, NULL);
      g_assert_cmpstr (escaped, ==, buf);
    }
  g_assert_false (sp_visible_text_has_hidden ("tab\tand\nnewline", -1));
}

/* The classic: a name that reads "invoice_exe.txt" but is an .exe. The
 * escaped form says what it is, and the spans point at the escapes. */
static void
test_name_spans (void)
{
  const char *name = "invoice_\xe2\x80\xaetxt.exe";
  g_autoptr (GArray) spans = g_array_new (FALSE, FALSE, sizeof (SpVisibleSpan));
  g_autofree char *escaped = sp_visible_text_escape (name, -1, spans);
  g_autofree char *cut = sp_visible_text_escape (name, 8, NULL);
  SpVisibleSpan *span;

  g_assert_cmpstr (escaped, ==, "invoice_<U+202E>txt.exe");
  g_assert_cmpuint (spans->len, ==, 1);
  span = &g_array_index (spans, SpVisibleSpan, 0);
  g_assert_cmpuint (span->start, ==, 8);
  g_assert_cmpuint (span->end, ==, 16);
  /* len is honoured: the override is past the first 8 bytes */
  g_assert_cmpstr (cut, ==, "invoice_");
  g_assert_false (sp_visible_text_has_hidden (name, 8));
}

/* Markup: the text escaped for Pango, each escape in a span of its own,
 * and it parses. */
static void
test_markup (void)
{
  const char *text = "<b>&\xe2\x80\x8b\xe2\x81\xa6ok";
  g_autofree char *markup = sp_visible_text_to_markup (text, -1);
  g_autofree char *plain = NULL;
  g_autoptr (GError) error = NULL;

  g_assert_nonnull (strstr (markup, "&lt;b&gt;&amp;<span "));
  g_assert_nonnull (strstr (markup, "&lt;U+200B&gt;</span><span "));
  g_assert_nonnull (strstr (markup, "&lt;U+2066&gt;</span>ok"));
  /* It is well-formed markup (as a label parses it). */
  {
    g_autoptr (GString) wrapped = g_string_new ("<markup>");
    g_autoptr (GMarkupParseContext) ctx = NULL;
    static const GMarkupParser parser = { 0 };

    g_string_append (wrapped, markup);
    g_string_append (wrapped, "</markup>");
    ctx = g_markup_parse_context_new (&parser, 0, NULL, NULL);
    g_assert_true (g_markup_parse_context_parse (ctx, wrapped->str, -1, &error));
    g_assert_no_error (error);
  }
  plain = sp_visible_text_escape (text, -1, NULL);
  g_assert_cmpstr (plain, ==, "<b>&<U+200B><U+2066>ok");
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/VisibleText/hidden-set", test_hidden_set);
  g_test_add_func ("/Sandpad/VisibleText/name-spans", test_name_spans);
  g_test_add_func ("/Sandpad/VisibleText/markup", test_markup);
  return g_test_run ();
}
