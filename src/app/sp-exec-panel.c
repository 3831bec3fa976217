/* sp-exec-panel.c: the execution panel beside the editor.
 *
 * It shows the model it is given (the window's run's, the declared
 * packages' install), and by itself an assistant's edit_and_execute of
 * the window's file (sp_exec_panel_follow_activity): what is the file's
 * and what is new in its output is SpActivityFollow's (core); the panel
 * shows it, a frame at a time. */
#define G_LOG_DOMAIN "sp-exec-panel"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sp-exec-panel.h"
#include "sp-file-dialog.h"
#include "sp-image-loader.h"
#include "sp-output-item.h"
#include "sp-output-model.h"
#include "sp-output-row.h"
#include "sp-run-file.h"
#include "sp-transcript.h"

struct _SpExecPanel
{
  GtkWidget parent_instance;

  GtkWidget *box;
  GtkSpinner *spinner;
  GtkLabel *status_label;
  /* What follows a run's end on the status line ("— Output changed
   * since the last run: …"), in the text's colour when the end is red. */
  GtkLabel *status_detail;
  char *status_text; /* the whole line while status_detail shows */
  GtkButton *status_action;
  SpPolicyCard *policy_card;
  SpTranscript *transcript;
  GtkEntry *input_entry;

  GListModel *output;
  /* The snippet's name in the run (main.py) and the user's name for it,
   * to make error text link to the editor. */
  char *snippet_name;
  char *display_name;
  GFile *save_folder; /* where Save As starts; NULL: the home folder */
  /* Previews and saves of the run's files, cancelled in dispose: the
   * panel outlives its rows. */
  GCancellable *reads;
  SpImageLoader *images; /* decodes the images in view */
  gboolean running;
  /* The program waits for input (its time limit stands still), and
   * whether the input line has the keyboard: the cue names the shortcut
   * while it has not. */
  gboolean waiting;
  gboolean input_focused;
  guint timeout_s;
  /* A compiled language's compile step, and its own limit: the status
   * counts it apart, then the program's time from the program's start. */
  gboolean compiling;
  guint compile_timeout_s;
  /* The runner said the run started: before, it is only asked for (queued,
   * its sandbox being made), and what comes first is not known yet. */
  gboolean run_started;
  gint64 started_at;
  guint tick_id;

  /* An assistant's run of the window's file: its following (core), the
   * window's own runs (never hidden by it), and a run whose journal lines
   * came since the last frame, shown on the next one (a tick callback),
   * once however many lines came. */
  SpActivityFollow *follow;
  SpRunController *runs;
  SpActivityRun *follow_changed;
  guint follow_tick_id;
};

G_DEFINE_FINAL_TYPE (SpExecPanel, sp_exec_panel, GTK_TYPE_WIDGET)

enum
{
  INPUT,
  CLEAR,
  GOTO_LINE,
  OPEN_FILE,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Feedback where the window shows it (the toast overlay around us). */
static void
panel_toast (SpExecPanel *self, const char *text)
{
  GtkWidget *overlay = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_TOAST_OVERLAY);

  if (overlay != NULL)
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), adw_toast_new (text));
}

/* A save on its way: the panel to say how it went in, and the name saved
 * as (and, while a folded line is read for it, the file). */
typedef struct
{
  SpExecPanel *self;
  char *name;
  GFile *dest;
} SaveDone;

static void
save_done_free (SaveDone *done)
{
  g_object_unref (done->self);
  g_free (done->name);
  g_clear_object (&done->dest);
  g_free (done);
}

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SaveDone, save_done_free)

static void
on_saved (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SaveDone) done = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *message = NULL;

  gboolean ok = G_IS_FILE (source)
                  ? g_file_replace_contents_finish (G_FILE (source), result, NULL, &error)
                  : sp_run_file_save_finish (result, &error);

  if (ok)
    message = g_strdup_printf (_ ("Saved as %s"), done->name);
  else if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  else
    message = g_strdup_printf (_ ("Could not save %s: %s"), done->name, error->message);
  panel_toast (done->self, message);
}

/* What Save As… was asked for, until the dialog answers. */
typedef struct
{
  SpExecPanel *self;
  SpOutputItem *item;
} SaveAs;

static void
on_save_chosen (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SaveAs *save_as = user_data;
  g_autoptr (SpExecPanel) self = save_as->self;
  g_autoptr (SpOutputItem) item = save_as->item;
  g_autoptr (GFile) dest = sp_file_dialog_choose_finish (result, NULL);

  g_free (save_as);
  if (dest != NULL)
    {
      SaveDone *done = g_new0 (SaveDone, 1);

      done->self = g_object_ref (self);
      done->name = g_file_get_basename (dest);
      /* The bytes of a regular file of the run, read through an fd that
       * followed no symlink: never a link (g_file_copy with
       * NOFOLLOW_SYMLINKS made report.csv -> ../.bashrc a link in the
       * person's folder, issue 29). */
      if (sp_output_item_get_bytes (item) != NULL)
        /* A display result the app holds: its bytes, as they came. */
        g_file_replace_contents_bytes_async (dest, sp_output_item_get_bytes (item), NULL, FALSE,
                                             G_FILE_CREATE_REPLACE_DESTINATION, self->reads,
                                             on_saved, done);
      else
        sp_run_file_save_async (sp_output_item_get_dir (item), sp_output_item_get_name (item), dest,
                                self->reads, on_saved, done);
    }
}

/* Save As of a run's file, asked for by its row: here, since the save
 * outlives the row (the list view drops rows as it likes) and starts in
 * the panel's folder. */
static void
on_row_save_file (SpOutputRow *row, SpOutputItem *item, SpExecPanel *self)
{
  GtkWindow *parent = GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self)));
  g_autofree char *base = g_path_get_basename (sp_output_item_get_label (item));
  g_autoptr (GFile) home = g_file_new_for_path (g_get_home_dir ());
  SaveAs *save_as = g_new0 (SaveAs, 1);

  save_as->self = g_object_ref (self);
  save_as->item = g_object_ref (item);
  /* The snippet's folder, or home: never the app's working directory
   * (and never the run's, which goes away with the next run). */
  sp_file_dialog_choose_async (parent, SP_FILE_DIALOG_SAVE, _ ("Save File"), _ ("_Save"),
                               self->save_folder ? self->save_folder : home, base, NULL,
                               on_save_chosen, save_as);
}

static void
on_row_open_file (SpOutputRow *row, SpOutputItem *item, SpExecPanel *self)
{
  g_signal_emit (self, signals[OPEN_FILE], 0, item);
}

static void
on_row_goto_line (SpOutputRow *row, int line, SpExecPanel *self)
{
  g_signal_emit (self, signals[GOTO_LINE], 0, line);
}

static void
on_row_show_image (SpOutputRow *row, SpOutputItem *item, SpExecPanel *self)
{
  sp_image_loader_show (self->images, item);
}

/* ---- a folded line's whole text (sp-fold-bar.h) ---- */

/* The model rows of the panel come from, which keeps every line whole. */
static SpOutputModel *
line_model (SpExecPanel *self)
{
  return SP_IS_OUTPUT_MODEL (self->output) ? SP_OUTPUT_MODEL (self->output) : NULL;
}

static void
on_line_copied (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpExecPanel) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = sp_output_model_read_line_finish (SP_OUTPUT_MODEL (source), result,
                                                               &error);
  g_autofree char *text = NULL;
  g_autofree char *message = NULL;
  gsize len = 0;
  const char *data;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (bytes == NULL)
    {
      message = g_strdup_printf (_ ("Could not copy the line: %s"), error->message);
      panel_toast (self, message);
      return;
    }
  data = g_bytes_get_data (bytes, &len);
  text = g_strndup (data, len);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), text);
  panel_toast (self, _ ("Line copied"));
}

/* Copy Line under a folded line: the whole line, read from the model's
 * store off the main thread (it may be tens of megabytes). */
static void
on_row_copy_line (SpOutputRow *row, SpOutputItem *item, SpExecPanel *self)
{
  if (line_model (self) == NULL)
    return;
  sp_output_model_read_line_async (line_model (self), item, self->reads, on_line_copied,
                                   g_object_ref (self));
}

static void
on_line_read_for_save (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SaveDone) done = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = sp_output_model_read_line_finish (SP_OUTPUT_MODEL (source), result,
                                                               &error);
  g_autofree char *message = NULL;
  GFile *dest;

  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  if (bytes == NULL)
    {
      message = g_strdup_printf (_ ("Could not save %s: %s"), done->name, error->message);
      panel_toast (done->self, message);
      return;
    }
  dest = done->dest;
  g_file_replace_contents_bytes_async (dest, bytes, NULL, FALSE, G_FILE_CREATE_REPLACE_DESTINATION,
                                       done->self->reads, on_saved, g_steal_pointer (&done));
}

static void
on_line_save_chosen (GObject *source, GAsyncResult *result, gpointer user_data)
{
  SaveAs *save_as = user_data;
  g_autoptr (SpExecPanel) self = save_as->self;
  g_autoptr (SpOutputItem) item = save_as->item;
  g_autoptr (GFile) dest = sp_file_dialog_choose_finish (result, NULL);
  SaveDone *done;

  g_free (save_as);
  if (dest == NULL || line_model (self) == NULL)
    return;
  done = g_new0 (SaveDone, 1);
  done->self = g_object_ref (self);
  done->name = g_file_get_basename (dest);
  done->dest = g_object_ref (dest);
  sp_output_model_read_line_async (line_model (self), item, self->reads, on_line_read_for_save,
                                   done);
}

/* Save Line As… under a folded line. */
static void
on_row_save_line (SpOutputRow *row, SpOutputItem *item, SpExecPanel *self)
{
  GtkWindow *parent = GTK_WINDOW (gtk_widget_get_root (GTK_WIDGET (self)));
  g_autoptr (GFile) home = g_file_new_for_path (g_get_home_dir ());
  SaveAs *save_as = g_new0 (SaveAs, 1);

  save_as->self = g_object_ref (self);
  save_as->item = g_object_ref (item);
  sp_file_dialog_choose_async (parent, SP_FILE_DIALOG_SAVE, _ ("Save Line"), _ ("_Save"),
                               self->save_folder ? self->save_folder : home, "line.txt", NULL,
                               on_line_save_chosen, save_as);
}

/* A row is an SpOutputRow; the list view makes up to 200 and reuses
 * them, so the panel's part is when to bind (and bind again) and what
 * the row asks for. */
static void
setup_row (GtkSignalListItemFactory *factory, GtkListItem *item, gpointer user_data)
{
  SpExecPanel *self = user_data;
  GtkWidget *row = sp_output_row_new (self->reads);

  g_signal_connect_object (row, "goto-line", G_CALLBACK (on_row_goto_line), self, 0);
  g_signal_connect_object (row, "open-file", G_CALLBACK (on_row_open_file), self, 0);
  g_signal_connect_object (row, "save-file", G_CALLBACK (on_row_save_file), self, 0);
  g_signal_connect_object (row, "show-image", G_CALLBACK (on_row_show_image), self, 0);
  g_signal_connect_object (row, "copy-line", G_CALLBACK (on_row_copy_line), self, 0);
  g_signal_connect_object (row, "save-line", G_CALLBACK (on_row_save_line), self, 0);
  gtk_list_item_set_child (item, row);
  gtk_list_item_set_activatable (item, FALSE);
  /* The row rebinds itself when its image arrives; the panel outlives
   * its rows. */
  g_object_set_data (G_OBJECT (item), "panel", user_data);
}

static void bind_row (GtkSignalListItemFactory *factory, GtkListItem *item, SpExecPanel *self);

static void
on_item_image (SpOutputItem *output, GParamSpec *pspec, GtkListItem *item)
{
  bind_row (NULL, item, g_object_get_data (G_OBJECT (item), "panel"));
}

/* A text row grew or took other text: shown now, or once it may be seen
 * when it lies out of sight (the transcript says, and emits "rebind"). */
static void
on_item_text (SpOutputItem *output, GParamSpec *pspec, GtkListItem *item)
{
  SpExecPanel *self = g_object_get_data (G_OBJECT (item), "panel");

  if (sp_transcript_defer_rebind (self->transcript, item))
    return;
  bind_row (NULL, item, self);
}

static void
on_rebind (SpTranscript *transcript, GtkListItem *item, SpExecPanel *self)
{
  if (gtk_list_item_get_item (item) != NULL)
    bind_row (NULL, item, self);
}

static void
unbind_row (GtkSignalListItemFactory *factory, GtkListItem *item, SpExecPanel *self)
{
  SpOutputItem *output = gtk_list_item_get_item (item);

  sp_transcript_forget_row (self->transcript, item);
  if (output != NULL)
    {
      g_signal_handlers_disconnect_by_func (output, on_item_image, item);
      g_signal_handlers_disconnect_by_func (output, on_item_text, item);
    }
  /* Rows are unbound as the list goes, after the loader in dispose. */
  if (self->images != NULL)
    sp_image_loader_row_unbound (self->images, item);
}

/* factory is NULL when the item changed under a bound row (its image
 * came, its text grew) rather than the list view binding it. */
static void
bind_row (GtkSignalListItemFactory *factory, GtkListItem *item, SpExecPanel *self)
{
  SpOutputItem *output = gtk_list_item_get_item (item);
  SpOutputKind kind = sp_output_item_get_kind (output);

  if (factory != NULL)
    {
      /* Images are decoded as they come into view: the loader watches
       * where the rows are. */
      if (self->images != NULL)
        sp_image_loader_row_bound (self->images, item);
      /* Likewise a text row that grows as the program writes, and an
       * image row follows the item's image, until the row is unbound. */
      if (kind == SP_OUTPUT_STDOUT || kind == SP_OUTPUT_STDERR)
        g_signal_connect (output, "notify::text", G_CALLBACK (on_item_text), item);
      else if (kind == SP_OUTPUT_IMAGE)
        g_signal_connect (output, "notify::image", G_CALLBACK (on_item_image), item);
      /* A text row far from the end while the view keeps to it: its text
       * comes when it may be seen (the transcript emits "rebind"). */
      if ((kind == SP_OUTPUT_STDOUT || kind == SP_OUTPUT_STDERR)
          && sp_transcript_defer_bind (self->transcript, item))
        {
          /* Until then the recycled row still holds the item it showed
           * before: the list view may bring it into sight in this very
           * frame's layout (the view lags the end under load), and a
           * stale line must never be painted among the new ones. Kept
           * in the layout, so nothing jumps; not drawn. */
          gtk_widget_set_child_visible (gtk_list_item_get_child (item), FALSE);
          return;
        }
    }
  sp_output_row_bind (SP_OUTPUT_ROW (gtk_list_item_get_child (item)), output, self->snippet_name,
                      self->display_name);
  gtk_widget_set_child_visible (gtk_list_item_get_child (item), TRUE);
}

/* The colours of output depend on light or dark: bind every row again. */
static void
on_dark_changed (SpExecPanel *self)
{
  g_autoptr (GListModel) output = self->output ? g_object_ref (self->output) : NULL;

  if (output == NULL)
    return;
  sp_exec_panel_set_output (self, NULL);
  sp_exec_panel_set_output (self, output);
}

static gboolean
tick (gpointer user_data)
{
  SpExecPanel *self = user_data;
  double seconds = (g_get_monotonic_time () - self->started_at) / (double) G_USEC_PER_SEC;
  g_autofree char *text = NULL;

  if (self->waiting && !self->input_focused)
    /* TRANSLATORS: seconds so far, then the time limit in seconds; Ctrl+I
     * is the shortcut to the input line */
    text = g_strdup_printf (_ ("Waiting for input… %.1f s: Ctrl+I to type it; the %u s time "
                               "limit is paused"),
                            seconds, self->timeout_s);
  else if (self->waiting)
    /* TRANSLATORS: seconds so far, then the time limit in seconds */
    text = g_strdup_printf (_ ("Waiting for input… %.1f s; the %u s time limit is paused"), seconds,
                            self->timeout_s);
  else if (self->compiling)
    /* TRANSLATORS: seconds so far, then the compile step's time limit in
     * seconds */
    text = g_strdup_printf (_ ("Compiling… %.1f s (limit %u s)"), seconds, self->compile_timeout_s);
  else if (!self->run_started)
    /* TRANSLATORS: seconds since Run */
    text = g_strdup_printf (_ ("Starting… %.1f s"), seconds);
  else
    text = g_strdup_printf (_ ("Running… %.1f s"), seconds);
  gtk_label_set_text (self->status_label, text);
  return G_SOURCE_CONTINUE;
}

/* What the input line and the status say about input, from whether the
 * program waits and whether the input line has the keyboard. The
 * placeholder is short enough for the narrowest panel (320 px, in the
 * monospace font): cut to "Input wanted: Ct…" it said nothing. */
static void
update_input_cue (SpExecPanel *self)
{
  GtkWidget *entry = GTK_WIDGET (self->input_entry);
  const char *placeholder;
  const char *description;

  if (!self->waiting)
    {
      placeholder = _ ("Input for the program");
      description = "";
    }
  else if (self->input_focused)
    {
      placeholder = _ ("Your input, Enter to send");
      description = _ ("The program waits for input");
    }
  else
    {
      /* TRANSLATORS: Ctrl+I is the shortcut to the input line */
      placeholder = _ ("Input wanted: Ctrl+I");
      description = _ ("The program waits for input: Ctrl+I to type it");
    }
  if (self->waiting)
    gtk_widget_add_css_class (entry, "input-wanted");
  else
    gtk_widget_remove_css_class (entry, "input-wanted");
  gtk_entry_set_placeholder_text (self->input_entry, placeholder);
  gtk_accessible_update_property (GTK_ACCESSIBLE (entry), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  description, -1);
  if (self->running)
    tick (self);
}

static void
on_input_focus (GtkEventControllerFocus *focus, GParamSpec *pspec, SpExecPanel *self)
{
  gboolean focused = gtk_event_controller_focus_contains_focus (focus);

  if (self->input_focused == focused)
    return;
  self->input_focused = focused;
  update_input_cue (self);
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
  if (self->follow_tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->follow_tick_id);
  self->follow_tick_id = 0;
  if (self->follow != NULL)
    g_signal_handlers_disconnect_by_data (self->follow, self);
  g_clear_object (&self->follow);
  g_clear_object (&self->follow_changed);
  g_clear_object (&self->runs);
  g_clear_object (&self->output);
  g_clear_pointer (&self->snippet_name, g_free);
  g_clear_pointer (&self->status_text, g_free);
  g_clear_pointer (&self->display_name, g_free);
  g_clear_object (&self->save_folder);
  if (self->reads != NULL)
    g_cancellable_cancel (self->reads);
  g_clear_object (&self->reads);
  if (self->images != NULL)
    g_object_run_dispose (G_OBJECT (self->images));
  g_clear_object (&self->images);
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
  /* The user asked to open a text file the run made (its SpOutputItem,
   * which names it by directory and name: read it with sp-run-file.h). */
  signals[OPEN_FILE] = g_signal_new ("open-file", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0,
                                     NULL, NULL, NULL, G_TYPE_NONE, 1, SP_TYPE_OUTPUT_ITEM);

  g_type_ensure (SP_TYPE_TRANSCRIPT);
  g_type_ensure (SP_TYPE_POLICY_CARD);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-exec-panel.ui");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, box);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, spinner);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, status_label);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, status_detail);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, status_action);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, policy_card);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, transcript);
  gtk_widget_class_bind_template_child (widget_class, SpExecPanel, input_entry);
  gtk_widget_class_install_action (widget_class, "panel.clear", NULL, on_clear);
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sp_exec_panel_init (SpExecPanel *self)
{
  g_autoptr (GtkListItemFactory) factory = gtk_signal_list_item_factory_new ();
  GtkListView *output_view;

  gtk_widget_init_template (GTK_WIDGET (self));
  output_view = sp_transcript_get_list_view (self->transcript);
  self->images = sp_image_loader_new ();
  self->reads = g_cancellable_new ();
  sp_image_loader_watch (self->images, output_view);

  g_signal_connect (factory, "setup", G_CALLBACK (setup_row), self);
  g_signal_connect (factory, "bind", G_CALLBACK (bind_row), self);
  g_signal_connect (factory, "unbind", G_CALLBACK (unbind_row), self);
  g_signal_connect_object (self->transcript, "rebind", G_CALLBACK (on_rebind), self, 0);
  gtk_list_view_set_factory (output_view, factory);
  /* Output is a log: screen readers announce additions politely. */
  gtk_accessible_update_property (GTK_ACCESSIBLE (output_view), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  _ ("Program output"), -1);

  g_signal_connect_object (self->input_entry, "activate", G_CALLBACK (on_input_activate), self, 0);
  {
    GtkEventController *focus = gtk_event_controller_focus_new ();

    g_signal_connect_object (focus, "notify::contains-focus", G_CALLBACK (on_input_focus), self, 0);
    gtk_widget_add_controller (GTK_WIDGET (self->input_entry), focus);
  }
  g_signal_connect_object (adw_style_manager_get_default (), "notify::dark",
                           G_CALLBACK (on_dark_changed), self, G_CONNECT_SWAPPED);
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
  g_return_if_fail (SP_IS_EXEC_PANEL (self));
  g_return_if_fail (output == NULL || G_IS_LIST_MODEL (output));

  if (!g_set_object (&self->output, output))
    return;
  sp_transcript_set_model (self->transcript, output);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "panel.clear", output != NULL);
}

GListModel *
sp_exec_panel_get_output (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return self->output;
}

static void
show_activity_run (SpExecPanel *self, SpActivityRun *run)
{
  SpOutputModel *output;
  g_autofree char *how = NULL;
  g_autofree char *status = NULL;
  gboolean fresh;

  if (sp_run_controller_get_running (self->runs) || !sp_activity_follow_is_file (self->follow, run))
    return;
  output = sp_activity_follow_get_output (self->follow);
  fresh = self->output == NULL || self->output != (GListModel *) output;
  if (sp_activity_follow_update (self->follow, run, fresh))
    {
      /* It is the run shown now; the window's last one lets its files go. */
      sp_run_controller_release (self->runs);
      sp_exec_panel_set_output (self, G_LIST_MODEL (sp_activity_follow_get_output (self->follow)));
    }
  how = sp_activity_run_describe (run);
  /* TRANSLATORS: %s says how the assistant's run ended, or that it runs */
  status = g_strdup_printf (_ ("Run by an assistant: %s"), how);
  sp_exec_panel_set_status (self, status,
                            !sp_activity_run_is_running (run)
                              && sp_activity_run_get_exit_code (run) != 0);
}

static gboolean
follow_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  SpExecPanel *self = SP_EXEC_PANEL (widget);
  g_autoptr (SpActivityRun) run = g_steal_pointer (&self->follow_changed);

  self->follow_tick_id = 0;
  if (run != NULL)
    show_activity_run (self, run);
  return G_SOURCE_REMOVE;
}

static void
on_follow_run_changed (SpActivityFollow *follow, SpActivityRun *run, SpExecPanel *self)
{
  /* Another run of the file before the frame: show the first now, so
   * none is skipped. */
  if (self->follow_changed != NULL && self->follow_changed != run)
    {
      g_autoptr (SpActivityRun) earlier = g_steal_pointer (&self->follow_changed);
      show_activity_run (self, earlier);
    }
  g_set_object (&self->follow_changed, run);
  if (self->follow_tick_id == 0)
    self->follow_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), follow_tick, NULL,
                                                         NULL);
}

void
sp_exec_panel_follow_activity (SpExecPanel *self, SpActivityFollow *follow, SpRunController *runs)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));
  g_return_if_fail (SP_IS_ACTIVITY_FOLLOW (follow));
  g_return_if_fail (SP_IS_RUN_CONTROLLER (runs));
  g_return_if_fail (self->follow == NULL);

  self->follow = g_object_ref (follow);
  self->runs = g_object_ref (runs);
  g_signal_connect (follow, "run-changed", G_CALLBACK (on_follow_run_changed), self);
}

gboolean
sp_exec_panel_shows_activity (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), FALSE);
  return self->follow != NULL && self->output != NULL
         && self->output == (GListModel *) sp_activity_follow_get_output (self->follow);
}

void
sp_exec_panel_add_images (SpExecPanel *self, GPtrArray *items, SpImageBudget *budget,
                          GCancellable *cancellable)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));
  sp_image_loader_add_items (self->images, items, budget, cancellable);
}

SpImageLoader *
sp_exec_panel_get_image_loader (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return self->images;
}

SpPolicyCard *
sp_exec_panel_get_policy_card (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return self->policy_card;
}

gboolean
sp_exec_panel_get_policy_reduced (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), FALSE);
  return sp_policy_card_get_reduced (self->policy_card);
}

char *
sp_exec_panel_get_policy_text (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return sp_policy_card_get_text (self->policy_card);
}

void
sp_exec_panel_set_running (SpExecPanel *self, gboolean running)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  running = !!running;
  if (self->running == running)
    return;
  self->running = running;
  sp_exec_panel_set_waiting (self, FALSE, 0);
  sp_exec_panel_set_compiling (self, FALSE, 0);
  gtk_spinner_set_spinning (self->spinner, running);
  gtk_widget_set_visible (GTK_WIDGET (self->input_entry), running);
  g_clear_handle_id (&self->tick_id, g_source_remove);
  gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");
  if (running)
    {
      gtk_widget_set_visible (GTK_WIDGET (self->status_detail), FALSE);
      gtk_widget_set_hexpand (GTK_WIDGET (self->status_label), TRUE);
      gtk_widget_set_visible (GTK_WIDGET (self->status_action), FALSE);
      /* The last run's result no longer describes the line. */
      gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label), NULL);
      self->started_at = g_get_monotonic_time ();
      self->run_started = FALSE;
      self->tick_id = g_timeout_add (100, tick, self);
      tick (self);
    }
}

void
sp_exec_panel_set_status (SpExecPanel *self, const char *text, gboolean is_error)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  sp_exec_panel_set_running (self, FALSE);
  gtk_spinner_set_spinning (self->spinner, FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->status_action), FALSE);
  gtk_label_set_text (self->status_label, text);
  gtk_widget_set_visible (GTK_WIDGET (self->status_detail), FALSE);
  gtk_widget_set_hexpand (GTK_WIDGET (self->status_label), TRUE);
  g_clear_pointer (&self->status_text, g_free);
  /* The line wraps; the tooltip repeats it for a panel too narrow even so. */
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label), text);
  if (is_error)
    gtk_widget_add_css_class (GTK_WIDGET (self->status_label), "error");
  else
    gtk_widget_remove_css_class (GTK_WIDGET (self->status_label), "error");
}

void
sp_exec_panel_set_status_detail (SpExecPanel *self, const char *text, const char *detail,
                                 gboolean is_error)
{
  g_autofree char *rest = NULL;
  g_autofree char *whole = NULL;

  g_return_if_fail (SP_IS_EXEC_PANEL (self));
  g_return_if_fail (text != NULL && detail != NULL);

  whole = g_strdup_printf ("%s — %s", text, detail);
  sp_exec_panel_set_status (self, text, is_error);
  /* Only the run's end in the error colour: the whole line red read as
   * if the comparison were an error too. */
  rest = g_strdup_printf ("— %s", detail);
  gtk_label_set_text (self->status_detail, rest);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_detail), whole);
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label), whole);
  gtk_widget_set_hexpand (GTK_WIDGET (self->status_label), FALSE);
  gtk_widget_set_visible (GTK_WIDGET (self->status_detail), TRUE);
  self->status_text = g_steal_pointer (&whole);
}

void
sp_exec_panel_set_busy (SpExecPanel *self, const char *text)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  sp_exec_panel_set_status (self, text, FALSE);
  gtk_spinner_set_spinning (self->spinner, TRUE);
}

void
sp_exec_panel_set_status_action (SpExecPanel *self, const char *label, const char *action_name)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  gtk_button_set_label (self->status_action, label);
  gtk_actionable_set_action_name (GTK_ACTIONABLE (self->status_action), action_name);
  gtk_widget_set_visible (GTK_WIDGET (self->status_action), label != NULL);
}

GtkWidget *
sp_exec_panel_get_status_action (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return GTK_WIDGET (self->status_action);
}

const char *
sp_exec_panel_get_status (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  if (self->status_text != NULL && gtk_widget_get_visible (GTK_WIDGET (self->status_detail)))
    return self->status_text;
  return gtk_label_get_text (self->status_label);
}

void
sp_exec_panel_set_snippet_names (SpExecPanel *self, const char *run_name, const char *display_name)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  g_free (self->snippet_name);
  self->snippet_name = g_strdup (run_name);
  g_free (self->display_name);
  self->display_name = g_strdup (display_name);
}

void
sp_exec_panel_set_save_folder (SpExecPanel *self, GFile *folder)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));
  g_return_if_fail (folder == NULL || G_IS_FILE (folder));
  g_set_object (&self->save_folder, folder);
}

void
sp_exec_panel_set_started (SpExecPanel *self)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  if (!self->running || self->run_started)
    return;
  self->run_started = TRUE;
  tick (self);
}

void
sp_exec_panel_set_compiling (SpExecPanel *self, gboolean compiling, guint timeout_s)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  compiling = !!compiling && self->running;
  self->compile_timeout_s = timeout_s;
  if (self->compiling == compiling)
    return;
  self->compiling = compiling;
  /* Each step's time from its own start. */
  self->started_at = g_get_monotonic_time ();
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label),
                               compiling ? _ ("The compiler runs first, with a time limit of its "
                                              "own; the run's time limit starts with the "
                                              "program.")
                                         : NULL);
  if (self->running)
    tick (self);
}

void
sp_exec_panel_set_waiting (SpExecPanel *self, gboolean waiting, guint timeout_s)
{
  g_return_if_fail (SP_IS_EXEC_PANEL (self));

  waiting = !!waiting && self->running;
  if (self->waiting == waiting)
    return;
  self->waiting = waiting;
  self->timeout_s = timeout_s;
  gtk_widget_set_tooltip_text (GTK_WIDGET (self->status_label),
                               waiting ? _ ("The time limit stands still while the program "
                                            "waits for input; a wait longer than 15 minutes "
                                            "ends the run. Limits are in Preferences (Ctrl+,).")
                                       : NULL);
  /* Shown here; whether the keyboard goes to the input line is the
   * window's to decide, and the cue follows where it is. */
  update_input_cue (self);
}

GtkEntry *
sp_exec_panel_get_input_entry (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return self->input_entry;
}

SpTranscript *
sp_exec_panel_get_transcript (SpExecPanel *self)
{
  g_return_val_if_fail (SP_IS_EXEC_PANEL (self), NULL);
  return self->transcript;
}
