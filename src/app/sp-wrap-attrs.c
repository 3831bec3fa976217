/* sp-wrap-attrs.c: a wrapped label of output, laid out in linear time
 * (sp-wrap-attrs.h). */
#include "config.h"

#include <string.h>

#include "sp-wrap-attrs.h"

/* About this many bytes a stretch (the measure in sp-wrap-attrs.h was
 * flat from 64 to 256); a boundary is looked for this far past it. */
#define STRETCH_BYTES 128
#define LOOK_AHEAD_BYTES 32

static gboolean
is_regional_indicator (gunichar c)
{
  return c >= 0x1F1E6 && c <= 0x1F1FF;
}

/* Whether c shapes with the character before it: a combining mark, a
 * joiner or what follows one, a variation selector, an emoji modifier, the
 * second of a flag's pair. */
static gboolean
joins_previous (gunichar prev, gunichar c)
{
  return g_unichar_ismark (c) || c == 0x200D || prev == 0x200D || (c >= 0xFE00 && c <= 0xFE0F)
         || (c >= 0xE0100 && c <= 0xE01EF) || (c >= 0x1F3FB && c <= 0x1F3FF)
         || (c >= 0xE0020 && c <= 0xE007F) /* emoji tag sequences */
         || (is_regional_indicator (prev) && is_regional_indicator (c));
}

/* The first place at or after at (a character's start) where a stretch
 * may end: after a space if one comes soon, else between two characters
 * that do not join, never inside a word of letters or digits when another
 * place is near. len when there is none before the end. */
static gsize
boundary_from (const char *text, gsize len, gsize at)
{
  gsize first_ok = len;
  const char *p = text + at;
  const char *end = text + MIN (len, at + LOOK_AHEAD_BYTES);
  gunichar prev = g_utf8_get_char (g_utf8_prev_char (p));

  for (; p < end; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (!joins_previous (prev, c))
        {
          if (g_unichar_isspace (prev))
            return (gsize) (p - text);
          if (first_ok == len && !(g_unichar_isalnum (prev) && g_unichar_isalnum (c)))
            first_ok = (gsize) (p - text);
        }
      prev = c;
    }
  if (first_ok < len)
    return first_ok;
  /* A word longer than the look ahead (the case this is for): any place
   * between two characters that do not join. */
  for (p = text + at; p < text + len; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);

      if (!joins_previous (prev, c))
        return (gsize) (p - text);
      prev = c;
    }
  return len;
}

PangoAttrList *
sp_wrap_attrs_for_text (const char *text)
{
  PangoAttrList *attrs = pango_attr_list_new ();
  gsize len = strlen (text);
  gboolean on = TRUE;

  /* Wrapped output must not gain hyphens that are not in it. */
  pango_attr_list_insert (attrs, pango_attr_insert_hyphens_new (FALSE));
  for (gsize start = 0; len > STRETCH_BYTES && start < len;)
    {
      const char *from = g_utf8_find_next_char (text + MIN (len, start + STRETCH_BYTES - 1),
                                                text + len);
      gsize end = from != NULL ? boundary_from (text, len, (gsize) (from - text)) : len;

      /* Every other stretch: GtkLabel merges equal attributes that touch,
       * so the ones between have none. */
      if (on)
        {
          PangoAttribute *attr = pango_attr_fallback_new (TRUE);

          attr->start_index = (guint) start;
          attr->end_index = (guint) end;
          pango_attr_list_insert (attrs, attr);
        }
      on = !on;
      start = end;
    }
  return attrs;
}

void
sp_wrap_attrs_update (GtkLabel *label)
{
  g_autoptr (PangoAttrList) attrs = sp_wrap_attrs_for_text (gtk_label_get_text (label));
  PangoAttrList *now = gtk_label_get_attributes (label);

  if (now == NULL || !pango_attr_list_equal (now, attrs))
    gtk_label_set_attributes (label, attrs);
}
