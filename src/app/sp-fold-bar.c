/* sp-fold-bar.c: what an output row says under a folded line
 * (sp-fold-bar.h). */
#define G_LOG_DOMAIN "sp-fold-bar"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-fold-bar.h"

struct _SpFoldBar
{
  GtkWidget parent_instance;

  GtkLabel *label; /* template */
  guint64 chars;
};

G_DEFINE_FINAL_TYPE (SpFoldBar, sp_fold_bar, GTK_TYPE_WIDGET)

enum
{
  COPY_LINE,
  SAVE_LINE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
on_copy_clicked (GtkButton *button, SpFoldBar *self)
{
  g_signal_emit (self, signals[COPY_LINE], 0);
}

static void
on_save_clicked (GtkButton *button, SpFoldBar *self)
{
  g_signal_emit (self, signals[SAVE_LINE], 0);
}

void
sp_fold_bar_set_folded (SpFoldBar *self, guint64 chars)
{
  g_autofree char *count = NULL;
  g_autofree char *text = NULL;

  g_return_if_fail (SP_IS_FOLD_BAR (self));
  /* Said again only when it changed: a line that grows updates its row
   * on every batch. */
  if (chars == self->chars && *gtk_label_get_text (self->label) != '\0')
    return;
  self->chars = chars;
  count = g_strdup_printf ("%'" G_GUINT64_FORMAT, chars);
  /* TRANSLATORS: %s is a number of characters, more than zero, of a
   * line of output too long to show */
  text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "… %s more character of this line",
                                       "… %s more characters of this line",
                                       (unsigned long) MIN (chars, G_MAXULONG)),
                          count);
  gtk_label_set_text (self->label, text);
}

const char *
sp_fold_bar_get_text (SpFoldBar *self)
{
  g_return_val_if_fail (SP_IS_FOLD_BAR (self), NULL);
  return gtk_label_get_text (self->label);
}

GtkWidget *
sp_fold_bar_new (void)
{
  return g_object_new (SP_TYPE_FOLD_BAR, NULL);
}

static void
sp_fold_bar_dispose (GObject *object)
{
  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (object), SP_TYPE_FOLD_BAR);
  /* The buttons have no name in the template, so it does not drop them. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (sp_fold_bar_parent_class)->dispose (object);
}

static void
sp_fold_bar_class_init (SpFoldBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_fold_bar_dispose;

  signals[COPY_LINE] = g_signal_new ("copy-line", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SAVE_LINE] = g_signal_new ("save-line", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL, NULL, G_TYPE_NONE, 0);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-fold-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, SpFoldBar, label);
  gtk_widget_class_bind_template_callback (widget_class, on_copy_clicked);
  gtk_widget_class_bind_template_callback (widget_class, on_save_clicked);
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "foldbar");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sp_fold_bar_init (SpFoldBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                              6);
}
