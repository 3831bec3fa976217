/* sp-data-row.c: one row of an SpDataTable (sp-data-row.h). */
#include "sp-data-row.h"

struct _SpDataRow
{
  GObject parent_instance;
  guint index;
};

G_DEFINE_FINAL_TYPE (SpDataRow, sp_data_row, G_TYPE_OBJECT)

static void
sp_data_row_class_init (SpDataRowClass *klass)
{
}

static void
sp_data_row_init (SpDataRow *self)
{
}

SpDataRow *
sp_data_row_new (guint index)
{
  SpDataRow *self = g_object_new (SP_TYPE_DATA_ROW, NULL);

  self->index = index;
  return self;
}

guint
sp_data_row_get_index (SpDataRow *self)
{
  g_return_val_if_fail (SP_IS_DATA_ROW (self), 0);
  return self->index;
}
