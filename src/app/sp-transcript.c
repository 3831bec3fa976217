/* sp-transcript.c: the scrolling list of a run's output. */
#define G_LOG_DOMAIN "sp-transcript"

#include "config.h"

#include <glib/gi18n.h>
#include <stdlib.h>

#include "sp-file-dialog.h"
#include "sp-transcript.h"

struct _SpTranscript
{
  GtkWidget parent_instance;

  GtkWidget *hidden_bar;
  GtkLabel *hidden_label;
  GtkWidget *overlay;
  GtkScrolledWindow *scroller;
  GtkListView *list_view;
  GtkWidget *follow_button;

  GListModel *model;
  GCancellable *save_cancellable;
  gboolean following;
  /* Our own scrolling, not the user's. */
  gboolean scrolling;
  guint follow_tick_id;
  guint publish_tick_id;
  guint settled_frames;
  guint tries;
  /* Rows whose text changed while they lay out of sight (GtkListItem,
   * unowned: their factory forgets them on unbind), and the timer that
   * shows them once output pauses. */
  GHashTable *deferred;
  guint deferred_id;
  guint deferred_tick_id;
  gint64 deferred_at;
  gboolean rebind_all; /* the view changed size: all of them, next frame */
  /* They get their text now, a frame's worth at a time. */
  gboolean draining;
  /* Rows before this position are out of reach of the end (of a view that
   * keeps to it), worked out once per frame and number of rows. */
  guint reach;
  guint reach_n_items;
  gint64 reach_frame;
  /* Text given to rows in the frame spent_frame, against FRAME_TEXT_BYTES. */
  gsize spent;
  gint64 spent_frame;
};

G_DEFINE_FINAL_TYPE (SpTranscript, sp_transcript, GTK_TYPE_WIDGET)

enum
{
  REBIND,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

static gboolean rebind_deferred (SpTranscript *self);

static void
set_following (SpTranscript *self, gboolean following)
{
  /* Reading back shows the rows above: those nearest first get their text
   * now, the others from the next frame on. */
  if (!following && rebind_deferred (self))
    self->draining = TRUE;
  self->following = following;
  gtk_widget_set_visible (self->follow_button, !following);
  /* At the end, which rows hold which text does not matter: the model may
   * move text through the rows instead of replacing them. Someone reading
   * back keeps the rows they read until the tail drops them. */
  if (SP_IS_OUTPUT_MODEL (self->model))
    sp_output_model_set_keep_rows (SP_OUTPUT_MODEL (self->model), following);
}

/* ---- keeping to the end ---- */

/* Runs on the frame clock while following: puts the view at the end,
 * again on later frames while the list view learns its rows' real heights
 * (it estimates those it has not laid out), and stops once it stays. */
static gboolean
follow_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  SpTranscript *self = user_data;
  GtkAdjustment *adj = gtk_scrolled_window_get_vadjustment (self->scroller);
  double bottom = gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj);

  if (!self->following)
    {
      self->follow_tick_id = 0;
      return G_SOURCE_REMOVE;
    }
  /* Gives up after a second of trying: an end it cannot reach (a row
   * taller than the view) must not keep the clock ticking. */
  if (gtk_adjustment_get_value (adj) < bottom - 0.5 && self->model != NULL
      && g_list_model_get_n_items (self->model) > 0 && self->tries++ < 60)
    {
      /* The list view's own way there: it lays out the last row and lines
       * its end up with the view's (an adjustment value of its estimated
       * height may point past what it has). */
      self->scrolling = TRUE;
      gtk_widget_activate_action (GTK_WIDGET (self->list_view), "list.scroll-to-item", "u",
                                  g_list_model_get_n_items (self->model) - 1);
      self->scrolling = FALSE;
      self->settled_frames = 0;
      return G_SOURCE_CONTINUE;
    }
  if (++self->settled_frames < 3)
    return G_SOURCE_CONTINUE;
  self->follow_tick_id = 0;
  return G_SOURCE_REMOVE;
}

static void
queue_follow (SpTranscript *self)
{
  self->settled_frames = 0;
  self->tries = 0;
  if (self->following && self->follow_tick_id == 0)
    self->follow_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self->list_view), follow_tick,
                                                         self, NULL);
}

/* Only the user stops following (a wheel or touchpad scroll up, the
 * scroll bar, keys that move up): the list view moves the adjustment
 * itself as rows come and go, which must not count as reading back. */
static gboolean
on_scroll (GtkEventControllerScroll *controller, double dx, double dy, SpTranscript *self)
{
  if (dy < 0)
    set_following (self, FALSE);
  return FALSE;
}

static void
on_scrollbar_pressed (GtkGestureClick *click, int n_press, double x, double y, SpTranscript *self)
{
  set_following (self, FALSE);
}

static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode,
                GdkModifierType state, SpTranscript *self)
{
  switch (keyval)
    {
    case GDK_KEY_Up:
    case GDK_KEY_KP_Up:
    case GDK_KEY_Page_Up:
    case GDK_KEY_KP_Page_Up:
    case GDK_KEY_Home:
    case GDK_KEY_KP_Home:
      set_following (self, FALSE);
      break;
    default:
      break;
    }
  return FALSE;
}

/* Scrolled back down to the end by hand: follow again. */
static void
on_value_changed (GtkAdjustment *adj, SpTranscript *self)
{
  double bottom = gtk_adjustment_get_upper (adj) - gtk_adjustment_get_page_size (adj);

  if (!self->scrolling && !self->following && bottom > 0
      && gtk_adjustment_get_value (adj) >= bottom - 1)
    set_following (self, TRUE);
}

static void
on_items_changed (GListModel *model, guint position, guint removed, guint added, SpTranscript *self)
{
  queue_follow (self);
}

/* ---- showing output on the frame clock ---- */

/* In the frame's update phase, before its layout: a batch published here
 * is laid out and painted in this frame, and a frame publishes one batch
 * at most, however fast output comes. */
static gboolean
publish_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  SpTranscript *self = user_data;

  if (SP_IS_OUTPUT_MODEL (self->model)
      && sp_output_model_publish_frame (SP_OUTPUT_MODEL (self->model)))
    return G_SOURCE_CONTINUE;
  self->publish_tick_id = 0;
  return G_SOURCE_REMOVE;
}

static void
stop_publishing (SpTranscript *self)
{
  if (self->publish_tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->publish_tick_id);
  self->publish_tick_id = 0;
}

static void
on_has_pending (SpOutputModel *model, GParamSpec *pspec, SpTranscript *self)
{
  if (sp_output_model_has_pending (model) && self->publish_tick_id == 0)
    self->publish_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), publish_tick, self,
                                                          NULL);
}

static void
on_upper_changed (GtkAdjustment *adj, GParamSpec *pspec, SpTranscript *self)
{
  queue_follow (self);
}

/* ---- rows out of sight ---- */

/* A list view keeps 200 rows bound around the end it shows, and following
 * a flood every one of them takes new text on each batch: laying out the
 * ~170 nobody sees was a third of the window's work (issue 30). Those the
 * list view has not mapped wait, and get their text once they may be seen:
 * a frame maps them, the person scrolls back (following stops) or the view
 * changes size; and, for whatever else reads them (a screen reader), once
 * output pauses for DEFER_MS. */
#define DEFER_MS 1000
/* Rows out of sight get their text at most about this many bytes a frame.
 * Laying out a label costs about its text's length (sp-wrap-attrs.h), and
 * rows bound at once all lay out in that frame: 200 rows of folded lines,
 * 4 KiB each, held the window for 0.6 s a batch (issue 38). Rows of short
 * lines never reach it (200 of them are ~16 KiB), nor do the few rows of
 * long ones a view has in sight, which come first. */
#define FRAME_TEXT_BYTES (16 * 1024)

static gsize
text_bytes (gpointer item)
{
  return SP_IS_OUTPUT_ITEM (item) ? sp_output_item_get_length (item) : 0;
}

static gint64
frame_counter (SpTranscript *self)
{
  GdkFrameClock *clock = gtk_widget_get_frame_clock (GTK_WIDGET (self));

  return clock != NULL ? gdk_frame_clock_get_frame_counter (clock) : -1;
}

/* Whether the list view shows the row's place: its tile (the list item's
 * widget, the row's parent) is mapped. The row itself may be hidden while
 * its text waits. */
static gboolean
is_mapped (GtkListItem *item)
{
  GtkWidget *row = gtk_list_item_get_child (item);
  GtkWidget *tile = row != NULL ? gtk_widget_get_parent (row) : NULL;

  return tile != NULL && gtk_widget_get_mapped (tile);
}

/* Whether a row may take its text in this frame: the frame's first row
 * always may, then rows while the frame's text stays within
 * FRAME_TEXT_BYTES. */
static gboolean
take_budget (SpTranscript *self, GtkListItem *item)
{
  gint64 frame = frame_counter (self);

  if (frame != self->spent_frame)
    {
      self->spent_frame = frame;
      self->spent = 0;
    }
  if (self->spent >= FRAME_TEXT_BYTES)
    return FALSE;
  self->spent += text_bytes (gtk_list_item_get_item (item));
  return TRUE;
}

static int
by_position_down (gconstpointer a, gconstpointer b)
{
  guint x = gtk_list_item_get_position (*(GtkListItem **) a);
  guint y = gtk_list_item_get_position (*(GtkListItem **) b);

  return x < y ? 1 : x > y ? -1 : 0;
}

/* Shows rows that waited (only those mapped, or all), the nearest the end
 * first (where a view that keeps to it shows, and where a person scrolling
 * back up comes first), within the frame's text. Returns whether some
 * that it was asked for still wait. */
static gboolean
rebind_waiting (SpTranscript *self, gboolean mapped_only)
{
  g_autofree gpointer *items = NULL;
  g_autoptr (GPtrArray) due = g_ptr_array_new ();
  gboolean left = FALSE;
  guint n = 0;

  if (g_hash_table_size (self->deferred) == 0)
    return FALSE;
  items = g_hash_table_get_keys_as_array (self->deferred, &n);
  qsort (items, n, sizeof *items, by_position_down);
  for (guint i = 0; i < n && !left; i++)
    {
      if (mapped_only && !is_mapped (items[i]))
        continue;
      if (!take_budget (self, items[i]))
        left = TRUE;
      else
        {
          g_hash_table_remove (self->deferred, items[i]);
          g_ptr_array_add (due, items[i]);
        }
    }
  for (guint i = 0; i < due->len; i++)
    g_signal_emit (self, signals[REBIND], 0, g_ptr_array_index (due, i));
  return left;
}

static gboolean
rebind_deferred (SpTranscript *self)
{
  g_clear_handle_id (&self->deferred_id, g_source_remove);
  return rebind_waiting (self, FALSE);
}

static gboolean
deferred_due (gpointer user_data)
{
  SpTranscript *self = user_data;
  gint64 quiet = g_get_monotonic_time () - self->deferred_at;

  self->deferred_id = 0;
  if (quiet < DEFER_MS * 1000)
    {
      /* Still pouring: look again when it may have paused. */
      self->deferred_id = g_timeout_add ((guint) (DEFER_MS - quiet / 1000) + 1, deferred_due, self);
      return G_SOURCE_REMOVE;
    }
  /* From the next frame on (deferred_tick runs while rows wait). */
  self->draining = TRUE;
  return G_SOURCE_REMOVE;
}

/* Told while the list view is allocated: the rows are bound again from
 * the next frame's update phase on, not in the middle of a layout. */
static void
on_page_size_changed (GtkAdjustment *adj, GParamSpec *pspec, SpTranscript *self)
{
  self->rebind_all = g_hash_table_size (self->deferred) > 0;
}

/* In each frame's update phase while rows wait, before its layout: rows
 * the last frame's layout brought into sight (rows below them shrank, or
 * the view has not reached the end yet), then, once output paused or the
 * view changed, the others, a frame's worth at a time. */
static gboolean
deferred_tick (GtkWidget *widget, GdkFrameClock *clock, gpointer user_data)
{
  SpTranscript *self = user_data;

  self->draining = self->draining || self->rebind_all;
  self->rebind_all = FALSE;
  rebind_waiting (self, TRUE);
  if (self->draining)
    self->draining = rebind_deferred (self);
  if (g_hash_table_size (self->deferred) > 0)
    return G_SOURCE_CONTINUE;
  self->deferred_tick_id = 0;
  return G_SOURCE_REMOVE;
}

/* The row waits for its text; output still comes, so the rows that wait
 * wait for it to pause again. */
static void
defer (SpTranscript *self, GtkListItem *item)
{
  g_hash_table_add (self->deferred, item);
  self->deferred_at = g_get_monotonic_time ();
  self->draining = FALSE;
  if (self->deferred_id == 0)
    self->deferred_id = g_timeout_add (DEFER_MS, deferred_due, self);
  if (self->deferred_tick_id == 0)
    self->deferred_tick_id = gtk_widget_add_tick_callback (GTK_WIDGET (self), deferred_tick, self,
                                                           NULL);
}

/* Whether a row's text may wait at all: only while the view keeps to the
 * end, where rows keep their places. */
static gboolean
may_wait (SpTranscript *self)
{
  return self->following;
}

#if GTK_CHECK_VERSION(4, 12, 0)
/* GTK 4.12 rewrote the list view's row management: a row may be mapped
 * during the layout of the frame that shows it, after this frame's tick.
 * There a row out of sight waits only once the frame's text is spent (a
 * flood of short lines never does), a row in sight never waits, and a row
 * that waits is hidden until its text comes, so it is never painted with
 * text left over from an earlier batch (ui-window flood-paints saw lines
 * out of order on GTK 4.18 when rows out of sight always waited and kept
 * showing). Without any wait, the ~200 rows the list view keeps bound took
 * 4 KiB of a folded line each at once and held the window 0.6 s
 * (ui-long-lines, 10^4 lines of 10^4 characters). */
static gboolean
takes_text_now (SpTranscript *self, GtkListItem *item)
{
  gboolean in_sight = is_mapped (item);
  gboolean within = take_budget (self, item);

  if (in_sight || within)
    return TRUE;
  gtk_widget_set_child_visible (gtk_list_item_get_child (item), FALSE);
  return FALSE;
}
#endif

gboolean
sp_transcript_defer_rebind (SpTranscript *self, GtkListItem *item)
{
  g_return_val_if_fail (SP_IS_TRANSCRIPT (self), FALSE);
  g_return_val_if_fail (GTK_IS_LIST_ITEM (item), FALSE);

  if (!may_wait (self))
    return FALSE;
#if GTK_CHECK_VERSION(4, 12, 0)
  if (takes_text_now (self, item))
    return FALSE;
#else
  /* The list view maps the rows in sight (and a few around them) and no
   * others: those take their text now, whatever the frame has spent. A
   * row's text rewritten by many batches before one frame (the tail
   * full, the machine loaded) charged the frame each time, and a row in
   * sight that then waited was painted with an earlier batch's line among
   * the new ones (ui-window flood-paints, once in CI). A label lays out
   * once a frame however often its text changed, and the rows in sight
   * are few. */
  if (is_mapped (item))
    {
      take_budget (self, item);
      return FALSE;
    }
  /* And a row that waits is hidden until its text comes, as on 4.12+:
   * the list view may bring it into sight in a frame's layout, after
   * that frame's tick (the hidden-lines bar appearing moves the rows),
   * and it was painted there with a line thousands of batches old
   * ("6259 above 2976", ui-window flood-paints in CI). A blank row for a
   * frame says nothing false. */
  gtk_widget_set_child_visible (gtk_list_item_get_child (item), FALSE);
#endif
  defer (self, item);
  return TRUE;
}

#if !GTK_CHECK_VERSION(4, 12, 0)
/* The first position within a frame's worth of text of the end: rows
 * there are, or soon will be, in sight of a view that keeps to the end. */
static guint
end_reach (SpTranscript *self)
{
  gint64 frame = frame_counter (self);
  guint n = g_list_model_get_n_items (self->model);
  gsize bytes = 0;
  guint i;

  if (frame >= 0 && frame == self->reach_frame && n == self->reach_n_items)
    return self->reach;
  for (i = n; i > 0 && bytes <= FRAME_TEXT_BYTES; i--)
    {
      g_autoptr (GObject) item = g_list_model_get_item (self->model, i - 1);
      bytes += text_bytes (item);
    }
  self->reach = i;
  self->reach_n_items = n;
  self->reach_frame = frame;
  return i;
}
#endif

gboolean
sp_transcript_defer_bind (SpTranscript *self, GtkListItem *item)
{
  g_return_val_if_fail (SP_IS_TRANSCRIPT (self), FALSE);
  g_return_val_if_fail (GTK_IS_LIST_ITEM (item), FALSE);

  if (self->model == NULL || !may_wait (self))
    return FALSE;
#if GTK_CHECK_VERSION(4, 12, 0)
  if (takes_text_now (self, item))
    return FALSE;
#else
  if ((is_mapped (item) || gtk_list_item_get_position (item) >= end_reach (self))
      && take_budget (self, item))
    return FALSE;
#endif
  defer (self, item);
  return TRUE;
}

void
sp_transcript_forget_row (SpTranscript *self, GtkListItem *item)
{
  g_return_if_fail (SP_IS_TRANSCRIPT (self));
  /* Rows are unbound as the list view goes, after our own dispose. */
  if (self->deferred != NULL)
    g_hash_table_remove (self->deferred, item);
}

/* ---- what is not shown ---- */

static void
update_hidden (SpTranscript *self)
{
  SpOutputModel *model = SP_IS_OUTPUT_MODEL (self->model) ? SP_OUTPUT_MODEL (self->model) : NULL;
  guint64 lines = model ? sp_output_model_get_hidden_lines (model) : 0;
  g_autofree char *text = NULL;

  if (model == NULL || !sp_output_model_get_truncated (model))
    {
      gtk_widget_set_visible (self->hidden_bar, FALSE);
      return;
    }
  if (lines == 0)
    text = g_strdup (_ ("The start of the output is not shown"));
  else
    {
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, lines);
      /* TRANSLATORS: %s is a number of lines, more than zero */
      text = g_strdup_printf (g_dngettext (GETTEXT_PACKAGE, "The first %s line is not shown",
                                           "The first %s lines are not shown",
                                           (unsigned long) MIN (lines, G_MAXULONG)),
                              count);
    }
  gtk_label_set_text (self->hidden_label, text);
  gtk_widget_set_visible (self->hidden_bar, TRUE);
}

static void
on_hidden_changed (SpOutputModel *model, GParamSpec *pspec, SpTranscript *self)
{
  update_hidden (self);
}

static void
save_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpTranscript) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autofree char *text = NULL;

  if (sp_output_model_save_finish (SP_OUTPUT_MODEL (object), result, &error))
    return;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  /* Said where the user looks, until the bar changes again. */
  text = g_strdup_printf (_ ("Could not save the output: %s"), error->message);
  gtk_label_set_text (self->hidden_label, text);
}

static void
on_save_chosen (GObject *source, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpTranscript) self = user_data;
  g_autoptr (GFile) file = sp_file_dialog_choose_finish (result, NULL);

  if (file != NULL && SP_IS_OUTPUT_MODEL (self->model))
    sp_output_model_save_async (SP_OUTPUT_MODEL (self->model), file, self->save_cancellable,
                                save_done, g_object_ref (self));
}

static void
save_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  GtkWindow *parent = GTK_WINDOW (gtk_widget_get_root (widget));

  sp_file_dialog_choose_async (parent, SP_FILE_DIALOG_SAVE, _ ("Save Output"), _ ("_Save"), NULL,
                               "output.txt", NULL, on_save_chosen, g_object_ref (widget));
}

static void
follow_action (GtkWidget *widget, const char *action_name, GVariant *param)
{
  sp_transcript_follow (SP_TRANSCRIPT (widget));
}

/* ---- the object ---- */

static void
disconnect_model (SpTranscript *self)
{
  stop_publishing (self);
  if (self->model != NULL)
    g_signal_handlers_disconnect_by_data (self->model, self);
  /* Nobody paints it now: its own timer shows what comes. */
  if (SP_IS_OUTPUT_MODEL (self->model))
    sp_output_model_set_view_publishes (SP_OUTPUT_MODEL (self->model), FALSE);
  g_clear_object (&self->model);
}

static void
sp_transcript_dispose (GObject *object)
{
  SpTranscript *self = SP_TRANSCRIPT (object);

  g_cancellable_cancel (self->save_cancellable);
  g_clear_object (&self->save_cancellable);
  g_clear_handle_id (&self->deferred_id, g_source_remove);
  if (self->deferred_tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self), self->deferred_tick_id);
  self->deferred_tick_id = 0;
  g_clear_pointer (&self->deferred, g_hash_table_unref);
  if (self->follow_tick_id != 0)
    gtk_widget_remove_tick_callback (GTK_WIDGET (self->list_view), self->follow_tick_id);
  self->follow_tick_id = 0;
  disconnect_model (self);
  gtk_widget_dispose_template (GTK_WIDGET (self), SP_TYPE_TRANSCRIPT);
  G_OBJECT_CLASS (sp_transcript_parent_class)->dispose (object);
}

static void
sp_transcript_class_init (SpTranscriptClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_transcript_dispose;

  /* A row whose text changed out of sight may be seen now: bind it again
   * (its GtkListItem). */
  signals[REBIND] = g_signal_new ("rebind", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL,
                                  NULL, NULL, G_TYPE_NONE, 1, GTK_TYPE_LIST_ITEM);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-transcript.ui");
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_bind_template_child (widget_class, SpTranscript, hidden_bar);
  gtk_widget_class_bind_template_child (widget_class, SpTranscript, hidden_label);
  gtk_widget_class_bind_template_child (widget_class, SpTranscript, overlay);
  gtk_widget_class_bind_template_child (widget_class, SpTranscript, scroller);
  gtk_widget_class_bind_template_child (widget_class, SpTranscript, list_view);
  gtk_widget_class_bind_template_child (widget_class, SpTranscript, follow_button);
  gtk_widget_class_install_action (widget_class, "transcript.save", NULL, save_action);
  gtk_widget_class_install_action (widget_class, "transcript.follow", NULL, follow_action);
}

static void
sp_transcript_init (SpTranscript *self)
{
  GtkAdjustment *adj;
  GtkEventController *scroll, *key;
  GtkGesture *click;

  gtk_widget_init_template (GTK_WIDGET (self));
  gtk_orientable_set_orientation (GTK_ORIENTABLE (
                                    gtk_widget_get_layout_manager (GTK_WIDGET (self))),
                                  GTK_ORIENTATION_VERTICAL);
  self->save_cancellable = g_cancellable_new ();
  self->following = TRUE;
  self->deferred = g_hash_table_new (NULL, NULL);

  adj = gtk_scrolled_window_get_vadjustment (self->scroller);
  g_signal_connect_object (adj, "value-changed", G_CALLBACK (on_value_changed), self, 0);
  g_signal_connect_object (adj, "notify::upper", G_CALLBACK (on_upper_changed), self, 0);
  g_signal_connect_object (adj, "notify::page-size", G_CALLBACK (on_page_size_changed), self, 0);

  /* Capture phase: seen before the scrolled window or the list use them. */
  scroll = gtk_event_controller_scroll_new (GTK_EVENT_CONTROLLER_SCROLL_VERTICAL);
  gtk_event_controller_set_propagation_phase (scroll, GTK_PHASE_CAPTURE);
  g_signal_connect_object (scroll, "scroll", G_CALLBACK (on_scroll), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self->scroller), scroll);

  click = gtk_gesture_click_new ();
  gtk_event_controller_set_propagation_phase (GTK_EVENT_CONTROLLER (click), GTK_PHASE_CAPTURE);
  g_signal_connect_object (click, "pressed", G_CALLBACK (on_scrollbar_pressed), self, 0);
  gtk_widget_add_controller (gtk_scrolled_window_get_vscrollbar (self->scroller),
                             GTK_EVENT_CONTROLLER (click));

  key = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (key, GTK_PHASE_CAPTURE);
  g_signal_connect_object (key, "key-pressed", G_CALLBACK (on_key_pressed), self, 0);
  gtk_widget_add_controller (GTK_WIDGET (self->list_view), key);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "transcript.save", FALSE);
}

GtkListView *
sp_transcript_get_list_view (SpTranscript *self)
{
  g_return_val_if_fail (SP_IS_TRANSCRIPT (self), NULL);
  return self->list_view;
}

void
sp_transcript_set_model (SpTranscript *self, GListModel *model)
{
  g_autoptr (GtkNoSelection) selection = NULL;

  g_return_if_fail (SP_IS_TRANSCRIPT (self));
  g_return_if_fail (model == NULL || G_IS_LIST_MODEL (model));

  if (model == self->model)
    return;
  disconnect_model (self);
  if (model != NULL)
    {
      self->model = g_object_ref (model);
      selection = gtk_no_selection_new (g_object_ref (model));
      g_signal_connect_object (model, "items-changed", G_CALLBACK (on_items_changed), self, 0);
      if (SP_IS_OUTPUT_MODEL (model))
        {
          g_signal_connect_object (model, "notify::hidden", G_CALLBACK (on_hidden_changed), self,
                                   0);
          sp_output_model_set_view_publishes (SP_OUTPUT_MODEL (model), TRUE);
          g_signal_connect_object (model, "notify::has-pending", G_CALLBACK (on_has_pending), self,
                                   0);
          on_has_pending (SP_OUTPUT_MODEL (model), NULL, self);
        }
    }
  gtk_list_view_set_model (self->list_view, GTK_SELECTION_MODEL (selection));
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "transcript.save", SP_IS_OUTPUT_MODEL (model));
  update_hidden (self);
  sp_transcript_follow (self);
}

gboolean
sp_transcript_get_following (SpTranscript *self)
{
  g_return_val_if_fail (SP_IS_TRANSCRIPT (self), FALSE);
  return self->following;
}

void
sp_transcript_follow (SpTranscript *self)
{
  g_return_if_fail (SP_IS_TRANSCRIPT (self));
  set_following (self, TRUE);
  queue_follow (self);
}

gboolean
sp_transcript_get_busy (SpTranscript *self)
{
  g_return_val_if_fail (SP_IS_TRANSCRIPT (self), FALSE);
  return self->follow_tick_id != 0
         || (SP_IS_OUTPUT_MODEL (self->model)
             && sp_output_model_has_pending (SP_OUTPUT_MODEL (self->model)));
}

const char *
sp_transcript_get_hidden_text (SpTranscript *self)
{
  g_return_val_if_fail (SP_IS_TRANSCRIPT (self), NULL);
  return gtk_widget_get_visible (self->hidden_bar) ? gtk_label_get_text (self->hidden_label) : NULL;
}
