/* sp-preferences-window.c: edits the app's settings, bound both ways so
 * a change elsewhere (another window, dconf) shows here at once. */
#define G_LOG_DOMAIN "sp-preferences-window"

#include "config.h"

#include "sp-preferences-window.h"

struct _SpPreferencesWindow
{
  AdwPreferencesWindow parent_instance;

  GSettings *settings;

  GtkSpinButton *timeout_spin;
  GtkSpinButton *memory_spin;
  GtkSpinButton *output_spin;
  GtkSwitch *network_switch;
  GtkFontButton *font_button;
  AdwComboRow *style_row;
  AdwEntryRow *index_url_row;
  AdwEntryRow *find_links_row;
  AdwEntryRow *allow_row;
  AdwEntryRow *block_row;
  GtkSwitch *pins_switch;
};

G_DEFINE_FINAL_TYPE (SpPreferencesWindow, sp_preferences_window, ADW_TYPE_PREFERENCES_WINDOW)

static const char *const style_ids[] = { "system", "light", "dark" };

static gboolean
style_get (GValue *value, GVariant *variant, gpointer user_data)
{
  const char *id = g_variant_get_string (variant, NULL);

  for (guint i = 0; i < G_N_ELEMENTS (style_ids); i++)
    if (g_str_equal (id, style_ids[i]))
      {
        g_value_set_uint (value, i);
        return TRUE;
      }
  g_value_set_uint (value, 0);
  return TRUE;
}

static GVariant *
style_set (const GValue *value, const GVariantType *type, gpointer user_data)
{
  guint i = g_value_get_uint (value);

  return g_variant_new_string (style_ids[i < G_N_ELEMENTS (style_ids) ? i : 0]);
}

/* Package name patterns never hold spaces: a list is words in one row. */
static gboolean
patterns_get (GValue *value, GVariant *variant, gpointer user_data)
{
  g_autofree const char **patterns = g_variant_get_strv (variant, NULL);

  g_value_take_string (value, g_strjoinv (" ", (char **) patterns));
  return TRUE;
}

static GVariant *
patterns_set (const GValue *value, const GVariantType *type, gpointer user_data)
{
  const char *text = g_value_get_string (value);
  g_auto (GStrv) words = g_strsplit_set (text != NULL ? text : "", " \t,", -1);
  g_autoptr (GStrvBuilder) builder = g_strv_builder_new ();
  g_auto (GStrv) patterns = NULL;

  for (guint i = 0; words[i] != NULL; i++)
    if (words[i][0] != '\0')
      g_strv_builder_add (builder, words[i]);
  patterns = g_strv_builder_end (builder);
  return g_variant_new_strv ((const char *const *) patterns, -1);
}

static void
sp_preferences_window_dispose (GObject *object)
{
  SpPreferencesWindow *self = SP_PREFERENCES_WINDOW (object);

  gtk_widget_dispose_template (GTK_WIDGET (self), SP_TYPE_PREFERENCES_WINDOW);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (sp_preferences_window_parent_class)->dispose (object);
}

static void
sp_preferences_window_class_init (SpPreferencesWindowClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_preferences_window_dispose;
  gtk_widget_class_set_template_from_resource (
    widget_class, "/io/github/sandpad/Sandpad/sp-preferences-window.ui");
  gtk_widget_class_bind_template_child (widget_class, SpPreferencesWindow, timeout_spin);
  gtk_widget_class_bind_template_child (widget_class, SpPreferencesWindow, memory_spin);
  gtk_widget_class_bind_template_child (widget_class, SpPreferencesWindow, output_spin);
  gtk_widget_class_bind_template_child (widget_class, SpPreferencesWindow, network_switch);
  gtk_widget_class_bind_template_child (widget_class, SpPreferencesWindow, font_button);
  gtk_widget_class_bind_template_child (widget_class, SpPreferencesWindow, style_row);
  gtk_widget_class_bind_template_child (widget_class, SpPreferencesWindow, index_url_row);
  gtk_widget_class_bind_template_child (widget_class, SpPreferencesWindow, find_links_row);
  gtk_widget_class_bind_template_child (widget_class, SpPreferencesWindow, allow_row);
  gtk_widget_class_bind_template_child (widget_class, SpPreferencesWindow, block_row);
  gtk_widget_class_bind_template_child (widget_class, SpPreferencesWindow, pins_switch);
}

static void
sp_preferences_window_init (SpPreferencesWindow *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}

GtkWidget *
sp_preferences_window_new (GSettings *settings)
{
  SpPreferencesWindow *self;

  g_return_val_if_fail (G_IS_SETTINGS (settings), NULL);

  self = g_object_new (SP_TYPE_PREFERENCES_WINDOW, NULL);
  self->settings = g_object_ref (settings);
  g_settings_bind (settings, "run-timeout-seconds",
                   gtk_spin_button_get_adjustment (self->timeout_spin), "value",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "memory-limit-mib", gtk_spin_button_get_adjustment (self->memory_spin),
                   "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "output-limit-mib", gtk_spin_button_get_adjustment (self->output_spin),
                   "value", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "network-allowed", self->network_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "editor-font", self->font_button, "font", G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (settings, "style-variant", self->style_row, "selected",
                                G_SETTINGS_BIND_DEFAULT, style_get, style_set, NULL, NULL);
  /* What `sandpad-run --install` gets from the Packages dialog. */
  g_settings_bind (settings, "install-index-url", self->index_url_row, "text",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind (settings, "install-find-links", self->find_links_row, "text",
                   G_SETTINGS_BIND_DEFAULT);
  g_settings_bind_with_mapping (settings, "install-allow", self->allow_row, "text",
                                G_SETTINGS_BIND_DEFAULT, patterns_get, patterns_set, NULL, NULL);
  g_settings_bind_with_mapping (settings, "install-block", self->block_row, "text",
                                G_SETTINGS_BIND_DEFAULT, patterns_get, patterns_set, NULL, NULL);
  g_settings_bind (settings, "install-require-pins", self->pins_switch, "active",
                   G_SETTINGS_BIND_DEFAULT);
  return GTK_WIDGET (self);
}
