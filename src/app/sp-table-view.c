/* sp-table-view.c: a table a run displayed (sp-table-view.h). */
#define G_LOG_DOMAIN "sp-table-view"

#include "config.h"

#include <adwaita.h>
#include <glib/gi18n.h>

#include "sp-data-row.h"
#include "sp-table-view.h"
#include "sp-visible-text.h"

/* At most this tall: a thousand rows scroll inside, the panel's list
 * around it keeps its own scrolling. */
#define MAX_HEIGHT 360
/* A list view makes widgets for up to 200 of its rows whatever is in
 * sight (GTK 4.8), one label a cell: the view shows the sorted rows this
 * many at a time, Show More adding as many again. */
#define PAGE_ROWS 40
/* At least this many rows' room (with the header), each about this tall. */
#define MIN_ROWS 9
#define ROW_HEIGHT 26

struct _SpTableView
{
  GtkWidget parent_instance;

  GtkWidget *bar;  /* the note and Copy */
  GtkWidget *note; /* "Result 1 · 3 rows × 2 columns", or what is left out */
  GtkWidget *copy;
  GtkWidget *scroller;
  GtkWidget *columns; /* the GtkColumnView */
  GtkWidget *text;    /* the result's text, for one that is no table */
  GtkSortListModel *sorted;
  GtkSliceListModel *page; /* the first rows of sorted: what the view makes rows for */
  GtkWidget *more;
  SpDataTable *table;
  char *label;
  gulong loaded_id;
};

G_DEFINE_FINAL_TYPE (SpTableView, sp_table_view, GTK_TYPE_WIDGET)

/* A column's cells and sorter read the table they were made for. */
typedef struct
{
  SpDataTable *table;
  guint column;
} Column;

static void
column_free (Column *c)
{
  g_object_unref (c->table);
  g_free (c);
}

static Column *
column_new (SpDataTable *table, guint column)
{
  Column *c = g_new0 (Column, 1);

  c->table = g_object_ref (table);
  c->column = column;
  return c;
}

static void
setup_cell (GtkSignalListItemFactory *factory, GtkListItem *item, Column *c)
{
  GtkWidget *label = gtk_label_new (NULL);

  /* Numbers line up on the right, as a table of numbers reads. */
  gtk_label_set_xalign (GTK_LABEL (label),
                        sp_data_table_get_column_numeric (c->table, c->column) ? 1 : 0);
  gtk_label_set_single_line_mode (GTK_LABEL (label), TRUE);
  gtk_label_set_ellipsize (GTK_LABEL (label), PANGO_ELLIPSIZE_END);
  gtk_label_set_max_width_chars (GTK_LABEL (label), 32);
  if (sp_data_table_get_column_index (c->table, c->column))
    gtk_widget_add_css_class (label, "dim-label");
  gtk_widget_add_css_class (label, "numeric");
  gtk_list_item_set_child (item, label);
}

static void
bind_cell (GtkSignalListItemFactory *factory, GtkListItem *item, Column *c)
{
  SpDataRow *row = gtk_list_item_get_item (item);
  GtkWidget *label = gtk_list_item_get_child (item);
  const char *text = sp_data_table_get_cell (c->table, sp_data_row_get_index (row), c->column);

  /* The run's text as text: a cell holding markup shows its tags. */
  gtk_label_set_text (GTK_LABEL (label), text);
  gtk_widget_set_tooltip_text (label, g_utf8_strlen (text, -1) > 32 ? text : NULL);
}

static int
compare_rows (gconstpointer a, gconstpointer b, gpointer user_data)
{
  Column *c = user_data;

  return sp_data_table_compare (c->table, c->column, sp_data_row_get_index ((SpDataRow *) a),
                                sp_data_row_get_index ((SpDataRow *) b));
}

static void
on_copy_clicked (SpTableView *self)
{
  GListModel *shown = G_LIST_MODEL (self->sorted);
  guint n = g_list_model_get_n_items (shown);
  g_autofree guint *order = g_new (guint, MAX (n, 1));
  g_autofree char *tsv = NULL;
  GtkWidget *overlay;

  if (self->table == NULL)
    return;
  for (guint i = 0; i < n; i++)
    {
      g_autoptr (SpDataRow) row = g_list_model_get_item (shown, i);
      order[i] = sp_data_row_get_index (row);
    }
  tsv = sp_data_table_to_tsv (self->table, order, n);
  gdk_clipboard_set_text (gtk_widget_get_clipboard (GTK_WIDGET (self)), tsv);
  overlay = gtk_widget_get_ancestor (GTK_WIDGET (self), ADW_TYPE_TOAST_OVERLAY);
  if (overlay != NULL)
    adw_toast_overlay_add_toast (ADW_TOAST_OVERLAY (overlay), adw_toast_new (_ ("Table copied")));
}

static void
clear_columns (SpTableView *self)
{
  GListModel *columns = gtk_column_view_get_columns (GTK_COLUMN_VIEW (self->columns));
  guint n;

  while ((n = g_list_model_get_n_items (columns)) > 0)
    {
      g_autoptr (GtkColumnViewColumn) column = g_list_model_get_item (columns, n - 1);
      gtk_column_view_remove_column (GTK_COLUMN_VIEW (self->columns), column);
    }
}

static char *
note_text (SpDataTable *table, const char *label)
{
  guint shown = sp_data_table_get_n_rows (table);
  guint64 total = sp_data_table_get_total_rows (table);
  /* Counted as pandas counts them ("[90 rows x 2 columns]"): the index
   * is shown as a column but is not one of the frame's. */
  guint cols = sp_data_table_get_total_columns (table);
  guint more = sp_data_table_get_columns_left_out (table);
  g_autoptr (GString) text = g_string_new (label);

  if (text->len > 0)
    g_string_append (text, " · ");
  if ((guint64) shown < total)
    {
      /* The count goes in as a string: xgettext cannot see through
       * G_GUINT64_FORMAT, so a msgid built with it never matches. */
      g_autofree char *count = g_strdup_printf ("%" G_GUINT64_FORMAT, total);
      /* Translators: a table's rows: the first %u of %s (a count). */
      g_string_append_printf (text, _ ("showing %u of %s rows"), shown, count);
    }
  else
    g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "%u row", "%u rows", shown), shown);
  g_string_append (text, " × ");
  g_string_append_printf (text, g_dngettext (GETTEXT_PACKAGE, "%u column", "%u columns", cols),
                          cols);
  if (more > 0)
    {
      g_string_append (text, " · ");
      g_string_append_printf (text,
                              g_dngettext (GETTEXT_PACKAGE, "%u more column not shown",
                                           "%u more columns not shown", more),
                              more);
    }
  return g_string_free (g_steal_pointer (&text), FALSE);
}

static void show_table (SpTableView *self);

static void
on_loaded (SpDataTable *table, GParamSpec *pspec, SpTableView *self)
{
  if (table == self->table)
    show_table (self);
}

void
sp_table_view_set_table (SpTableView *self, SpDataTable *table, const char *label, const char *text)
{
  g_return_if_fail (SP_IS_TABLE_VIEW (self));
  g_return_if_fail (table == NULL || SP_IS_DATA_TABLE (table));

  if (self->table == table)
    return;
  gtk_sort_list_model_set_model (self->sorted, NULL);
  clear_columns (self);
  if (self->loaded_id != 0)
    g_signal_handler_disconnect (self->table, self->loaded_id);
  self->loaded_id = 0;
  g_set_object (&self->table, table);
  g_free (self->label);
  self->label = g_strdup (label);
  /* The run's text: hidden characters shown as what they are. */
  if (text != NULL && sp_visible_text_has_hidden (text, -1))
    {
      g_autofree char *markup = sp_visible_text_to_markup (text, -1);
      gtk_label_set_markup (GTK_LABEL (self->text), markup);
    }
  else
    gtk_label_set_text (GTK_LABEL (self->text), text ? text : "");
  if (table != NULL)
    self->loaded_id = g_signal_connect_object (table, "notify::loaded", G_CALLBACK (on_loaded),
                                               self, 0);
  show_table (self);
}

/* The table as it is now: reading, read, or no table after all. */
static void
show_table (SpTableView *self)
{
  SpDataTable *table = self->table;
  GtkColumnView *view = GTK_COLUMN_VIEW (self->columns);
  g_autofree char *note = NULL;
  const char *label = self->label;

  gtk_widget_set_visible (self->scroller, FALSE);
  gtk_widget_set_visible (self->copy, FALSE);
  gtk_widget_set_visible (self->more, FALSE);
  gtk_widget_set_visible (self->text, FALSE);
  if (table == NULL)
    {
      gtk_label_set_text (GTK_LABEL (self->note), "");
      return;
    }
  if (!sp_data_table_get_loaded (table))
    {
      /* Translators: a table a program showed, while it is read. */
      note = g_strdup_printf (_ ("%s · reading the table…"), label ? label : "");
      gtk_label_set_text (GTK_LABEL (self->note), note);
      return;
    }
  if (sp_data_table_get_error (table) != NULL)
    {
      /* Its text, as a terminal shows it. */
      gtk_label_set_text (GTK_LABEL (self->note), label ? label : "");
      gtk_widget_set_visible (self->text, TRUE);
      return;
    }
  gtk_widget_set_visible (self->scroller, TRUE);
  gtk_widget_set_visible (self->copy, TRUE);
  /* Tall enough for the first rows whatever the list around it measured
   * first: a row's height is known only once the view has laid it out. */
  gtk_scrolled_window_set_min_content_height (GTK_SCROLLED_WINDOW (self->scroller),
                                              MIN ((int) sp_data_table_get_n_rows (table) + 1,
                                                   MIN_ROWS)
                                                * ROW_HEIGHT);
  note = note_text (table, label);
  gtk_label_set_text (GTK_LABEL (self->note), note);
  for (guint c = 0; c < sp_data_table_get_n_columns (table); c++)
    {
      GtkListItemFactory *factory = gtk_signal_list_item_factory_new ();
      g_autoptr (GtkColumnViewColumn) column = NULL;
      g_autoptr (GtkSorter) sorter = NULL;
      Column *data = column_new (table, c);

      g_signal_connect_data (factory, "setup", G_CALLBACK (setup_cell), data,
                             (GClosureNotify) (void (*) (void)) column_free, 0);
      g_signal_connect (factory, "bind", G_CALLBACK (bind_cell), data);
      /* The column view takes the factory. */
      column = gtk_column_view_column_new (sp_data_table_get_column_name (table, c), factory);
      sorter = GTK_SORTER (
        gtk_custom_sorter_new (compare_rows, column_new (table, c), (GDestroyNotify) column_free));
      gtk_column_view_column_set_sorter (column, sorter);
      gtk_column_view_column_set_resizable (column, TRUE);
      gtk_column_view_append_column (view, column);
    }
  gtk_sort_list_model_set_model (self->sorted, sp_data_table_get_rows (table));
  gtk_slice_list_model_set_size (self->page, PAGE_ROWS);
  gtk_widget_set_visible (self->more, sp_data_table_get_n_rows (table) > PAGE_ROWS);
}

static void
on_more_clicked (SpTableView *self)
{
  guint size = gtk_slice_list_model_get_size (self->page) + PAGE_ROWS;

  gtk_slice_list_model_set_size (self->page, size);
  gtk_widget_set_visible (self->more,
                          self->table != NULL && sp_data_table_get_n_rows (self->table) > size);
}

SpDataTable *
sp_table_view_get_table (SpTableView *self)
{
  g_return_val_if_fail (SP_IS_TABLE_VIEW (self), NULL);
  return self->table;
}

GtkColumnView *
sp_table_view_get_column_view (SpTableView *self)
{
  g_return_val_if_fail (SP_IS_TABLE_VIEW (self), NULL);
  return GTK_COLUMN_VIEW (self->columns);
}

GListModel *
sp_table_view_get_shown_rows (SpTableView *self)
{
  g_return_val_if_fail (SP_IS_TABLE_VIEW (self), NULL);
  return G_LIST_MODEL (self->sorted);
}

GtkWidget *
sp_table_view_new (void)
{
  return g_object_new (SP_TYPE_TABLE_VIEW, NULL);
}

static void
sp_table_view_dispose (GObject *object)
{
  SpTableView *self = SP_TABLE_VIEW (object);
  GtkWidget *child;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  self->bar = self->note = self->copy = self->scroller = self->columns = self->text = NULL;
  self->more = NULL;
  g_clear_object (&self->sorted);
  g_clear_object (&self->page);
  if (self->loaded_id != 0)
    g_signal_handler_disconnect (self->table, self->loaded_id);
  self->loaded_id = 0;
  g_clear_object (&self->table);
  g_clear_pointer (&self->label, g_free);
  G_OBJECT_CLASS (sp_table_view_parent_class)->dispose (object);
}

static void
sp_table_view_class_init (SpTableViewClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_table_view_dispose;
  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BOX_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "tableview");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
}

static void
sp_table_view_init (SpTableView *self)
{
  GtkLayoutManager *layout = gtk_widget_get_layout_manager (GTK_WIDGET (self));
  GtkSorter *sorter;

  gtk_orientable_set_orientation (GTK_ORIENTABLE (layout), GTK_ORIENTATION_VERTICAL);
  gtk_box_layout_set_spacing (GTK_BOX_LAYOUT (layout), 4);

  self->bar = gtk_box_new (GTK_ORIENTATION_HORIZONTAL, 6);
  self->note = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->note), 0);
  gtk_label_set_wrap (GTK_LABEL (self->note), TRUE);
  gtk_widget_set_hexpand (self->note, TRUE);
  gtk_widget_add_css_class (self->note, "dim-label");
  self->copy = gtk_button_new_with_label (_ ("Copy"));
  gtk_widget_add_css_class (self->copy, "flat");
  gtk_widget_set_tooltip_text (self->copy, _ ("Copy the rows as tab-separated text"));
  g_signal_connect_swapped (self->copy, "clicked", G_CALLBACK (on_copy_clicked), self);
  gtk_box_append (GTK_BOX (self->bar), self->note);
  gtk_box_append (GTK_BOX (self->bar), self->copy);

  self->columns = gtk_column_view_new (NULL);
  gtk_column_view_set_show_column_separators (GTK_COLUMN_VIEW (self->columns), TRUE);
  gtk_column_view_set_reorderable (GTK_COLUMN_VIEW (self->columns), FALSE);
  gtk_widget_add_css_class (self->columns, "data-table");
  /* Rows sorted by the column view's sorter: its headers' clicks. */
  sorter = gtk_column_view_get_sorter (GTK_COLUMN_VIEW (self->columns));
  self->sorted = gtk_sort_list_model_new (NULL, g_object_ref (sorter));
  self->page = gtk_slice_list_model_new (g_object_ref (G_LIST_MODEL (self->sorted)), 0, PAGE_ROWS);
  gtk_column_view_set_model (GTK_COLUMN_VIEW (self->columns),
                             GTK_SELECTION_MODEL (
                               gtk_no_selection_new (g_object_ref (G_LIST_MODEL (self->page)))));
  self->scroller = gtk_scrolled_window_new ();
  gtk_scrolled_window_set_policy (GTK_SCROLLED_WINDOW (self->scroller), GTK_POLICY_AUTOMATIC,
                                  GTK_POLICY_AUTOMATIC);
  gtk_scrolled_window_set_propagate_natural_height (GTK_SCROLLED_WINDOW (self->scroller), TRUE);
  gtk_scrolled_window_set_max_content_height (GTK_SCROLLED_WINDOW (self->scroller), MAX_HEIGHT);
  gtk_scrolled_window_set_has_frame (GTK_SCROLLED_WINDOW (self->scroller), TRUE);
  gtk_scrolled_window_set_child (GTK_SCROLLED_WINDOW (self->scroller), self->columns);

  /* Translators: a button under a table a program showed. */
  self->more = gtk_button_new_with_label (_ ("Show More Rows"));
  gtk_widget_add_css_class (self->more, "flat");
  gtk_widget_set_halign (self->more, GTK_ALIGN_START);
  g_signal_connect_swapped (self->more, "clicked", G_CALLBACK (on_more_clicked), self);
  self->text = gtk_label_new (NULL);
  gtk_label_set_xalign (GTK_LABEL (self->text), 0);
  gtk_label_set_selectable (GTK_LABEL (self->text), TRUE);
  gtk_widget_add_css_class (self->text, "output");

  gtk_widget_set_parent (self->bar, GTK_WIDGET (self));
  gtk_widget_set_parent (self->scroller, GTK_WIDGET (self));
  gtk_widget_set_parent (self->more, GTK_WIDGET (self));
  gtk_widget_set_parent (self->text, GTK_WIDGET (self));
}
