/* sp-reload-bar.c: a message strip with buttons, in a revealer. */
#define G_LOG_DOMAIN "sp-reload-bar"

#include "config.h"

#include "sp-reload-bar.h"

struct _SpReloadBar
{
  GtkWidget parent_instance;

  GtkRevealer *revealer;
  GtkWidget *box;
  GtkImage *icon;
  GtkLabel *label;
  GtkWidget *buttons;
  char *kind;
};

G_DEFINE_FINAL_TYPE (SpReloadBar, sp_reload_bar, GTK_TYPE_WIDGET)

enum
{
  RESPONSE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static void
on_button_clicked (GtkButton *button, SpReloadBar *self)
{
  g_autofree char *response = g_strdup (g_object_get_data (G_OBJECT (button), "response"));

  /* The handler may show something else in the bar, freeing the button's
   * data: the id was copied first. */
  g_signal_emit (self, signals[RESPONSE], 0, response);
}

static void
clear_buttons (SpReloadBar *self)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (self->buttons)) != NULL)
    gtk_box_remove (GTK_BOX (self->buttons), child);
}

void
sp_reload_bar_show (SpReloadBar *self, const char *kind, const char *message, gboolean warning)
{
  g_return_if_fail (SP_IS_RELOAD_BAR (self));

  g_free (self->kind);
  self->kind = g_strdup (kind);
  clear_buttons (self);
  gtk_label_set_text (self->label, message);
  gtk_image_set_from_icon_name (self->icon, warning ? "dialog-warning-symbolic"
                                                    : "dialog-information-symbolic");
  if (warning)
    gtk_widget_add_css_class (self->box, "warning");
  else
    gtk_widget_remove_css_class (self->box, "warning");
  gtk_revealer_set_reveal_child (self->revealer, TRUE);
  gtk_widget_set_visible (GTK_WIDGET (self), TRUE);
}

GtkWidget *
sp_reload_bar_add_button (SpReloadBar *self, const char *response, const char *label,
                          const char *tooltip)
{
  GtkWidget *button;

  g_return_val_if_fail (SP_IS_RELOAD_BAR (self), NULL);

  button = gtk_button_new_with_mnemonic (label);
  gtk_widget_set_valign (button, GTK_ALIGN_CENTER);
  if (tooltip != NULL)
    gtk_widget_set_tooltip_text (button, tooltip);
  g_object_set_data_full (G_OBJECT (button), "response", g_strdup (response), g_free);
  g_signal_connect_object (button, "clicked", G_CALLBACK (on_button_clicked), self, 0);
  gtk_box_append (GTK_BOX (self->buttons), button);
  return button;
}

void
sp_reload_bar_hide (SpReloadBar *self)
{
  g_return_if_fail (SP_IS_RELOAD_BAR (self));

  g_clear_pointer (&self->kind, g_free);
  gtk_revealer_set_reveal_child (self->revealer, FALSE);
  clear_buttons (self);
}

const char *
sp_reload_bar_get_kind (SpReloadBar *self)
{
  g_return_val_if_fail (SP_IS_RELOAD_BAR (self), NULL);
  return self->kind;
}

const char *
sp_reload_bar_get_message (SpReloadBar *self)
{
  g_return_val_if_fail (SP_IS_RELOAD_BAR (self), NULL);
  return self->kind != NULL ? gtk_label_get_text (self->label) : NULL;
}

static void
sp_reload_bar_dispose (GObject *object)
{
  SpReloadBar *self = SP_RELOAD_BAR (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), SP_TYPE_RELOAD_BAR);
  g_clear_pointer (&self->kind, g_free);
  G_OBJECT_CLASS (sp_reload_bar_parent_class)->dispose (object);
}

static void
sp_reload_bar_class_init (SpReloadBarClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_reload_bar_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "sp-reload-bar");
  /* The message is news about the user's text: screen readers announce
   * an alert when it appears. */
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_ALERT);

  signals[RESPONSE] = g_signal_new ("response", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                    NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-reload-bar.ui");
  gtk_widget_class_bind_template_child (widget_class, SpReloadBar, revealer);
  gtk_widget_class_bind_template_child (widget_class, SpReloadBar, box);
  gtk_widget_class_bind_template_child (widget_class, SpReloadBar, icon);
  gtk_widget_class_bind_template_child (widget_class, SpReloadBar, label);
  gtk_widget_class_bind_template_child (widget_class, SpReloadBar, buttons);
}

static void
sp_reload_bar_init (SpReloadBar *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

SpReloadBar *
sp_reload_bar_new (void)
{
  return g_object_new (SP_TYPE_RELOAD_BAR, NULL);
}
