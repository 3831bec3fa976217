/* sp-page.c: one file's page of a window (sp-page.h). */
#define G_LOG_DOMAIN "sp-page"

#include "config.h"

#include "sp-indenter.h"
#include "sp-page.h"
#include "sp-tab-indent.h"

struct _SpPage
{
  GtkWidget parent_instance;

  /* template */
  SpFileChangeBar *file_bar;
  SpReloadBar *autosave_bar;
  SpHiddenBar *hidden_bar;
  SpSplit *split;
  GtkSourceView *source_view;
  SpExecPanel *exec_panel;

  GCancellable *decode_cancellable; /* the shown run's images */
  SpImageBudget *image_budget;      /* their decoded pixels, bounded */
};

G_DEFINE_FINAL_TYPE (SpPage, sp_page, GTK_TYPE_WIDGET)

static void
sp_page_dispose (GObject *object)
{
  GtkWidget *child;

  SpPage *self = SP_PAGE (object);

  if (self->decode_cancellable != NULL)
    g_cancellable_cancel (self->decode_cancellable);
  g_clear_object (&self->decode_cancellable);
  g_clear_object (&self->image_budget);
  gtk_widget_dispose_template (GTK_WIDGET (object), SP_TYPE_PAGE);
  /* And the bars added since (sp_page_add_bar). */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (object))) != NULL)
    gtk_widget_unparent (child);
  G_OBJECT_CLASS (sp_page_parent_class)->dispose (object);
}

static void
sp_page_class_init (SpPageClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_page_dispose;

  g_type_ensure (GTK_SOURCE_TYPE_VIEW);
  g_type_ensure (SP_TYPE_EXEC_PANEL);
  g_type_ensure (SP_TYPE_SPLIT);
  g_type_ensure (SP_TYPE_RELOAD_BAR);
  g_type_ensure (SP_TYPE_FILE_CHANGE_BAR);
  g_type_ensure (SP_TYPE_HIDDEN_BAR);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-page.ui");
  gtk_widget_class_bind_template_child (widget_class, SpPage, file_bar);
  gtk_widget_class_bind_template_child (widget_class, SpPage, autosave_bar);
  gtk_widget_class_bind_template_child (widget_class, SpPage, hidden_bar);
  gtk_widget_class_bind_template_child (widget_class, SpPage, split);
  gtk_widget_class_bind_template_child (widget_class, SpPage, source_view);
  gtk_widget_class_bind_template_child (widget_class, SpPage, exec_panel);
}

static void
sp_page_init (SpPage *self)
{
  g_autoptr (GtkSourceIndenter) indenter = sp_indenter_new ();

  gtk_widget_init_template (GTK_WIDGET (self));
  /* The editor's smart indentation (Python, JavaScript, Bash), Tab and
   * Shift+Tab on selected lines, and the hidden-characters bar looking at
   * its text. */
  gtk_source_view_set_indenter (self->source_view, indenter);
  g_object_bind_property (self->source_view, "buffer", self->hidden_bar, "buffer",
                          G_BINDING_SYNC_CREATE);
  sp_tab_indent_attach (self->source_view);
  self->decode_cancellable = g_cancellable_new ();
  self->image_budget = sp_image_budget_new (SP_IMAGE_BUDGET_RUN_PIXELS,
                                            SP_IMAGE_BUDGET_WINDOW_PIXELS);
}

GtkSourceView *
sp_page_get_source_view (SpPage *self)
{
  g_return_val_if_fail (SP_IS_PAGE (self), NULL);
  return self->source_view;
}

SpExecPanel *
sp_page_get_exec_panel (SpPage *self)
{
  g_return_val_if_fail (SP_IS_PAGE (self), NULL);
  return self->exec_panel;
}

SpSplit *
sp_page_get_split (SpPage *self)
{
  g_return_val_if_fail (SP_IS_PAGE (self), NULL);
  return self->split;
}

SpFileChangeBar *
sp_page_get_file_bar (SpPage *self)
{
  g_return_val_if_fail (SP_IS_PAGE (self), NULL);
  return self->file_bar;
}

SpReloadBar *
sp_page_get_autosave_bar (SpPage *self)
{
  g_return_val_if_fail (SP_IS_PAGE (self), NULL);
  return self->autosave_bar;
}

SpHiddenBar *
sp_page_get_hidden_bar (SpPage *self)
{
  g_return_val_if_fail (SP_IS_PAGE (self), NULL);
  return self->hidden_bar;
}

void
sp_page_add_bar (SpPage *self, GtkWidget *bar)
{
  g_return_if_fail (SP_IS_PAGE (self));
  g_return_if_fail (GTK_IS_WIDGET (bar));
  gtk_widget_insert_after (bar, GTK_WIDGET (self), GTK_WIDGET (self->autosave_bar));
}

void
sp_page_begin_run_images (SpPage *self)
{
  g_return_if_fail (SP_IS_PAGE (self));
  if (self->image_budget == NULL)
    return; /* disposed */
  g_cancellable_cancel (self->decode_cancellable);
  g_clear_object (&self->decode_cancellable);
  self->decode_cancellable = g_cancellable_new ();
  sp_image_budget_begin_run (self->image_budget);
}

void
sp_page_add_images (SpPage *self, GPtrArray *items)
{
  g_return_if_fail (SP_IS_PAGE (self));
  g_return_if_fail (items != NULL);
  if (self->image_budget == NULL)
    return; /* disposed */
  sp_exec_panel_add_images (self->exec_panel, items, self->image_budget, self->decode_cancellable);
}
