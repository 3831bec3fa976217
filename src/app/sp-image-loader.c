/* sp-image-loader.c: decoding what the panel shows, dropping what it does not. */
#define G_LOG_DOMAIN "sp-image-loader"

#include "config.h"

#include "sp-image-decode.h"
#include "sp-image-loader.h"
#include "sp-image-texture.h"

typedef enum
{
  STATE_IDLE,     /* no picture: waits to be in view */
  STATE_DECODING, /* the helper is at it */
  STATE_SHOWN,    /* its texture is on the item, counted by the budget */
  STATE_WITHHELD, /* no room for it; Show asks again */
  STATE_FAILED,   /* the helper refused it; the item says why */
} State;

typedef struct
{
  SpOutputItem *item;
  State state;
  gboolean visible; /* in view or about to be: decode it */
  gboolean near;    /* close enough to keep */
  gboolean asked;   /* Show: decode it next, on demand */
} Entry;

struct _SpImageLoader
{
  GObject parent_instance;
  GPtrArray *entries;  /* Entry, in the list's order */
  GHashTable *by_item; /* SpOutputItem -> Entry */
  SpImageBudget *budget;
  GCancellable *run; /* the window's, for this run's items */
  gulong run_handler;
  GCancellable *decoding;
  gboolean in_flight;
  guint generation; /* a reset makes older answers stale */
  guint n_decodes;
  GtkWidget *view;    /* weak */
  GtkAdjustment *adj; /* the view's, watched */
  GHashTable *rows;   /* GtkListItem bound to an image item */
  guint tick_id;
  guint tick_frames; /* frames left to look */
};

G_DEFINE_FINAL_TYPE (SpImageLoader, sp_image_loader, G_TYPE_OBJECT)

typedef struct
{
  SpImageLoader *loader;
  SpOutputItem *item;
  guint generation;
} Decode;

static void
entry_free (gpointer data)
{
  Entry *entry = data;

  g_object_unref (entry->item);
  g_free (entry);
}

static void
reset (SpImageLoader *self)
{
  /* The items stay with their rows (the old model goes with the run);
   * only the helper at work and the loader's hold on them end here. */
  self->generation++;
  g_cancellable_cancel (self->decoding);
  g_clear_object (&self->decoding);
  self->decoding = g_cancellable_new ();
  self->in_flight = FALSE;
  g_hash_table_remove_all (self->by_item);
  g_ptr_array_set_size (self->entries, 0);
  if (self->run != NULL)
    g_clear_signal_handler (&self->run_handler, self->run);
  g_clear_object (&self->run);
}

static void
sp_image_loader_dispose (GObject *object)
{
  SpImageLoader *self = SP_IMAGE_LOADER (object);

  if (self->view != NULL)
    {
      if (self->tick_id != 0)
        gtk_widget_remove_tick_callback (self->view, self->tick_id);
      self->tick_id = 0;
      g_object_remove_weak_pointer (G_OBJECT (self->view), (gpointer *) &self->view);
      self->view = NULL;
    }
  g_clear_object (&self->adj);
  if (self->rows != NULL)
    g_hash_table_remove_all (self->rows);

  if (self->entries != NULL)
    reset (self);
  g_clear_object (&self->decoding);
  g_clear_object (&self->budget);
  G_OBJECT_CLASS (sp_image_loader_parent_class)->dispose (object);
}

static void
sp_image_loader_finalize (GObject *object)
{
  SpImageLoader *self = SP_IMAGE_LOADER (object);

  g_clear_pointer (&self->by_item, g_hash_table_unref);
  g_clear_pointer (&self->rows, g_hash_table_unref);
  g_clear_pointer (&self->entries, g_ptr_array_unref);
  G_OBJECT_CLASS (sp_image_loader_parent_class)->finalize (object);
}

static void
sp_image_loader_class_init (SpImageLoaderClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sp_image_loader_dispose;
  G_OBJECT_CLASS (klass)->finalize = sp_image_loader_finalize;
}

static void
sp_image_loader_init (SpImageLoader *self)
{
  self->entries = g_ptr_array_new_with_free_func (entry_free);
  self->by_item = g_hash_table_new (NULL, NULL);
  self->rows = g_hash_table_new (NULL, NULL);
  self->decoding = g_cancellable_new ();
}

SpImageLoader *
sp_image_loader_new (void)
{
  return g_object_new (SP_TYPE_IMAGE_LOADER, NULL);
}

/* Its texture off the item: the row lets go of it as it rebinds, and the
 * texture's pixels go back to the budget when nothing else holds it (a
 * Full Size window may: then they stay counted, as they stay in memory). */
static void
drop (Entry *entry)
{
  entry->state = STATE_IDLE;
  sp_output_item_set_image (entry->item, NULL);
}

/* Out-of-view pictures make way for one in view; with everyone, the
 * visible ones too (Show, when nothing else frees enough). */
static void
make_room (SpImageLoader *self, Entry *keep, gboolean everyone)
{
  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = g_ptr_array_index (self->entries, i);
      if (entry != keep && entry->state == STATE_SHOWN && (everyone || !entry->visible))
        drop (entry);
    }
}

static void
withhold (Entry *entry)
{
  entry->state = STATE_WITHHELD;
  entry->asked = FALSE;
  sp_output_item_set_image_withheld (entry->item, TRUE);
}

static void pump (SpImageLoader *self);
static void queue_check (SpImageLoader *self);

static gboolean
keep_texture (SpImageLoader *self, Entry *entry, GdkTexture *texture, guint64 pixels)
{
  GObject *holder = G_OBJECT (texture);

  if (sp_image_budget_take (self->budget, pixels, holder))
    return TRUE;
  make_room (self, entry, FALSE);
  if (sp_image_budget_take (self->budget, pixels, holder))
    return TRUE;
  if (!entry->asked)
    return FALSE;
  if (sp_image_budget_take_on_demand (self->budget, pixels, holder))
    return TRUE;
  make_room (self, entry, TRUE);
  return sp_image_budget_take_on_demand (self->budget, pixels, holder);
}

static void
on_decoded (GObject *object, GAsyncResult *result, gpointer user_data)
{
  Decode *d = user_data;
  g_autoptr (SpImageLoader) self = d->loader;
  g_autoptr (SpOutputItem) item = d->item;
  g_autoptr (SpDecodedImage) image = NULL;
  g_autoptr (GError) error = NULL;
  gboolean stale = d->generation != self->generation;
  Entry *entry;

  g_free (d);
  image = sp_image_decode_finish (result, &error);
  if (stale || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    return;
  self->in_flight = FALSE;
  entry = g_hash_table_lookup (self->by_item, item);
  g_assert (entry != NULL);
  if (image == NULL)
    {
      g_debug ("cannot show %s: %s", sp_output_item_get_text (item), error->message);
      entry->state = STATE_FAILED;
      entry->asked = FALSE;
      sp_output_item_set_image_error (item, error->message);
    }
  else if (!entry->near && !entry->asked)
    /* Scrolled far away while the helper worked. */
    entry->state = STATE_IDLE;
  else
    {
      g_autoptr (GdkTexture) texture = sp_image_texture_new (image);
      guint64 pixels = (guint64) sp_decoded_image_get_width (image)
                       * (guint64) sp_decoded_image_get_height (image);

      if (keep_texture (self, entry, texture, pixels))
        {
          entry->state = STATE_SHOWN;
          entry->asked = FALSE;
          sp_output_item_set_image_withheld (item, FALSE);
          sp_output_item_set_image (item, G_OBJECT (texture));
        }
      else
        withhold (entry);
    }
  pump (self);
}

static Entry *
next_wanted (SpImageLoader *self)
{
  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = g_ptr_array_index (self->entries, i);
      if (entry->asked && entry->state != STATE_SHOWN && entry->state != STATE_FAILED)
        return entry;
    }
  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = g_ptr_array_index (self->entries, i);
      if (entry->visible && entry->state == STATE_IDLE)
        return entry;
    }
  return NULL;
}

/* One helper at a time, so a screenful of plots does not start a
 * screenful of processes. */
static void
pump (SpImageLoader *self)
{
  Entry *entry;
  Decode *d;

  if (self->in_flight || self->budget == NULL)
    return;
  while ((entry = next_wanted (self)) != NULL)
    {
      if (entry->asked || sp_image_budget_has_room (self->budget))
        break;
      make_room (self, entry, FALSE);
      if (sp_image_budget_has_room (self->budget))
        break;
      /* Spent already: no helper for a picture that cannot be kept. */
      withhold (entry);
    }
  if (entry == NULL)
    return;
  entry->state = STATE_DECODING;
  self->in_flight = TRUE;
  self->n_decodes++;
  d = g_new0 (Decode, 1);
  d->loader = g_object_ref (self);
  d->item = g_object_ref (entry->item);
  d->generation = self->generation;
  sp_image_texture_decode_item_async (entry->item, self->decoding, on_decoded, d);
}

static void
on_run_cancelled (GCancellable *cancellable, SpImageLoader *self)
{
  reset (self);
}

void
sp_image_loader_add_items (SpImageLoader *self, GPtrArray *items, SpImageBudget *budget,
                           GCancellable *cancellable)
{
  g_return_if_fail (SP_IS_IMAGE_LOADER (self));
  g_return_if_fail (items != NULL);
  g_return_if_fail (SP_IS_IMAGE_BUDGET (budget));
  g_return_if_fail (G_IS_CANCELLABLE (cancellable));

  if (cancellable != self->run)
    {
      reset (self);
      if (g_cancellable_is_cancelled (cancellable))
        return;
      self->run = g_object_ref (cancellable);
      /* A plain signal (not g_cancellable_connect), so the handler can
       * disconnect itself while it runs. */
      self->run_handler = g_signal_connect_object (cancellable, "cancelled",
                                                   G_CALLBACK (on_run_cancelled), self, 0);
    }
  g_set_object (&self->budget, budget);
  for (guint i = 0; i < items->len; i++)
    {
      SpOutputItem *item = g_ptr_array_index (items, i);
      Entry *entry;

      if (g_hash_table_contains (self->by_item, item))
        continue;
      entry = g_new0 (Entry, 1);
      entry->item = g_object_ref (item);
      g_ptr_array_add (self->entries, entry);
      g_hash_table_insert (self->by_item, item, entry);
    }
  queue_check (self);
}

void
sp_image_loader_set_in_view (SpImageLoader *self, GPtrArray *visible, GPtrArray *near)
{
  g_return_if_fail (SP_IS_IMAGE_LOADER (self));

  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = g_ptr_array_index (self->entries, i);
      entry->visible = entry->near = FALSE;
    }
  for (guint i = 0; near != NULL && i < near->len; i++)
    {
      Entry *entry = g_hash_table_lookup (self->by_item, g_ptr_array_index (near, i));
      if (entry != NULL)
        entry->near = TRUE;
    }
  for (guint i = 0; visible != NULL && i < visible->len; i++)
    {
      Entry *entry = g_hash_table_lookup (self->by_item, g_ptr_array_index (visible, i));
      if (entry != NULL)
        entry->visible = entry->near = TRUE;
    }
  for (guint i = 0; i < self->entries->len; i++)
    {
      Entry *entry = g_ptr_array_index (self->entries, i);

      if (entry->near)
        continue;
      /* Far away: its memory goes back, and a withheld one tries again
       * when it returns (there may be room by then). */
      entry->asked = FALSE;
      if (entry->state == STATE_SHOWN)
        drop (entry);
      else if (entry->state == STATE_WITHHELD)
        {
          entry->state = STATE_IDLE;
          sp_output_item_set_image_withheld (entry->item, FALSE);
        }
    }
  pump (self);
}

void
sp_image_loader_show (SpImageLoader *self, SpOutputItem *item)
{
  Entry *entry;

  g_return_if_fail (SP_IS_IMAGE_LOADER (self));

  entry = g_hash_table_lookup (self->by_item, item);
  if (entry == NULL || entry->state == STATE_SHOWN || entry->state == STATE_FAILED)
    return;
  entry->asked = TRUE;
  pump (self);
}

/* Rows past each edge of the view that count as about to come into view
 * (the next image, or the one after a line of text), and how far a
 * decoded picture is kept: scrolling back a little shows it again without
 * a helper, scrolling far lets it go. */
#define MARGIN_ROWS 2
#define KEEP_ROWS 16

/* Where a row is drawn in the view, if it is: GTK 4.8's list view binds
 * up to 200 rows but lays out and maps only those in view (the others sit
 * unmapped at 0 x 0), so being bound says nothing about being seen. */
static gboolean
row_in_view (GtkWidget *view, GtkListItem *row, double margin)
{
  GtkWidget *child = gtk_list_item_get_child (row);
  double height = gtk_widget_get_height (view);
  graphene_rect_t bounds;

  if (child == NULL || !gtk_widget_get_mapped (child)
      || !gtk_widget_compute_bounds (child, view, &bounds) || bounds.size.height <= 0)
    return FALSE;
  return bounds.origin.y + bounds.size.height >= -margin && bounds.origin.y <= height + margin;
}

static gboolean
on_tick (GtkWidget *view, GdkFrameClock *clock, gpointer user_data)
{
  SpImageLoader *self = user_data;
  g_autoptr (GPtrArray) visible = g_ptr_array_new ();
  g_autoptr (GPtrArray) near = g_ptr_array_new ();
  guint first = G_MAXUINT, last = 0;
  GHashTableIter iter;
  gpointer row;

  /* A tick comes before the frame's layout: what moved the view shows
   * in the layout of this frame, so look again at the next one. */
  if (--self->tick_frames == 0)
    self->tick_id = 0;
  /* The rows in view, of any kind, by their place in the list. */
  g_hash_table_iter_init (&iter, self->rows);
  while (g_hash_table_iter_next (&iter, &row, NULL))
    if (row_in_view (view, row, 0))
      {
        guint position = gtk_list_item_get_position (row);
        first = MIN (first, position);
        last = MAX (last, position);
      }
  /* Not laid out yet (or hidden): nothing is known, nothing is dropped. */
  if (first == G_MAXUINT)
    return self->tick_id != 0 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
  g_hash_table_iter_init (&iter, self->rows);
  while (g_hash_table_iter_next (&iter, &row, NULL))
    {
      gpointer item = gtk_list_item_get_item (row);
      guint position = gtk_list_item_get_position (row);

      if (item == NULL || !g_hash_table_contains (self->by_item, item))
        continue;
      if (row_in_view (view, row, 0)
          || (position + MARGIN_ROWS >= first && position <= last + MARGIN_ROWS))
        g_ptr_array_add (visible, item);
      else if (position + KEEP_ROWS >= first && position <= last + KEEP_ROWS)
        g_ptr_array_add (near, item);
    }
  g_debug ("rows %u to %u in view: %u images to show, %u to keep", first, last, visible->len,
           near->len);
  sp_image_loader_set_in_view (self, visible, near);
  return self->tick_id != 0 ? G_SOURCE_CONTINUE : G_SOURCE_REMOVE;
}

static void
queue_check (SpImageLoader *self)
{
  if (self->view == NULL)
    return;
  self->tick_frames = 2;
  if (self->tick_id == 0)
    self->tick_id = gtk_widget_add_tick_callback (self->view, on_tick, self, NULL);
}

static void
on_vadjustment (SpImageLoader *self)
{
  GtkAdjustment *adj = gtk_scrollable_get_vadjustment (GTK_SCROLLABLE (self->view));

  if (self->adj != NULL)
    g_signal_handlers_disconnect_by_data (self->adj, self);
  g_set_object (&self->adj, adj);
  if (adj != NULL)
    {
      g_signal_connect_object (adj, "value-changed", G_CALLBACK (queue_check), self,
                               G_CONNECT_SWAPPED);
      g_signal_connect_object (adj, "changed", G_CALLBACK (queue_check), self, G_CONNECT_SWAPPED);
    }
  queue_check (self);
}

void
sp_image_loader_watch (SpImageLoader *self, GtkListView *view)
{
  g_return_if_fail (SP_IS_IMAGE_LOADER (self));
  g_return_if_fail (GTK_IS_LIST_VIEW (view));
  g_return_if_fail (self->view == NULL);

  self->view = GTK_WIDGET (view);
  g_object_add_weak_pointer (G_OBJECT (view), (gpointer *) &self->view);
  g_signal_connect_object (view, "notify::vadjustment", G_CALLBACK (on_vadjustment), self,
                           G_CONNECT_SWAPPED);
  on_vadjustment (self);
}

void
sp_image_loader_row_bound (SpImageLoader *self, GtkListItem *row)
{
  g_return_if_fail (SP_IS_IMAGE_LOADER (self));
  g_hash_table_add (self->rows, row);
  queue_check (self);
}

void
sp_image_loader_row_unbound (SpImageLoader *self, GtkListItem *row)
{
  g_return_if_fail (SP_IS_IMAGE_LOADER (self));
  if (g_hash_table_remove (self->rows, row))
    queue_check (self);
}

guint
sp_image_loader_get_n_decodes (SpImageLoader *self)
{
  g_return_val_if_fail (SP_IS_IMAGE_LOADER (self), 0);
  return self->n_decodes;
}

gboolean
sp_image_loader_get_busy (SpImageLoader *self)
{
  g_return_val_if_fail (SP_IS_IMAGE_LOADER (self), FALSE);
  return self->in_flight || (self->budget != NULL && next_wanted (self) != NULL);
}

SpImageBudget *
sp_image_loader_get_budget (SpImageLoader *self)
{
  g_return_val_if_fail (SP_IS_IMAGE_LOADER (self), NULL);
  return self->budget;
}
