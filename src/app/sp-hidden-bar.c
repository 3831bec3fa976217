/* sp-hidden-bar.c: a text file opened in the editor, with the characters
 * that hide or reorder text made visible (issue 29).
 *
 * A run's file is the program's to write: a bidi override makes
 * `if access != "user<U+202E> <U+2066>// admin"` read as other code,
 * and a zero-width space is not seen at all (Trojan Source). The panel
 * shows such characters as their code points, but the editor's text is
 * the person's to edit and save, so its bytes stay as they came. Here, as
 * GNOME Text Editor and VS Code do, each is drawn as a box with its code
 * point (Pango's "show ignorables") and underlined, and a bar across the
 * top says how many there are and what they do. The override still turns
 * the text after it around: the boxes and the bar are the warning. */
#define G_LOG_DOMAIN "sp-hidden-bar"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-hidden-bar.h"
#include "sp-visible-text.h"

#define HIDDEN_TAG "sp-hidden-char"

struct _SpHiddenBar
{
  AdwBin parent_instance;

  SpReloadBar *bar; /* template */
  GtkTextBuffer *buffer;
};

G_DEFINE_FINAL_TYPE (SpHiddenBar, sp_hidden_bar, ADW_TYPE_BIN)

enum
{
  PROP_0,
  PROP_BUFFER,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

/* Tags each hidden character of the buffer; how many there are. */
static guint
mark_characters (GtkTextBuffer *buffer)
{
  GtkTextTagTable *table = gtk_text_buffer_get_tag_table (buffer);
  GtkTextTag *tag = gtk_text_tag_table_lookup (table, HIDDEN_TAG);
  GtkTextIter at, end;
  guint n = 0;

  if (tag == NULL)
    tag = gtk_text_buffer_create_tag (buffer, HIDDEN_TAG, "show-spaces", PANGO_SHOW_IGNORABLES,
                                      "underline", PANGO_UNDERLINE_ERROR, NULL);
  gtk_text_buffer_get_bounds (buffer, &at, &end);
  gtk_text_buffer_remove_tag (buffer, tag, &at, &end);
  for (; !gtk_text_iter_is_end (&at); gtk_text_iter_forward_char (&at))
    if (sp_visible_text_is_hidden (gtk_text_iter_get_char (&at)))
      {
        GtkTextIter next = at;

        gtk_text_iter_forward_char (&next);
        gtk_text_buffer_apply_tag (buffer, tag, &at, &next);
        n++;
      }
  return n;
}

void
sp_hidden_bar_check (SpHiddenBar *self)
{
  g_autofree char *message = NULL;
  guint n;

  g_return_if_fail (SP_IS_HIDDEN_BAR (self));
  if (self->buffer == NULL)
    return;
  n = mark_characters (self->buffer);
  if (n == 0)
    {
      sp_reload_bar_hide (self->bar);
      return;
    }
  message = g_strdup_printf (
    /* Translators: shown over a file a run made; %u counts the characters. */
    g_dngettext (GETTEXT_PACKAGE,
                 "This text holds %u character that is invisible or changes the order of the "
                 "text around it (a bidi control or zero-width character), drawn as a box. "
                 "The code may not do what it seems to.",
                 "This text holds %u characters that are invisible or change the order of the "
                 "text around them (bidi controls or zero-width characters), drawn as boxes. "
                 "The code may not do what it seems to.",
                 n),
    n);
  sp_reload_bar_show (self->bar, "hidden-chars", message, TRUE);
  sp_reload_bar_add_button (self->bar, "dismiss", _ ("_Dismiss"), NULL);
}

void
sp_hidden_bar_set_buffer (SpHiddenBar *self, GtkTextBuffer *buffer)
{
  g_return_if_fail (SP_IS_HIDDEN_BAR (self));
  g_return_if_fail (buffer == NULL || GTK_IS_TEXT_BUFFER (buffer));

  if (g_set_object (&self->buffer, buffer))
    g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_BUFFER]);
}

GtkTextBuffer *
sp_hidden_bar_get_buffer (SpHiddenBar *self)
{
  g_return_val_if_fail (SP_IS_HIDDEN_BAR (self), NULL);
  return self->buffer;
}

SpReloadBar *
sp_hidden_bar_get_reload_bar (SpHiddenBar *self)
{
  g_return_val_if_fail (SP_IS_HIDDEN_BAR (self), NULL);
  return self->bar;
}

static void
on_response (SpReloadBar *bar, const char *response)
{
  /* "dismiss" is the one button: the boxes in the text stay. */
  sp_reload_bar_hide (bar);
}

static void
sp_hidden_bar_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SpHiddenBar *self = SP_HIDDEN_BAR (object);

  switch (prop_id)
    {
    case PROP_BUFFER:
      g_value_set_object (value, self->buffer);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_hidden_bar_set_property (GObject *object, guint prop_id, const GValue *value, GParamSpec *pspec)
{
  SpHiddenBar *self = SP_HIDDEN_BAR (object);

  switch (prop_id)
    {
    case PROP_BUFFER:
      sp_hidden_bar_set_buffer (self, g_value_get_object (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_hidden_bar_dispose (GObject *object)
{
  SpHiddenBar *self = SP_HIDDEN_BAR (object);

  /* The template's one child is AdwBin's, which unparents it. */
  g_clear_object (&self->buffer);
  G_OBJECT_CLASS (sp_hidden_bar_parent_class)->dispose (object);
}

static void
sp_hidden_bar_class_init (SpHiddenBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->get_property = sp_hidden_bar_get_property;
  object_class->set_property = sp_hidden_bar_set_property;
  object_class->dispose = sp_hidden_bar_dispose;

  properties[PROP_BUFFER] = g_param_spec_object ("buffer", NULL, NULL, GTK_TYPE_TEXT_BUFFER,
                                                 G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY
                                                   | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  g_type_ensure (SP_TYPE_RELOAD_BAR);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-hidden-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, SpHiddenBar, bar);
  gtk_widget_class_bind_template_callback (widget_class, on_response);
}

static void
sp_hidden_bar_init (SpHiddenBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
