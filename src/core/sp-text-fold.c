/* sp-text-fold.c: a text's long lines folded for a text view
 * (sp-text-fold.h). */
#include "config.h"

#include <glib/gi18n-lib.h>
#include <string.h>

#include "sp-text-fold.h"

char *
sp_text_fold_lines (const char *text, gsize max_bytes)
{
  g_autoptr (GString) out = NULL;

  g_return_val_if_fail (text != NULL, NULL);

  out = g_string_sized_new (strlen (text));
  for (const char *line = text; *line != '\0';)
    {
      const char *nl = strchr (line, '\n');
      gsize len = nl != NULL ? (gsize) (nl - line) : strlen (line);

      if (len <= max_bytes)
        g_string_append_len (out, line, (gssize) len);
      else
        {
          /* Never inside a character: back to the start of the one that
           * does not fit. */
          gsize keep = max_bytes;
          glong more;
          g_autofree char *count = NULL;

          while (keep > 0 && ((guchar) line[keep] & 0xC0) == 0x80)
            keep--;
          more = g_utf8_strlen (line + keep, (gssize) (len - keep));
          count = g_strdup_printf ("%ld", more);
          g_string_append_len (out, line, (gssize) keep);
          g_string_append_c (out, ' ');
          /* TRANSLATORS: after the start of a line of output too long to
           * show; %s is a number of characters, more than zero */
          g_string_append_printf (out,
                                  g_dngettext (GETTEXT_PACKAGE,
                                               "… (%s more character of this line)",
                                               "… (%s more characters of this line)",
                                               (unsigned long) more),
                                  count);
        }
      if (nl == NULL)
        break;
      g_string_append_c (out, '\n');
      line = nl + 1;
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}
