/* sp-csv.c: the first rows of a CSV or TSV file, for a preview. */
#define G_LOG_DOMAIN "sp-csv"

#include "config.h"

#include "sp-csv.h"

/* One record from *p (RFC 4180 quoting, \n or \r\n ends it); moves *p past
 * it. Sets *ended when the text ended inside or right after it without a
 * line break (a row that may be cut). */
static GPtrArray *
parse_record (const char **p, char separator, gboolean *ended)
{
  GPtrArray *cells = g_ptr_array_new_with_free_func (g_free);
  GString *cell = g_string_new (NULL);
  gboolean quoted = FALSE;
  const char *s = *p;

  *ended = TRUE;
  for (; *s != '\0'; s++)
    {
      if (quoted)
        {
          if (*s == '"' && s[1] == '"')
            g_string_append_c (cell, *s++);
          else if (*s == '"')
            quoted = FALSE;
          else
            g_string_append_c (cell, *s);
        }
      else if (*s == '"' && cell->len == 0)
        quoted = TRUE;
      else if (*s == separator)
        {
          g_ptr_array_add (cells, g_string_free (cell, FALSE));
          cell = g_string_new (NULL);
        }
      else if (*s == '\n' || (*s == '\r' && s[1] == '\n'))
        {
          s += *s == '\r' ? 2 : 1;
          *ended = FALSE;
          break;
        }
      else
        g_string_append_c (cell, *s);
    }
  g_ptr_array_add (cells, g_string_free (cell, FALSE));
  *p = s;
  return cells;
}

SpCsvPreview *
sp_csv_preview_parse (const char *text, gboolean whole, char separator, guint max_rows,
                      guint max_cols)
{
  SpCsvPreview *preview = g_new0 (SpCsvPreview, 1);
  const char *p = text;

  g_return_val_if_fail (text != NULL, NULL);

  preview->rows = g_ptr_array_new_with_free_func ((GDestroyNotify) g_strfreev);
  while (*p != '\0')
    {
      gboolean ended;
      g_autoptr (GPtrArray) cells = parse_record (&p, separator, &ended);

      /* The last row of a cut text may itself be cut: not shown. */
      if (ended && !whole)
        {
          preview->more_rows = TRUE;
          break;
        }
      if (preview->rows->len == max_rows)
        {
          preview->more_rows = TRUE;
          break;
        }
      if (cells->len > max_cols)
        {
          preview->more_cols = TRUE;
          g_ptr_array_set_size (cells, max_cols);
        }
      g_ptr_array_add (cells, NULL);
      g_ptr_array_add (preview->rows, g_ptr_array_steal (cells, NULL));
    }
  return preview;
}

void
sp_csv_preview_free (SpCsvPreview *preview)
{
  if (preview == NULL)
    return;
  g_ptr_array_unref (preview->rows);
  g_free (preview);
}
