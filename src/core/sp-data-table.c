/* sp-data-table.c: a table a run displayed (sp-data-table.h). */
#include "config.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "sp-data-row.h"
#include "sp-data-table.h"
#include "sp-visible-text.h"

struct _SpDataTable
{
  GObject parent_instance;

  guint n_columns;
  guint columns_left_out;
  guint total_columns; /* the object's columns, its index not counted */
  char **names;        /* n_columns, as shown */
  char **raw_names;    /* n_columns, as the rows' keys */
  gboolean *numeric;   /* n_columns */
  gboolean *is_index;  /* n_columns */
  guint n_rows;
  guint64 total_rows;
  char **cells;    /* n_rows * n_columns, row by row */
  double *numbers; /* the same places: a numeric column's values, NAN for none */
  char ***keys;    /* per column, its cells' collation keys, made on first sort */
  GListStore *rows;

  char *json; /* until it is read */
  gboolean loading, loaded;
  GError *error;
};

G_DEFINE_FINAL_TYPE (SpDataTable, sp_data_table, G_TYPE_OBJECT)

enum
{
  PROP_0,
  PROP_LOADED,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

static void
sp_data_table_finalize (GObject *object)
{
  SpDataTable *self = SP_DATA_TABLE (object);

  for (guint c = 0; c < self->n_columns; c++)
    {
      g_free (self->names[c]);
      g_free (self->raw_names[c]);
      if (self->keys[c] != NULL)
        for (guint r = 0; r < self->n_rows; r++)
          g_free (self->keys[c][r]);
      g_free (self->keys[c]);
    }
  for (gsize i = 0; i < (gsize) self->n_rows * self->n_columns; i++)
    g_free (self->cells[i]);
  g_free (self->names);
  g_free (self->raw_names);
  g_free (self->numeric);
  g_free (self->is_index);
  g_free (self->keys);
  g_free (self->cells);
  g_free (self->numbers);
  g_clear_object (&self->rows);
  g_free (self->json);
  g_clear_error (&self->error);
  G_OBJECT_CLASS (sp_data_table_parent_class)->finalize (object);
}

static void
sp_data_table_get_property (GObject *object, guint prop_id, GValue *value, GParamSpec *pspec)
{
  SpDataTable *self = SP_DATA_TABLE (object);

  switch (prop_id)
    {
    case PROP_LOADED:
      g_value_set_boolean (value, self->loaded);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
sp_data_table_class_init (SpDataTableClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);

  object_class->finalize = sp_data_table_finalize;
  object_class->get_property = sp_data_table_get_property;
  properties[PROP_LOADED] = g_param_spec_boolean ("loaded", NULL, NULL, FALSE,
                                                  G_PARAM_READABLE | G_PARAM_STATIC_STRINGS
                                                    | G_PARAM_EXPLICIT_NOTIFY);
  g_object_class_install_properties (object_class, N_PROPS, properties);
}

static void
sp_data_table_init (SpDataTable *self)
{
}

/* A run's text made safe to show as one cell: control characters (line
 * breaks, tabs, escapes) as spaces, so a cell is one line; cut to the
 * cap; hidden characters as their code points. */
static char *
clean_text (const char *text)
{
  g_autofree char *valid = NULL;
  gsize len = 0;

  /* Most cells are short printable ASCII: nothing to change. */
  while (text[len] >= 0x20 && text[len] < 0x7f && len <= SP_DATA_TABLE_MAX_CELL)
    len++;
  if (text[len] == '\0' && len <= SP_DATA_TABLE_MAX_CELL)
    return g_strndup (text, len);
  valid = g_utf8_make_valid (text, -1);
  g_autoptr (GString) out = g_string_new (NULL);
  guint n = 0;

  for (const char *p = valid; *p != '\0'; p = g_utf8_next_char (p))
    {
      gunichar c = g_utf8_get_char (p);
      if (n == SP_DATA_TABLE_MAX_CELL)
        {
          g_string_append (out, "…");
          break;
        }
      if (c < 0x20 || (c >= 0x7f && c < 0xa0))
        g_string_append_c (out, ' ');
      else
        g_string_append_unichar (out, c);
      n++;
    }
  return sp_visible_text_escape (out->str, (gssize) out->len, NULL);
}

/* A real as pandas prints it: the shortest digits that read back the
 * same, and a whole number still looks like a float ("2.0"). */
static char *
real_text (double v)
{
  char buf[G_ASCII_DTOSTR_BUF_SIZE];

  if (!isfinite (v))
    return g_strdup (isnan (v) ? "NaN" : v > 0 ? "inf" : "-inf");
  for (int digits = 15; digits <= 17; digits++)
    {
      g_ascii_formatd (buf, sizeof buf,
                       digits == 15   ? "%.15g"
                       : digits == 16 ? "%.16g"
                                      : "%.17g",
                       v);
      if (g_ascii_strtod (buf, NULL) == v)
        break;
    }
  if (strpbrk (buf, ".eEn") == NULL)
    return g_strconcat (buf, ".0", NULL);
  return g_strdup (buf);
}

static char *
cell_text (json_t *value, double *number)
{
  *number = NAN;
  if (value == NULL || json_is_null (value))
    return g_strdup ("");
  if (json_is_string (value))
    return clean_text (json_string_value (value));
  if (json_is_integer (value))
    {
      *number = (double) json_integer_value (value);
      return g_strdup_printf ("%" JSON_INTEGER_FORMAT, json_integer_value (value));
    }
  if (json_is_real (value))
    {
      *number = json_real_value (value);
      return real_text (*number);
    }
  if (json_is_boolean (value))
    return g_strdup (json_is_true (value) ? "True" : "False");
  /* A list or a dict in a cell: its JSON, as one line. */
  g_autofree char *dumped = json_dumps (value, JSON_COMPACT | JSON_ENCODE_ANY);
  return clean_text (dumped ? dumped : "");
}

static gboolean
fail (GError **error, const char *what)
{
  g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "not a table: %s", what);
  return FALSE;
}

static gboolean
in_primary_key (json_t *key, const char *name)
{
  size_t i;
  json_t *v;

  if (json_is_string (key))
    return g_strcmp0 (json_string_value (key), name) == 0;
  json_array_foreach (key, i, v)
    if (g_strcmp0 (json_string_value (v), name) == 0)
      return TRUE;
  return FALSE;
}

static gboolean
read_schema (SpDataTable *self, json_t *schema, GError **error)
{
  json_t *fields = json_object_get (schema, "fields");
  json_t *key = json_object_get (schema, "primaryKey");
  size_t n;

  if (!json_is_array (fields) || json_array_size (fields) == 0)
    return fail (error, "schema.fields is not a list of fields");
  if (key != NULL && !json_is_string (key) && !json_is_array (key))
    return fail (error, "schema.primaryKey is neither a name nor a list");
  n = json_array_size (fields);
  self->n_columns = (guint) MIN (n, SP_DATA_TABLE_MAX_COLUMNS);
  self->columns_left_out = (guint) (n - self->n_columns);
  self->names = g_new0 (char *, self->n_columns);
  self->raw_names = g_new0 (char *, self->n_columns);
  self->numeric = g_new0 (gboolean, self->n_columns);
  self->is_index = g_new0 (gboolean, self->n_columns);
  self->keys = g_new0 (char **, self->n_columns);
  for (guint c = 0; c < n; c++)
    {
      json_t *field = json_array_get (fields, c);
      json_t *name = json_object_get (field, "name");
      json_t *type = json_object_get (field, "type");

      if (!json_is_object (field) || !json_is_string (name))
        return fail (error, "a field has no name");
      if (type != NULL && !json_is_string (type))
        return fail (error, "a field's type is not a string");
      if (c >= self->n_columns)
        continue;
      self->raw_names[c] = g_strdup (json_string_value (name));
      self->names[c] = clean_text (self->raw_names[c]);
      self->numeric[c] = type != NULL
                         && (g_str_equal (json_string_value (type), "integer")
                             || g_str_equal (json_string_value (type), "number"));
      self->is_index[c] = key != NULL && in_primary_key (key, self->raw_names[c]);
    }
  return TRUE;
}

/* How many columns the object had, as pandas counts them: its index is
 * not one. The runner sends a wide frame's first columns only, with
 * total_columns the count of all (sp-data-table.h). */
static gboolean
count_columns (SpDataTable *self, json_t *fields, json_t *key, json_t *total, GError **error)
{
  size_t n = json_array_size (fields);
  guint data_sent = 0, data_kept = 0;

  for (size_t c = 0; c < n; c++)
    {
      json_t *name = json_object_get (json_array_get (fields, c), "name");

      if (key != NULL && in_primary_key (key, json_string_value (name)))
        continue;
      data_sent++;
      if (c < self->n_columns)
        data_kept++;
    }
  if (total != NULL
      && (!json_is_integer (total) || json_integer_value (total) < (json_int_t) data_sent
          || json_integer_value (total) > G_MAXUINT))
    return fail (error, "total_columns is not a count of at least the columns sent");
  self->total_columns = total != NULL ? (guint) json_integer_value (total) : data_sent;
  self->columns_left_out = self->total_columns - data_kept;
  return TRUE;
}

static gboolean
read_rows (SpDataTable *self, json_t *data, json_t *total, GError **error)
{
  size_t n;

  if (!json_is_array (data))
    return fail (error, "data is not a list of rows");
  if (total != NULL && (!json_is_integer (total) || json_integer_value (total) < 0))
    return fail (error, "total_rows is not a count");
  n = json_array_size (data);
  if (total != NULL && (guint64) json_integer_value (total) < n)
    return fail (error, "total_rows is less than the rows sent");
  self->total_rows = total != NULL ? (guint64) json_integer_value (total) : n;
  self->n_rows = (guint) MIN (n, SP_DATA_TABLE_MAX_ROWS);
  self->cells = g_new0 (char *, (gsize) self->n_rows * self->n_columns);
  self->numbers = g_new0 (double, (gsize) self->n_rows * self->n_columns);
  for (guint r = 0; r < self->n_rows; r++)
    {
      json_t *row = json_array_get (data, r);

      if (!json_is_object (row))
        return fail (error, "a row is not an object");
      for (guint c = 0; c < self->n_columns; c++)
        {
          gsize i = (gsize) r * self->n_columns + c;
          self->cells[i] = cell_text (json_object_get (row, self->raw_names[c]), &self->numbers[i]);
          /* A number the runner sent as text (past 64 bits) still sorts
           * by value. */
          if (self->numeric[c] && isnan (self->numbers[i]) && self->cells[i][0] != '\0')
            {
              char *end = NULL;
              double v = g_ascii_strtod (self->cells[i], &end);
              if (end != NULL && *end == '\0')
                self->numbers[i] = v;
            }
        }
    }
  return TRUE;
}

/* A new table read from json, or NULL; any thread (it touches nothing
 * but the new object). */
static SpDataTable *
parse (const char *json, GError **error)
{
  g_autoptr (SpDataTable) self = NULL;
  json_t *root, *schema;
  json_error_t jerr;
  gboolean ok;

  root = json_loads (json, JSON_REJECT_DUPLICATES, &jerr);
  if (root == NULL)
    {
      /* jansson quotes the bytes it stopped at, which need not be UTF-8
       * (found by tests/fuzz/fuzz-table). */
      g_autofree char *why = g_utf8_make_valid (jerr.text, -1);
      g_set_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_DATA, "not a table: %s", why);
      return NULL;
    }
  self = g_object_new (SP_TYPE_DATA_TABLE, NULL);
  schema = json_object_get (root, "schema");
  ok = (json_is_object (root) || fail (error, "not an object"))
       && (json_is_object (schema) || fail (error, "there is no schema"))
       && read_schema (self, schema, error)
       && count_columns (self, json_object_get (schema, "fields"),
                         json_object_get (schema, "primaryKey"),
                         json_object_get (root, "total_columns"), error)
       && read_rows (self, json_object_get (root, "data"), json_object_get (root, "total_rows"),
                     error);
  json_decref (root);
  if (ok)
    self->loaded = TRUE;
  return ok ? g_steal_pointer (&self) : NULL;
}

SpDataTable *
sp_data_table_new_from_json (const char *json, GError **error)
{
  g_return_val_if_fail (json != NULL, NULL);
  return parse (json, error);
}

SpDataTable *
sp_data_table_new (const char *json)
{
  SpDataTable *self;

  g_return_val_if_fail (json != NULL, NULL);
  self = g_object_new (SP_TYPE_DATA_TABLE, NULL);
  self->json = g_strdup (json);
  return self;
}

static void
load_thread (GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
  GError *error = NULL;
  SpDataTable *read = parse (data, &error);

  if (read == NULL)
    g_task_return_error (task, error);
  else
    g_task_return_pointer (task, read, g_object_unref);
}

#define SWAP(a, b)                                                                                 \
  G_STMT_START                                                                                     \
  {                                                                                                \
    __typeof__ (a) swap_tmp_ = (a);                                                                \
    (a) = (b);                                                                                     \
    (b) = swap_tmp_;                                                                               \
  }                                                                                                \
  G_STMT_END

/* On the main thread: what the worker read becomes this table's (the
 * other object, now empty, goes). */
static void
take_parsed (SpDataTable *self, SpDataTable *read)
{
  SWAP (self->n_columns, read->n_columns);
  SWAP (self->columns_left_out, read->columns_left_out);
  SWAP (self->total_columns, read->total_columns);
  SWAP (self->names, read->names);
  SWAP (self->raw_names, read->raw_names);
  SWAP (self->numeric, read->numeric);
  SWAP (self->is_index, read->is_index);
  SWAP (self->n_rows, read->n_rows);
  SWAP (self->total_rows, read->total_rows);
  SWAP (self->cells, read->cells);
  SWAP (self->numbers, read->numbers);
  SWAP (self->keys, read->keys);
}

static void
on_loaded (GObject *object, GAsyncResult *result, gpointer user_data)
{
  SpDataTable *self = SP_DATA_TABLE (object);
  g_autoptr (GError) error = NULL;
  g_autoptr (SpDataTable) read = g_task_propagate_pointer (G_TASK (result), &error);
  GList *waiting = g_object_steal_data (object, "sp-waiting");

  self->loading = FALSE;
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED) && waiting == NULL)
    return;
  if (read != NULL)
    take_parsed (self, read);
  else if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    self->error = g_error_copy (error);
  if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CANCELLED))
    {
      g_clear_pointer (&self->json, g_free);
      self->loaded = TRUE;
      g_object_notify_by_pspec (object, properties[PROP_LOADED]);
    }
  for (GList *l = waiting; l != NULL; l = l->next)
    {
      g_autoptr (GTask) task = l->data;
      if (self->error != NULL)
        g_task_return_error (task, g_error_copy (self->error));
      else if (error != NULL)
        g_task_return_error (task, g_error_copy (error));
      else
        g_task_return_boolean (task, TRUE);
    }
  g_list_free (waiting);
}

void
sp_data_table_load_async (SpDataTable *self, GCancellable *cancellable,
                          GAsyncReadyCallback callback, gpointer user_data)
{
  g_autoptr (GTask) task = NULL;

  g_return_if_fail (SP_IS_DATA_TABLE (self));

  task = g_task_new (self, cancellable, callback, user_data);
  g_task_set_source_tag (task, sp_data_table_load_async);
  if (self->loaded)
    {
      if (self->error != NULL)
        g_task_return_error (task, g_error_copy (self->error));
      else
        g_task_return_boolean (task, TRUE);
      return;
    }
  /* Answered when the read on its way ends. */
  g_object_set_data (G_OBJECT (self), "sp-waiting",
                     g_list_append (g_object_steal_data (G_OBJECT (self), "sp-waiting"),
                                    g_steal_pointer (&task)));
  if (!self->loading)
    {
      g_autoptr (GTask) read = g_task_new (self, cancellable, on_loaded, NULL);
      self->loading = TRUE;
      /* Kept until on_loaded, on this thread; the task holds self. */
      g_task_set_task_data (read, self->json, NULL);
      g_task_run_in_thread (read, load_thread);
    }
}

gboolean
sp_data_table_load_finish (SpDataTable *self, GAsyncResult *result, GError **error)
{
  g_return_val_if_fail (g_task_is_valid (result, self), FALSE);
  return g_task_propagate_boolean (G_TASK (result), error);
}

gboolean
sp_data_table_get_loaded (SpDataTable *self)
{
  g_return_val_if_fail (SP_IS_DATA_TABLE (self), FALSE);
  return self->loaded;
}

const GError *
sp_data_table_get_error (SpDataTable *self)
{
  g_return_val_if_fail (SP_IS_DATA_TABLE (self), NULL);
  return self->error;
}

guint
sp_data_table_get_n_columns (SpDataTable *self)
{
  g_return_val_if_fail (SP_IS_DATA_TABLE (self), 0);
  return self->n_columns;
}

guint
sp_data_table_get_columns_left_out (SpDataTable *self)
{
  g_return_val_if_fail (SP_IS_DATA_TABLE (self), 0);
  return self->columns_left_out;
}

guint
sp_data_table_get_total_columns (SpDataTable *self)
{
  g_return_val_if_fail (SP_IS_DATA_TABLE (self), 0);
  return self->total_columns;
}

const char *
sp_data_table_get_column_name (SpDataTable *self, guint column)
{
  g_return_val_if_fail (SP_IS_DATA_TABLE (self), NULL);
  g_return_val_if_fail (column < self->n_columns, NULL);
  return self->names[column];
}

gboolean
sp_data_table_get_column_numeric (SpDataTable *self, guint column)
{
  g_return_val_if_fail (SP_IS_DATA_TABLE (self), FALSE);
  g_return_val_if_fail (column < self->n_columns, FALSE);
  return self->numeric[column];
}

gboolean
sp_data_table_get_column_index (SpDataTable *self, guint column)
{
  g_return_val_if_fail (SP_IS_DATA_TABLE (self), FALSE);
  g_return_val_if_fail (column < self->n_columns, FALSE);
  return self->is_index[column];
}

guint
sp_data_table_get_n_rows (SpDataTable *self)
{
  g_return_val_if_fail (SP_IS_DATA_TABLE (self), 0);
  return self->n_rows;
}

guint64
sp_data_table_get_total_rows (SpDataTable *self)
{
  g_return_val_if_fail (SP_IS_DATA_TABLE (self), 0);
  return self->total_rows;
}

const char *
sp_data_table_get_cell (SpDataTable *self, guint row, guint column)
{
  g_return_val_if_fail (SP_IS_DATA_TABLE (self), NULL);
  g_return_val_if_fail (row < self->n_rows && column < self->n_columns, NULL);
  return self->cells[(gsize) row * self->n_columns + column];
}

int
sp_data_table_compare (SpDataTable *self, guint column, guint row_a, guint row_b)
{
  gsize a = (gsize) row_a * self->n_columns + column;
  gsize b = (gsize) row_b * self->n_columns + column;
  gboolean empty_a, empty_b;

  g_return_val_if_fail (SP_IS_DATA_TABLE (self), 0);
  g_return_val_if_fail (row_a < self->n_rows && row_b < self->n_rows, 0);
  g_return_val_if_fail (column < self->n_columns, 0);

  if (self->numeric[column])
    {
      double x = self->numbers[a], y = self->numbers[b];
      empty_a = isnan (x);
      empty_b = isnan (y);
      if (!empty_a && !empty_b)
        return x < y ? -1 : x > y;
    }
  else
    {
      empty_a = self->cells[a][0] == '\0';
      empty_b = self->cells[b][0] == '\0';
      if (!empty_a && !empty_b)
        {
          if (self->keys[column] == NULL)
            {
              self->keys[column] = g_new0 (char *, self->n_rows);
              for (guint r = 0; r < self->n_rows; r++)
                self->keys[column][r]
                  = g_utf8_collate_key (self->cells[(gsize) r * self->n_columns + column], -1);
            }
          return strcmp (self->keys[column][row_a], self->keys[column][row_b]);
        }
    }
  /* Empty cells last, whichever way the view sorts. */
  return empty_a == empty_b ? 0 : empty_a ? 1 : -1;
}

GListModel *
sp_data_table_get_rows (SpDataTable *self)
{
  g_return_val_if_fail (SP_IS_DATA_TABLE (self), NULL);
  g_return_val_if_fail (self->loaded, NULL);

  /* Made when a view first shows the table. */
  if (self->rows == NULL)
    {
      g_autoptr (GPtrArray) rows = g_ptr_array_new_with_free_func (g_object_unref);
      self->rows = g_list_store_new (SP_TYPE_DATA_ROW);
      for (guint r = 0; r < self->n_rows; r++)
        g_ptr_array_add (rows, sp_data_row_new (r));
      g_list_store_splice (self->rows, 0, 0, rows->pdata, rows->len);
    }
  return G_LIST_MODEL (self->rows);
}

char *
sp_data_table_to_tsv (SpDataTable *self, const guint *order, guint n_order)
{
  g_autoptr (GString) out = g_string_new (NULL);

  g_return_val_if_fail (SP_IS_DATA_TABLE (self), NULL);

  for (guint c = 0; c < self->n_columns; c++)
    {
      g_string_append (out, self->names[c]);
      g_string_append_c (out, c + 1 < self->n_columns ? '\t' : '\n');
    }
  if (order == NULL)
    n_order = self->n_rows;
  for (guint i = 0; i < n_order; i++)
    {
      guint r = order != NULL ? order[i] : i;
      g_return_val_if_fail (r < self->n_rows, NULL);
      for (guint c = 0; c < self->n_columns; c++)
        {
          g_string_append (out, self->cells[(gsize) r * self->n_columns + c]);
          g_string_append_c (out, c + 1 < self->n_columns ? '\t' : '\n');
        }
    }
  return g_string_free (g_steal_pointer (&out), FALSE);
}
