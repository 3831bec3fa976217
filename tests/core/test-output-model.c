/* test-output-model.c: coalescing, change notifications and the cap. */
#include <string.h>

#include "sp-output-model.h"

typedef struct
{
  guint calls;
  guint position, removed, added;
} Changes;

static void
on_items_changed (GListModel *model, guint position, guint removed, guint added, Changes *c)
{
  c->calls++;
  c->position = position;
  c->removed = removed;
  c->added = added;
}

static SpOutputItem *
item (SpOutputModel *model, guint i)
{
  SpOutputItem *it = g_list_model_get_item (G_LIST_MODEL (model), i);
  g_object_unref (it); /* the model keeps it */
  return it;
}

static void
test_coalesce (void)
{
  SpOutputModel *model = sp_output_model_new ();
  Changes c = { 0 };

  g_signal_connect (model, "items-changed", G_CALLBACK (on_items_changed), &c);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "hel");
  g_assert_cmpuint (c.calls, ==, 1);
  g_assert_cmpuint (c.added, ==, 1);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "lo\n");
  /* Same stream: the last row grows, reported as a changed row. */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 1);
  g_assert_cmpuint (c.calls, ==, 2);
  g_assert_cmpuint (c.position, ==, 0);
  g_assert_cmpuint (c.removed, ==, 1);
  g_assert_cmpuint (c.added, ==, 1);
  g_assert_cmpstr (sp_output_item_get_text (item (model, 0)), ==, "hello\n");
  sp_output_model_append (model, SP_OUTPUT_STDERR, "err\n");
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "more\n");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 3);
  g_assert_cmpint (sp_output_item_get_kind (item (model, 1)), ==, SP_OUTPUT_STDERR);
  g_assert_cmpuint (c.position, ==, 2);
  g_assert_cmpuint (c.removed, ==, 0);

  sp_output_model_clear (model);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 0);
  g_assert_cmpuint (c.removed, ==, 3);
  g_signal_handlers_disconnect_by_data (model, &c);
  g_assert_finalize_object (model);
}

static void
test_split_and_cap (void)
{
  SpOutputModel *model = sp_output_model_new ();
  g_autofree char *big = g_strnfill (SP_OUTPUT_MODEL_ITEM_BYTES * 3 + 10, 'x');
  guint n;

  sp_output_model_set_max_bytes (model, SP_OUTPUT_MODEL_ITEM_BYTES * 10);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, big);
  n = g_list_model_get_n_items (G_LIST_MODEL (model));
  g_assert_cmpuint (n, ==, 4); /* no row holds more than an item's worth */
  for (guint i = 0; i < n; i++)
    g_assert_cmpuint (sp_output_item_get_length (item (model, i)), <=, SP_OUTPUT_MODEL_ITEM_BYTES);
  g_assert_false (sp_output_model_get_truncated (model));

  for (int i = 0; i < 10; i++)
    sp_output_model_append (model, SP_OUTPUT_STDOUT, big);
  g_assert_true (sp_output_model_get_truncated (model));
  n = g_list_model_get_n_items (G_LIST_MODEL (model));
  /* Exactly one notice, last, and nothing after it. */
  g_assert_cmpint (sp_output_item_get_kind (item (model, n - 1)), ==, SP_OUTPUT_NOTICE);
  for (guint i = 0; i + 1 < n; i++)
    g_assert_cmpint (sp_output_item_get_kind (item (model, i)), !=, SP_OUTPUT_NOTICE);
  sp_output_model_append (model, SP_OUTPUT_STDERR, "late");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, n);
  g_assert_finalize_object (model);
}

static void
test_utf8_boundary (void)
{
  SpOutputModel *model = sp_output_model_new ();
  /* 2-byte characters across the item size: no row may end mid-character. */
  GString *text = g_string_new (NULL);

  for (int i = 0; i < SP_OUTPUT_MODEL_ITEM_BYTES; i++)
    g_string_append (text, "é");
  sp_output_model_append (model, SP_OUTPUT_STDOUT, text->str);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
    g_assert_true (g_utf8_validate (sp_output_item_get_text (item (model, i)), -1, NULL));
  g_string_free (text, TRUE);
  g_assert_finalize_object (model);
}

/* A view that only knows what items-changed told it: replaying every
 * signal on a copy must give exactly the model's items, in order. */
typedef struct
{
  GListModel *model;
  GPtrArray *copy;
  guint signals;
} Mirror;

static void
on_mirror_changed (GListModel *model, guint position, guint removed, guint added, Mirror *m)
{
  g_assert_cmpuint (position + removed, <=, m->copy->len);
  g_ptr_array_remove_range (m->copy, position, removed);
  for (guint i = 0; i < added; i++)
    g_ptr_array_insert (m->copy, position + i, g_list_model_get_item (model, position + i));
  g_assert_cmpuint (m->copy->len, ==, g_list_model_get_n_items (model));
  m->signals++;
}

static void
mirror_init (Mirror *m, SpOutputModel *model)
{
  m->model = G_LIST_MODEL (model);
  m->copy = g_ptr_array_new_with_free_func (g_object_unref);
  m->signals = 0;
  g_signal_connect (model, "items-changed", G_CALLBACK (on_mirror_changed), m);
}

static void
mirror_check_and_clear (Mirror *m)
{
  g_assert_cmpuint (m->copy->len, ==, g_list_model_get_n_items (m->model));
  for (guint i = 0; i < m->copy->len; i++)
    {
      g_autoptr (SpOutputItem) it = g_list_model_get_item (m->model, i);
      g_assert_true (g_ptr_array_index (m->copy, i) == it);
    }
  g_signal_handlers_disconnect_by_data (m->model, m);
  g_ptr_array_unref (m->copy);
}

/* A flood of one-byte chunks makes a handful of rows, not thousands, and
 * every change was announced at the right place. */
static void
test_tiny_chunks (void)
{
  SpOutputModel *model = sp_output_model_new ();
  const guint n = 100000;
  gsize total = 0;
  Mirror m;

  mirror_init (&m, model);
  for (guint i = 0; i < n; i++)
    sp_output_model_append (model, SP_OUTPUT_STDOUT, i % 80 == 79 ? "\n" : "a");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==,
                    (n + SP_OUTPUT_MODEL_ITEM_BYTES - 1) / SP_OUTPUT_MODEL_ITEM_BYTES);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
    total += sp_output_item_get_length (item (model, i));
  g_assert_cmpuint (total, ==, n);
  g_assert_cmpuint (m.signals, ==, n);
  mirror_check_and_clear (&m);
  g_assert_finalize_object (model);
}

/* Streams alternate: one row per change of stream, each announced as an
 * addition at the end; growing the last row is a change of that row. */
static void
test_interleaved_streams (void)
{
  SpOutputModel *model = sp_output_model_new ();
  Changes c = { 0 };
  Mirror m;

  mirror_init (&m, model);
  g_signal_connect (model, "items-changed", G_CALLBACK (on_items_changed), &c);
  for (int i = 0; i < 10; i++)
    {
      sp_output_model_append (model, i % 2 ? SP_OUTPUT_STDERR : SP_OUTPUT_STDOUT, "x");
      g_assert_cmpuint (c.position, ==, (guint) i);
      g_assert_cmpuint (c.removed, ==, 0);
      g_assert_cmpuint (c.added, ==, 1);
      sp_output_model_append (model, i % 2 ? SP_OUTPUT_STDERR : SP_OUTPUT_STDOUT, "y");
      g_assert_cmpuint (c.position, ==, (guint) i);
      g_assert_cmpuint (c.removed, ==, 1);
      g_assert_cmpuint (c.added, ==, 1);
    }
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 10);
  g_assert_cmpint (sp_output_item_get_kind (item (model, 9)), ==, SP_OUTPUT_STDERR);
  g_assert_cmpstr (sp_output_item_get_text (item (model, 9)), ==, "xy");
  g_signal_handlers_disconnect_by_data (model, &c);
  mirror_check_and_clear (&m);
  g_assert_finalize_object (model);
}

/* Exactly at the cap is not truncated; one byte more is, once. */
static void
test_cap_boundary (void)
{
  SpOutputModel *model = sp_output_model_new ();
  g_autoptr (GString) kept = g_string_new (NULL);
  guint n;
  Mirror m;

  mirror_init (&m, model);
  sp_output_model_set_max_bytes (model, 10);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "01234");
  sp_output_model_append (model, SP_OUTPUT_STDERR, "56789");
  g_assert_false (sp_output_model_get_truncated (model));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 2);

  sp_output_model_append (model, SP_OUTPUT_STDERR, "!");
  g_assert_true (sp_output_model_get_truncated (model));
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "more");
  sp_output_model_append (model, SP_OUTPUT_STDERR, "and more");
  n = g_list_model_get_n_items (G_LIST_MODEL (model));
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpint (sp_output_item_get_kind (item (model, 2)), ==, SP_OUTPUT_NOTICE);
  g_assert_nonnull (strstr (sp_output_item_get_text (item (model, 2)), "truncated"));
  for (guint i = 0; i < 2; i++)
    g_string_append (kept, sp_output_item_get_text (item (model, i)));
  g_assert_cmpstr (kept->str, ==, "0123456789");
  mirror_check_and_clear (&m);

  /* clear() lifts the cap's verdict with the text. */
  sp_output_model_clear (model);
  g_assert_false (sp_output_model_get_truncated (model));
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "abcdé"); /* 6 bytes, cap 10 */
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "fghé"); /* the cap falls inside é */
  g_assert_true (sp_output_model_get_truncated (model));
  g_assert_cmpstr (sp_output_item_get_text (item (model, 0)), ==, "abcdéfgh");
  g_assert_finalize_object (model);
}

static const char *
only_text (SpOutputModel *model)
{
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 1);
  return sp_output_item_get_text (item (model, 0));
}

/* A tqdm-style progress loop ends as one line, in whatever pieces the
 * program's writes arrive, and a CRLF is a plain line end. */
static void
test_carriage_return (void)
{
  SpOutputModel *model = sp_output_model_new ();

  sp_output_model_append (model, SP_OUTPUT_STDOUT, "start\n");
  for (int i = 0; i <= 100; i += 10)
    {
      g_autofree char *bar = g_strdup_printf ("\r%3d%% [%.*s]", i, i / 10, "##########");
      sp_output_model_append (model, SP_OUTPUT_STDOUT, bar);
    }
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "\n");
  g_assert_cmpstr (only_text (model), ==, "start\n100% [##########]\n");

  sp_output_model_clear (model);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "one\r");
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "\ntwo\r\n");
  g_assert_cmpstr (only_text (model), ==, "one\ntwo\n");

  sp_output_model_clear (model);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "old\r");
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "new");
  g_assert_cmpstr (only_text (model), ==, "new");
  g_assert_finalize_object (model);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/OutputModel/coalesce", test_coalesce);
  g_test_add_func ("/Sandpad/OutputModel/split-and-cap", test_split_and_cap);
  g_test_add_func ("/Sandpad/OutputModel/utf8-boundary", test_utf8_boundary);
  g_test_add_func ("/Sandpad/OutputModel/carriage-return", test_carriage_return);
  g_test_add_func ("/Sandpad/OutputModel/tiny-chunks", test_tiny_chunks);
  g_test_add_func ("/Sandpad/OutputModel/interleaved-streams", test_interleaved_streams);
  g_test_add_func ("/Sandpad/OutputModel/cap-boundary", test_cap_boundary);
  return g_test_run ();
}
