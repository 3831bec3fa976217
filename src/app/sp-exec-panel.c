/* sp-exec-panel.c: the execution panel beside the editor. */
#define G_LOG_DOMAIN "sp-exec-panel"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-ansi.h"
#include "sp-exec-panel.h"
#include "sp-output-item.h"

struct _SpExecPanel
{
  GtkWidget parent_instance;

  GtkWidget *box;
  GtkSpinner *spinner;
  GtkLabel *status_label;
  GtkLabel *policy_label;
  GtkScrolledWindow *scroller;
  GtkListView *output_view;
  GtkEntry *input_entry;

  GListModel *output;
  gboolean running;
  gint64 started_at;
  guint tick_id;
  /* Follow new output only while the user has not scrolled up. */
  gboolean stick_to_bottom;
};

G_DEFINE_FINAL_TYPE (SpExecPanel, sp_exec_panel, GTK_TYPE_WIDGET)

enum
{
  INPUT,
  CLEAR,
  GOTO_LINE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* A row is a box holding a text label, a picture and an error block;
 * bind shows the one the item needs. */
static void
setup_row (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  GtkWidget *box = gtk_box_new (GTK_ORIENTATION_VERTICAL, 4);
  GtkWidget *label = gtk_label_new (NULL);
  GtkWidget *picture = gtk_picture_new ();
  GtkWidget *frames = gtk_flow_box_new ();

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_label_set_selectable (GTK_LABEL (label), TRUE);
  gtk_widget_add_css_class (label, "output");
  gtk_picture_set_can_shrink (GTK_PICTURE (picture), TRUE);
  gtk_picture_set_content_fit (GTK_PICTURE (picture), GTK_CONTENT_FIT_CONTAIN);
  gtk_widget_set_size_request (picture, -1, 240);
  gtk_flow_box_set_selection_mode (GTK_FLOW_BOX (frames), GTK_SELECTION_NONE);
  gtk_box_append (GTK_BOX (box), label);
  gtk_box_append (GTK_BOX (box), picture);
  gtk_box_append (GTK_BOX (box), frames);
  gtk_list_item_set_child (item, box);
  gtk_list_item_set_activatable (item, FALSE);
}

static void
on_frame_clicked (GtkButton *button, SpExecPanel *self)
{
  int line = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "line"));

  g_signal_emit (self, signals[GOTO_LINE], 0, line);
}

static void
bind_error (SpExecPanel *self, GtkWidget *frames, SpErrorInfo *error)
{
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (frames)) != NULL)
    gtk_flow_box_remove (GTK_FLOW_BOX (frames), child);
  /* Innermost first: where it broke, then how it got there. */
  for (guint i = sp_error_info_get_n_frames (error); i > 0; i--)
    {
      const SpErrorFrame *frame = sp_error_info_get_frame (error, i - 1);
      g_autofree char *text = NULL;
      GtkWidget *button;

      if (!frame->in_snippet)
        continue;
      text = frame->function ? g_strdup_printf (_("Line %d, in %s"), frame->line, frame->function)
                             : g_strdup_printf (_("Line %d"), frame->line);
      button = gtk_button_new_with_label (text);
      gtk_widget_add_css_class (button, "flat");
      gtk_widget_set_tooltip_text (button, _("Show this line in the editor"));
      g_object_set_data (G_OBJECT (button), "line", GINT_TO_POINTER (frame->line));
      g_signal_connect_object (button, "clicked", G_CALLBACK (on_frame_clicked), self, 0);
      gtk_flow_box_append (GTK_FLOW_BOX (frames), button);
    }
}

static void
bind_row (GtkSignalListItemFactory *factory, GtkListItem *item, SpExecPanel *self)
{
  SpOutputItem *output = gtk_list_item_get_item (item);
  GtkWidget *box = gtk_list_item_get_child (item);
  GtkWidget *label = gtk_widget_get_first_child (box);
  GtkWidget *picture = gtk_widget_get_next_sibling (label);
  GtkWidget *frames = gtk_widget_get_next_sibling (picture);
  SpOutputKind kind = sp_output_item_get_kind (output);
  const char *text = sp_output_item_get_text (output);
  gsize len = strlen (text);
  const char *description = _("Standard output");

  gtk_widget_set_visible (label, kind != SP_OUTPUT_IMAGE);
  gtk_widget_set_visible (picture, kind == SP_OUTPUT_IMAGE);
  gtk_widget_set_visible (frames, kind == SP_OUTPUT_ERROR);
  gtk_widget_remove_css_class (label, "stderr");
  gtk_widget_remove_css_class (label, "notice");
  gtk_widget_remove_css_class (label, "error-title");

  if (kind == SP_OUTPUT_IMAGE)
    {
      gtk_picture_set_filename (GTK_PICTURE (picture), text);
      gtk_picture_set_alternative_text (GTK_PICTURE (picture), sp_output_item_get_label (output));
      gtk_accessible_update_property (GTK_ACCESSIBLE (picture), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                      sp_output_item_get_label (output), -1);
      return;
    }
  gtk_picture_set_paintable (GTK_PICTURE (picture), NULL);

  /* A trailing newline would show as an empty line under every chunk. */
  g_autofree char *trimmed = g_strndup (text, len > 0 && text[len - 1] == '\n' ? len - 1 : len);
  if (sp_ansi_has_escapes (trimmed))
    {
      /* Colours become markup; other escape sequences are shown, inert. */
      g_autofree char *markup = sp_ansi_to_markup (trimmed);
      gtk_label_set_markup (GTK_LABEL (label), markup);
    }
  else
    gtk_label_set_text (GTK_LABEL (label), trimmed);

  if (kind == SP_OUTPUT_STDERR)
    {
      gtk_widget_add_css_class (label, "stderr");
      description = _("Standard error");
    }
  else if (kind == SP_OUTPUT_NOTICE)
    {
      gtk_widget_add_css_class (label, "notice");
      description = _("Notice");
    }
  else if (kind == SP_OUTPUT_ERROR)
    {
      gtk_widget_add_css_class (label, "error-title");
      description = _("Error");
      bind_error (self, frames, sp_output_item_get_error (output));
    }
  /* Colour alone does not reach everyone: say which stream it is. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (label), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  description, -1);
}

static void
scroll_to_end (SpExecPanel *self)
{
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->scroller);

  gtk_adjustment_set_value (adj, gtk_adjustment_get_upper (adj)
                                   - gtk_adjustment_get_page_size (adj));
}

static void
on_upper_changed (GtkAdjustment *adj, GParamSpec *pspec, SpExecPanel *self)
{
  if (self->stick_to_bottom)
    scroll_to_end (self);
}

static void
on_value_changed (GtkAdjustment *adj, SpExecPanel *self)
{
  double bottom = gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj);

  self->stick_to_bottom = gtk_adjustment_get_value (adj) >= bottom - 4;
}

static gboolean
tick (gpointer user_data)
{
  SpExecPanel *self = user_data;
  double seconds = (g_get_monotonic_time () - self->started_at) / (double) G_USEC_PER_SEC;
  g_autofree char *text = g_strdup_printf (_("Running… %.1f s"), seconds);

  gtk_label_set_text (self->status_label, text);
  return G_SOURCE_CONTINUE;
}

static void
on_input_activate (GtkEntry *entry, SpExecPanel *self)
{
  const char *text = gtk_editable_get_text (GTK_EDITABLE (entry));

  g_signal_emit (self, signals[INPUT], 0, text);
  gtk_editable_set_text (GTK_EDITABLE (entry), "");
}

static void
on_clear (GtkWidget *widget, const char *action_name, GVariant *param)
{
  g_signal_emit (widget, signals[CLEAR], 0);
}

static void
sp_exec_panel_dispose (GObject *object)
{
  SpExecPanel *self = SP_EXEC_PANEL (object);

  g_clear_handle_id (&self->tick_id, g_source_remove);
  g_clear_object (&self->output);
  gtk_widget_dispose_template (GTK_WIDGET (self), SP_TYPE_EXEC_PANEL);
  G_OBJECT_CLASS (sp_exec_panel_parent_class)->dispose (object);
}

static void
sp_exec_panel_class_init (SpExecPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_exec_panel_dispose;

  /* The user typed a line for the program (without its newline). */
  signals[INPUT] = g_signal_new ("input", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                 NULL, NULL, G_TYPE_NONE, 1, G_TYPE_STRING);
  /* The user asked to clear the output. */
  signals[CLEAR] = g_signal_new ("clear", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                 NULL, NULL, G_TYPE_NONE, 0);
  /* The user picked a frame of an error: show that line (1-based). */
  signals[GOTO_LINE] = g_signal_new ("goto-line", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);

  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-exec-panel.ui");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, box);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, spinner);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, status_label);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, policy_label);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, scroller);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, output_view);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, input_entry);
  gtk_widget_class_install_action (widget_class, "panel.clear", NULL, on_clear);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sp_exec_panel_init (SpExecPanel *self)
{
  g_autoptr (GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  GtkAdjustment *adj;

  gtk_widget_init_template (GTK_WIDGET (self));
  self->stick_to_bottom = TRUE;

  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), NULL);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), self);
  gtk_list_view_set_factory (self->output_view, factory);
  /* Output is a log: screen readers announce additions politely. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->output_view),
                                  GTK_ACCESSIBLE_PROPERTY_DESCRIPTION, _("Program output"), -1);

  adj = gtk_scrolled_window_get_vadjustment (self->scroller);
  g_signal_connect_object (adj, "notify::upper", G_CALLBACK (on_upper_changed), self, 0);
  g_signal_connect_object (adj, "value-changed", G_CALLBACK (on_value_changed), self, 0);
  g_signal_connect_object (self->input_entry, "activate", G_CALLBACK (on_input_activate), self, 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "panel.clear", FALSE);
}

GtkWidget *
sp_exec_panel_new (void)
{
  return g_object_new (SP_TYPE_EXEC_PANEL, NULL);
}

void
sp_exec_panel_set_output (SpExecPanel *self, GListModel *output)
{
  g_autoptr (GtkNoSelection) selection = NULL;

  g_return_if_fail (SP_IS_EXEC_PANEL (self));
  g_return_if_fail (output == NULL || G_IS_LIST_MODEL (output));

  if (!g_set_object (&self->output, output))
    return;
  if (output != NULL)
    selection = gtk_no_selection_new (g_object_ref (output));
  gtk_list_view_set_model (self->output_view, GTK_SELECTION_MODEL (selection));
  self->stick_to_bottom = TRUE;
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "panel.clear", output != NULL);
}

GListModel *
sp_exec_panel_get_output (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return self->output;
}

void
sp_exec_panel_set_policy (SpExecPanel *self, const char *text)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));
  gtk_label_set_text (self->policy_label, text ? text : "");
}

void
sp_exec_panel_set_running (SpExecPanel *self, gboolean running)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  running = !!running;
  if (self->running == running)
    return;
  self->running = running;
  gtk_spinner_set_spinning (self->spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (self->input_entry), running);
  g_clear_handle_id (&self->tick_id, g_source_remove);
  gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");
  if (running)
    {
      self->started_at = g_get_monotonic_time ();
      self->tick_id = g_timeout_add (100, tick, self);
      tick (self);
    }
}

void
sp_exec_panel_set_status (SpExecPanel *self, const char *text, gboolean is_error)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  sp_exec_panel_set_running (self, FALSE);
  gtk_label_set_text (self->status_label, text);
  if (is_error)
    gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");
}

GtkEntry *
sp_exec_panel_get_input_entry (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return self->input_entry;
}
