/* test-output-model.c: coalescing, change notifications and the cap. */
#include <glib/gstdio.h>
#include <signal.h>
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
count_notify (guint *count)
{
  (*count)++;
}

static void
test_coalesce (void)
{
  SpOutputModel *model = sp_output_model_new ();
  Changes c = { 0 };
  guint notified = 0;

  g_signal_connect (model, "items-changed", G_CALLBACK (on_items_changed), &c);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "hel");
  g_assert_cmpuint (c.calls, ==, 1);
  g_assert_cmpuint (c.added, ==, 1);
  g_signal_connect_swapped (item (model, 0), "notify::text", G_CALLBACK (count_notify), &notified);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "lo\n");
  /* Same stream: the last row grows and says so; the list is unchanged. */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 1);
  g_assert_cmpuint (c.calls, ==, 1);
  g_assert_cmpuint (notified, ==, 1);
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
test_utf8_boundary (void)
{
  SpOutputModel *model = sp_output_model_new ();
  /* 2-byte characters across the item size, one byte off: the row must not
   * end mid-character, and the fold counts the characters left out. */
  GString *text = g_string_new ("a");
  SpOutputItem *row;

  for (int i = 0; i < SP_OUTPUT_MODEL_ITEM_BYTES; i++)
    g_string_append (text, "é");
  sp_output_model_append (model, SP_OUTPUT_STDOUT, text->str);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 1);
  row = item (model, 0);
  g_assert_true (g_utf8_validate (sp_output_item_get_text (row), -1, NULL));
  g_assert_cmpuint (sp_output_item_get_length (row), ==, SP_OUTPUT_MODEL_ITEM_BYTES - 1);
  g_assert_cmpuint (sp_output_item_get_folded (row) + sp_output_item_get_length (row), ==,
                    text->len);
  g_assert_cmpuint (sp_output_item_get_folded_chars (row), ==,
                    SP_OUTPUT_MODEL_ITEM_BYTES - (SP_OUTPUT_MODEL_ITEM_BYTES - 2) / 2);
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
  /* One row per line (80 bytes each): a handful per chunk of text. */
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==,
                    (n / 80 + SP_OUTPUT_MODEL_ROW_LINES - 1) / SP_OUTPUT_MODEL_ROW_LINES);
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
    total += sp_output_item_get_length (item (model, i));
  g_assert_cmpuint (total, ==, n);
  /* One signal per new row; growing rows notify their text instead. */
  g_assert_cmpuint (m.signals, ==, g_list_model_get_n_items (G_LIST_MODEL (model)));
  mirror_check_and_clear (&m);
  g_assert_finalize_object (model);
}

/* Streams alternate: one row per change of stream, each announced as an
 * addition at the end; growing the last row is no change of the list. */
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
      g_assert_cmpuint (c.calls, ==, (guint) i + 1); /* a row grew: no change of the list */
    }
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 10);
  g_assert_cmpint (sp_output_item_get_kind (item (model, 9)), ==, SP_OUTPUT_STDERR);
  g_assert_cmpstr (sp_output_item_get_text (item (model, 9)), ==, "xy");
  g_signal_handlers_disconnect_by_data (model, &c);
  mirror_check_and_clear (&m);
  g_assert_finalize_object (model);
}

static char *
all_text (SpOutputModel *model)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
    g_string_append (text, sp_output_item_get_text (item (model, i)));
  return g_string_free (text, FALSE);
}

/* Exactly at the cap nothing is hidden; past it the first lines go, are
 * counted, and every removal was announced where it happened. */
static void
test_tail (void)
{
  SpOutputModel *model = sp_output_model_new ();
  g_autofree char *text = NULL;
  Mirror m;

  mirror_init (&m, model);
  sp_output_model_set_max_lines (model, 100);
  for (guint i = 0; i < 100; i++)
    {
      g_autofree char *line = g_strdup_printf ("%u\n", i);
      sp_output_model_append (model, i % 3 ? SP_OUTPUT_STDOUT : SP_OUTPUT_STDERR, line);
    }
  g_assert_false (sp_output_model_get_truncated (model));
  g_assert_cmpuint (sp_output_model_get_hidden_lines (model), ==, 0);
  for (guint i = 100; i < 1000; i++)
    {
      g_autofree char *line = g_strdup_printf ("%u\n", i);
      sp_output_model_append (model, SP_OUTPUT_STDOUT, line);
    }
  g_assert_true (sp_output_model_get_truncated (model));
  text = all_text (model);
  {
    /* At most the cap is shown, at least the three quarters trimming
     * cuts down to; what is not shown is counted, and is the start. */
    guint shown = 0;
    g_autofree char *first = NULL;
    for (const char *p = text; *p; p++)
      shown += *p == '\n';
    g_assert_cmpuint (shown, <=, 100);
    g_assert_cmpuint (shown, >=, 75);
    g_assert_cmpuint (sp_output_model_get_hidden_lines (model) + shown, ==, 1000);
    first = g_strdup_printf ("%" G_GUINT64_FORMAT "\n", sp_output_model_get_hidden_lines (model));
    g_assert_true (g_str_has_prefix (text, first));
  }
  g_assert_true (g_str_has_suffix (text, "998\n999\n"));
  /* Rows hold at most ROW_LINES lines, so no row costs a view much. */
  for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
    {
      const char *row = sp_output_item_get_text (item (model, i));
      guint lines = 0;
      for (const char *p = row; *p; p++)
        lines += *p == '\n';
      g_assert_cmpuint (lines, <=, SP_OUTPUT_MODEL_ROW_LINES);
    }
  mirror_check_and_clear (&m);

  /* clear() forgets what was hidden with the text. */
  sp_output_model_clear (model);
  g_assert_false (sp_output_model_get_truncated (model));
  g_assert_cmpuint (sp_output_model_get_hidden_lines (model), ==, 0);
  g_assert_cmpuint (sp_output_model_get_total_bytes (model), ==, 0);

  /* A byte cap inside a character cuts after it. */
  sp_output_model_set_max_bytes (model, 10);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "abcdé");  /* 6 bytes, cap 10 */
  sp_output_model_append (model, SP_OUTPUT_STDERR, "fghéij"); /* 7 more */
  g_clear_pointer (&text, g_free);
  text = all_text (model);
  g_assert_true (g_utf8_validate (text, -1, NULL));
  g_assert_cmpuint (strlen (text), <=, 10);
  g_assert_true (g_str_has_suffix (text, "fghéij"));
  g_assert_cmpuint (strlen (text) + sp_output_model_get_hidden_bytes (model), ==, 13);
  g_assert_finalize_object (model);
}

/* Images, errors and files are never dropped with the text around them. */
static void
test_tail_keeps_items (void)
{
  SpOutputModel *model = sp_output_model_new ();
  g_autoptr (SpOutputItem) image = sp_output_item_new_image ("/nonexistent/plot-1.png", "Plot 1");
  Mirror m;

  mirror_init (&m, model);
  sp_output_model_set_max_lines (model, 10);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "before\n");
  sp_output_model_append_item (model, image);
  for (int i = 0; i < 50; i++)
    sp_output_model_append (model, SP_OUTPUT_STDOUT, "after\n");
  g_assert_true (item (model, 0) == image);
  g_assert_cmpuint (sp_output_model_get_hidden_lines (model), >=, 41);
  g_assert_cmpuint (sp_output_model_get_hidden_lines (model)
                      + g_list_model_get_n_items (G_LIST_MODEL (model)) - 1,
                    ==, 51);
  mirror_check_and_clear (&m);
  g_assert_finalize_object (model);
}

static const char *
label_or_text (SpOutputModel *model, guint i)
{
  SpOutputItem *it = item (model, i);

  return sp_output_item_get_kind (it) == SP_OUTPUT_IMAGE ? sp_output_item_get_label (it)
                                                         : sp_output_item_get_text (it);
}

/* A run's plots go where the run made them: after the last line read at or
 * before their time (a tie goes after the text), before the lines read
 * later, in one change views can follow; with text batched, chunks of
 * different times stay apart. */
static void
test_insert_timed (void)
{
  SpOutputModel *model = sp_output_model_new ();
  g_autoptr (SpOutputItem) p1 = sp_output_item_new_image ("/nonexistent/plot-1.png", "Plot 1");
  g_autoptr (SpOutputItem) p2 = sp_output_item_new_image ("/nonexistent/plot-2.png", "Plot 2");
  g_autoptr (SpOutputItem) p3 = sp_output_item_new_image ("/nonexistent/plot-3.png", "Plot 3");
  /* Given out of order: the model orders them by time. */
  SpOutputItem *items[] = { p2, p1, p3 };
  const gint64 times[] = { 40, 10, 200 };
  const char *expected[] = { "a\n", "Plot 1", "b\n", "c\n", "Plot 2", "done\n", "Plot 3" };
  Mirror m;

  mirror_init (&m, model);
  sp_output_model_set_batched (model, TRUE);
  sp_output_model_append_timed (model, SP_OUTPUT_STDOUT, "a\n", 5);
  sp_output_model_append_timed (model, SP_OUTPUT_STDOUT, "b\n", 30);
  sp_output_model_append_timed (model, SP_OUTPUT_STDOUT, "c\n", 40);
  sp_output_model_append_timed (model, SP_OUTPUT_STDOUT, "done\n", 90);
  sp_output_model_insert_timed (model, items, times, G_N_ELEMENTS (items));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, G_N_ELEMENTS (expected));
  for (guint i = 0; i < G_N_ELEMENTS (expected); i++)
    g_assert_cmpstr (label_or_text (model, i), ==, expected[i]);
  mirror_check_and_clear (&m);
  g_assert_finalize_object (model);
}

/* A plot older than every line left (its lines were trimmed from the
 * front) comes first; one of unknown time, or with untimed text (an older
 * runner), comes last. */
static void
test_insert_timed_edges (void)
{
  SpOutputModel *model = sp_output_model_new ();
  g_autoptr (SpOutputItem) old = sp_output_item_new_image ("/nonexistent/plot-1.png", "Plot 1");
  g_autoptr (SpOutputItem) unknown = sp_output_item_new_image ("/nonexistent/x.png", "x.png");
  g_autoptr (SpOutputItem) late = sp_output_item_new_image ("/nonexistent/y.png", "y.png");
  SpOutputItem *items[] = { unknown, old };
  const gint64 times[] = { -1, 3 };
  Mirror m;

  mirror_init (&m, model);
  sp_output_model_set_max_lines (model, 10);
  for (int i = 0; i < 50; i++)
    sp_output_model_append_timed (model, SP_OUTPUT_STDOUT, "line\n", 2 + i);
  g_assert_cmpuint (sp_output_model_get_hidden_lines (model), >, 0);
  sp_output_model_insert_timed (model, items, times, G_N_ELEMENTS (items));
  g_assert_true (item (model, 0) == old);
  g_assert_true (item (model, g_list_model_get_n_items (G_LIST_MODEL (model)) - 1) == unknown);
  mirror_check_and_clear (&m);
  sp_output_model_clear (model);
  mirror_init (&m, model);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "untimed\n");
  sp_output_model_insert_timed (model, &late, (const gint64[]){ 0 }, 1);
  g_assert_true (item (model, 1) == late);
  mirror_check_and_clear (&m);
  g_assert_finalize_object (model);
}

/* Batched, a flood of chunks is one change for views, and a batch far
 * bigger than the tail never becomes rows only to be dropped. */
static void
test_batched (void)
{
  SpOutputModel *model = sp_output_model_new ();
  Changes c = { 0 };
  g_autofree char *text = NULL;
  Mirror m;

  mirror_init (&m, model);
  sp_output_model_set_batched (model, TRUE);
  sp_output_model_set_max_lines (model, 1000);
  g_signal_connect (model, "items-changed", G_CALLBACK (on_items_changed), &c);
  for (guint i = 0; i < 100000; i++)
    {
      g_autofree char *line = g_strdup_printf ("%u\n", i);
      sp_output_model_append (model, SP_OUTPUT_STDOUT, line);
    }
  g_assert_cmpuint (c.calls, ==, 0);
  g_assert_true (sp_output_model_has_pending (model));
  sp_output_model_flush (model);
  g_assert_false (sp_output_model_has_pending (model));
  g_assert_cmpuint (c.calls, ==, 1);
  g_assert_cmpuint (c.added, ==, g_list_model_get_n_items (G_LIST_MODEL (model)));
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), <=,
                    1000 / SP_OUTPUT_MODEL_ROW_LINES + 1);
  g_assert_cmpuint (sp_output_model_get_hidden_lines (model), >=, 99000);
  text = all_text (model);
  {
    g_autofree char *first = g_strdup_printf ("%" G_GUINT64_FORMAT "\n",
                                              sp_output_model_get_hidden_lines (model));
    g_assert_true (g_str_has_prefix (text, first));
  }
  g_assert_true (g_str_has_suffix (text, "99999\n"));

  /* Without a flush, the batch shows by itself soon after. */
  sp_output_model_append (model, SP_OUTPUT_STDERR, "late\n");
  g_assert_cmpuint (c.calls, ==, 1);
  while (sp_output_model_has_pending (model))
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpuint (c.calls, >=, 2);
  g_assert_cmpstr (sp_output_item_get_text (
                     item (model, g_list_model_get_n_items (G_LIST_MODEL (model)) - 1)),
                   ==, "late\n");
  g_signal_handlers_disconnect_by_data (model, &c);
  mirror_check_and_clear (&m);
  g_assert_finalize_object (model);
}

static void
on_has_pending (SpOutputModel *model, GParamSpec *pspec, guint *told)
{
  told[sp_output_model_has_pending (model)]++;
}

/* A view that paints frames publishes the batches: at most one per frame
 * and only when one is due; "has-pending" says when to ask for frames;
 * the model's own timer waits for the backstop, for a view painting
 * nothing. */
static void
test_view_publishes (void)
{
  SpOutputModel *model = sp_output_model_new ();
  Changes c = { 0 };
  guint told[2] = { 0, 0 };
  gint64 start;

  sp_output_model_set_batched (model, TRUE);
  sp_output_model_set_view_publishes (model, TRUE);
  g_signal_connect (model, "items-changed", G_CALLBACK (on_items_changed), &c);
  g_signal_connect (model, "notify::has-pending", G_CALLBACK (on_has_pending), told);
  g_assert_false (sp_output_model_publish_frame (model));

  sp_output_model_append (model, SP_OUTPUT_STDOUT, "one\n");
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "two\n");
  g_assert_cmpuint (told[TRUE], ==, 1);
  /* A frame publishes the batch, the next finds nothing to do. */
  g_assert_false (sp_output_model_publish_frame (model));
  g_assert_cmpuint (c.calls, ==, 1);
  g_assert_cmpuint (told[FALSE], ==, 1);
  g_assert_false (sp_output_model_publish_frame (model));

  /* Text that comes right after: not due yet, the view asks again. */
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "three\n");
  g_assert_true (sp_output_model_publish_frame (model));
  g_assert_cmpuint (c.calls, ==, 1);
  g_usleep ((SP_OUTPUT_MODEL_BATCH_MS + 5) * 1000);
  g_assert_false (sp_output_model_publish_frame (model));
  g_assert_cmpuint (c.calls, ==, 2);
  g_assert_cmpuint (told[TRUE], ==, 2);
  g_assert_cmpuint (told[FALSE], ==, 2);

  /* No frames: the backstop shows it, not the batch timer. */
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "four\n");
  start = g_get_monotonic_time ();
  while (sp_output_model_has_pending (model))
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (g_get_monotonic_time () - start, >=, (SP_OUTPUT_MODEL_BACKSTOP_MS - 5) * 1000);
  g_assert_cmpuint (c.calls, ==, 3);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 4);

  /* Unbatched text never waits: nothing to tell. */
  sp_output_model_set_batched (model, FALSE);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "five\n");
  g_assert_cmpuint (told[TRUE], ==, 3);
  g_assert_cmpuint (told[FALSE], ==, 3);
  g_signal_handlers_disconnect_by_data (model, &c);
  g_signal_handlers_disconnect_by_data (model, told);
  g_assert_finalize_object (model);
}

/* Keeping rows: through a flood the rows stay the same objects and the
 * list does not change at all once full; the rows tell their new text. */
static void
test_keep_rows (void)
{
  SpOutputModel *model = sp_output_model_new ();
  Changes c = { 0 };
  guint notified = 0;
  g_autofree char *text = NULL;
  SpOutputItem *first;
  Mirror m;

  mirror_init (&m, model);
  sp_output_model_set_keep_rows (model, TRUE);
  sp_output_model_set_max_lines (model, 100);
  for (guint i = 0; i < 100; i++)
    {
      g_autofree char *line = g_strdup_printf ("%u\n", i);
      sp_output_model_append (model, SP_OUTPUT_STDOUT, line);
    }
  first = item (model, 0);
  g_signal_connect_swapped (first, "notify::text", G_CALLBACK (count_notify), &notified);
  g_signal_connect (model, "items-changed", G_CALLBACK (on_items_changed), &c);
  for (guint i = 100; i < 5000; i++)
    {
      g_autofree char *line = g_strdup_printf ("%u\n", i);
      sp_output_model_append (model, i % 2 ? SP_OUTPUT_STDOUT : SP_OUTPUT_STDERR, line);
    }
  g_assert_cmpuint (c.calls, ==, 0);
  g_assert_true (item (model, 0) == first);
  g_assert_cmpuint (notified, ==, 4900);
  g_assert_cmpuint (sp_output_model_get_hidden_lines (model), ==, 4900);
  g_assert_cmpstr (sp_output_item_get_text (first), ==, "4900\n");
  g_assert_cmpint (sp_output_item_get_kind (first), ==, SP_OUTPUT_STDERR);
  text = all_text (model);
  g_assert_true (g_str_has_suffix (text, "4998\n4999\n"));
  g_signal_handlers_disconnect_by_data (model, &c);
  g_signal_handlers_disconnect_by_data (first, &notified);
  mirror_check_and_clear (&m);
  g_assert_finalize_object (model);
}

/* Following a flood in batches (each more lines than the tail holds, as
 * a view publishes them), the rows keep their places and hold the tail
 * exactly; rows a batch builds only to hand their text on are reused,
 * never one a view was given. */
static void
test_keep_rows_batched (void)
{
  SpOutputModel *model = sp_output_model_new ();
  g_autoptr (GPtrArray) seen = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr (GString) expected = g_string_new (NULL);
  g_autofree char *text = NULL;
  guint next = 0;
  Mirror m;

  mirror_init (&m, model);
  sp_output_model_set_keep_rows (model, TRUE);
  sp_output_model_set_batched (model, TRUE);
  sp_output_model_set_max_lines (model, 100);
  for (guint batch = 0; batch < 30; batch++)
    {
      /* 60 to 260 lines a batch: some fit, most push the whole tail out. */
      for (guint n = 60 + 10 * (batch % 21); n > 0; n--, next++)
        {
          g_autofree char *line = g_strdup_printf ("%u\n", next);
          sp_output_model_append (model, SP_OUTPUT_STDOUT, line);
        }
      sp_output_model_flush (model);
      /* What a view was given stays in the list, as it is. */
      for (guint i = 0; i < g_list_model_get_n_items (G_LIST_MODEL (model)); i++)
        {
          SpOutputItem *it = item (model, i);
          if (!g_ptr_array_find (seen, it, NULL))
            g_ptr_array_add (seen, g_object_ref (it));
        }
    }
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 100);
  /* The rows views were given are the first hundred: none came and went. */
  g_assert_cmpuint (seen->len, ==, 100);
  for (guint i = next - 100; i < next; i++)
    g_string_append_printf (expected, "%u\n", i);
  text = all_text (model);
  g_assert_cmpstr (text, ==, expected->str);
  g_assert_cmpuint (sp_output_model_get_hidden_lines (model), ==, next - 100);
  mirror_check_and_clear (&m);
  g_ptr_array_set_size (seen, 0);
  g_assert_finalize_object (model);
}

/* A notice in a batch that holds more than the tail (the runner's "left
 * out here" past the output limit, then the output's end) stays, in its
 * place: the batch's excess was skipped, and in a view that keeps its rows
 * trimmed, as lines of text (ui-output-limit lost it under load). */
static void
test_notice_in_a_long_batch (void)
{
  for (guint after = 50; after <= 150; after += 100)
    {
      SpOutputModel *model = sp_output_model_new ();
      guint notices = 0, notice_at = 0, n;
      g_autofree char *last = NULL;
      Mirror m;

      mirror_init (&m, model);
      sp_output_model_set_keep_rows (model, TRUE);
      sp_output_model_set_batched (model, TRUE);
      sp_output_model_set_max_lines (model, 100);
      for (guint i = 0; i < 300; i++)
        {
          g_autofree char *line = g_strdup_printf ("%u\n", i);
          sp_output_model_append (model, SP_OUTPUT_STDOUT, line);
        }
      sp_output_model_append (model, SP_OUTPUT_NOTICE, "left out here");
      for (guint i = 0; i < after; i++)
        {
          g_autofree char *line = g_strdup_printf ("end %u\n", i);
          sp_output_model_append (model, SP_OUTPUT_STDOUT, line);
        }
      sp_output_model_flush (model);
      n = g_list_model_get_n_items (G_LIST_MODEL (model));
      for (guint i = 0; i < n; i++)
        if (sp_output_item_get_kind (item (model, i)) == SP_OUTPUT_NOTICE)
          {
            notices++;
            notice_at = i;
            g_assert_cmpstr (sp_output_item_get_text (item (model, i)), ==, "left out here");
          }
      g_test_message ("%u lines after the notice: %u rows, the notice at %u", after, n, notice_at);
      g_assert_cmpuint (notices, ==, 1);
      /* What follows it is the end, in order, to its last line. */
      for (guint i = notice_at + 1; i < n; i++)
        g_assert_true (g_str_has_prefix (sp_output_item_get_text (item (model, i)), "end "));
      last = g_strdup_printf ("end %u\n", after - 1);
      g_assert_cmpstr (sp_output_item_get_text (item (model, n - 1)), ==, last);
      mirror_check_and_clear (&m);
      g_assert_finalize_object (model);
    }
}

static void
on_saved (GObject *object, GAsyncResult *result, gpointer user_data)
{
  GError **error = user_data;

  g_assert_true (sp_output_model_save_finish (SP_OUTPUT_MODEL (object), result, error)
                 || *error != NULL);
  if (*error == NULL)
    *error = g_error_new_literal (G_IO_ERROR, G_IO_ERROR_EXISTS, "done");
}

/* Save gives the whole output, both streams in their order, as written,
 * hidden lines and carriage returns included. */
static void
test_save_whole (void)
{
  SpOutputModel *model = sp_output_model_new ();
  g_autoptr (GString) expected = g_string_new (NULL);
  g_autofree char *dir = g_dir_make_tmp ("sandpad-test-XXXXXX", NULL);
  g_autofree char *path = g_build_filename (dir, "out.txt", NULL);
  g_autoptr (GFile) dest = g_file_new_for_path (path);
  g_autofree char *saved = NULL;
  GError *error = NULL;

  sp_output_model_set_max_lines (model, 10);
  for (guint i = 0; i < 500; i++)
    {
      g_autofree char *line = g_strdup_printf (i % 7 ? "%u\n" : "%u\r\n", i);
      sp_output_model_append (model, i % 5 ? SP_OUTPUT_STDOUT : SP_OUTPUT_STDERR, line);
      g_string_append (expected, line);
    }
  /* Batched, text waits to be shown: the file has it all the same. */
  sp_output_model_set_batched (model, TRUE);
  for (guint i = 500; i < 600; i++)
    {
      g_autofree char *line = g_strdup_printf ("%u\n", i);
      sp_output_model_append (model, SP_OUTPUT_STDOUT, line);
      g_string_append (expected, line);
    }
  g_assert_true (sp_output_model_has_pending (model));
  g_assert_cmpuint (sp_output_model_get_total_bytes (model), ==, expected->len);
  sp_output_model_save_async (model, dest, NULL, on_saved, &error);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_EXISTS); /* "done" */
  g_clear_error (&error);
  g_assert_true (g_file_get_contents (path, &saved, NULL, NULL));
  g_assert_cmpstr (saved, ==, expected->str);

  /* After clear there is nothing to save, and it says so. */
  sp_output_model_clear (model);
  sp_output_model_save_async (model, dest, NULL, on_saved, &error);
  while (error == NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_clear_error (&error);
  g_unlink (path);
  g_rmdir (dir);
  /* The save's worker thread lets go of its task, and so of the model,
   * only after the callback ran here: wait for that last reference. */
  g_object_add_weak_pointer (G_OBJECT (model), (gpointer *) &model);
  g_object_unref (model);
  for (guint i = 0; model != NULL && i < 10000; i++)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_null (model);
}

/* The whole output is kept in a file that has no name: an app killed
 * with SIGKILL (no cleanup runs) leaves nothing in the temporary folder,
 * and Save still gives every byte. The child kills itself once its output
 * is stored, in a temporary folder of its own. */
static void
test_store_unnamed (void)
{
  g_autofree char *dir = NULL;
  g_autoptr (GDir) listing = NULL;
  g_autofree char *old = g_strdup (g_getenv ("TMPDIR"));
  const char *name;
  guint left = 0;

  if (g_test_subprocess ())
    {
      SpOutputModel *model = sp_output_model_new ();

      sp_output_model_append (model, SP_OUTPUT_STDOUT, "a run's output\n");
      g_assert_cmpuint (sp_output_model_get_total_bytes (model), >, 0);
      raise (SIGKILL);
      return;
    }
  dir = g_dir_make_tmp ("sandpad-test-XXXXXX", NULL);
  g_setenv ("TMPDIR", dir, TRUE);
  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
  if (old != NULL)
    g_setenv ("TMPDIR", old, TRUE);
  else
    g_unsetenv ("TMPDIR");
  g_test_trap_assert_failed (); /* killed, as a crash or kill -9 would */
  listing = g_dir_open (dir, 0, NULL);
  g_assert_nonnull (listing);
  while ((name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);
      g_test_message ("left behind: %s", name);
      g_unlink (path);
      left++;
    }
  g_assert_cmpuint (left, ==, 0);
  g_rmdir (dir);
}

/* The stream's text, whatever rows it is in (freed with the model). */
static const char *
only_text (SpOutputModel *model)
{
  char *text = all_text (model);

  g_object_set_data_full (G_OBJECT (model), "text", text, g_free);
  return text;
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

/* The line a person sends while the program's last line is open (a
 * prompt) goes on that line, as a terminal echoes it: one row, the prompt
 * then the answer, which knows where the answer starts; the view is told
 * the row changed. After a closed line, or none, the input is a row of
 * its own. What follows the answer starts a row of its own. */
static void
test_input_answers_prompt (void)
{
  SpOutputModel *model = sp_output_model_new ();
  guint notified = 0;
  SpOutputItem *row;

  sp_output_model_append (model, SP_OUTPUT_STDOUT, "hi\nName: ");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 2);
  row = item (model, 1);
  g_signal_connect_swapped (row, "notify::text", G_CALLBACK (count_notify), &notified);
  sp_output_model_append (model, SP_OUTPUT_INPUT, "Alice\n");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 2);
  g_assert_true (item (model, 1) == row);
  g_assert_cmpuint (notified, ==, 1);
  g_assert_cmpint (sp_output_item_get_kind (row), ==, SP_OUTPUT_INPUT);
  g_assert_cmpstr (sp_output_item_get_text (row), ==, "Name: Alice\n");
  g_assert_cmpuint (sp_output_item_get_prompt_length (row), ==, strlen ("Name: "));
  g_signal_handlers_disconnect_by_data (row, &notified);

  sp_output_model_append (model, SP_OUTPUT_STDOUT, "hello Alice\n");
  sp_output_model_append (model, SP_OUTPUT_INPUT, "more\n");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 4);
  g_assert_cmpstr (sp_output_item_get_text (item (model, 2)), ==, "hello Alice\n");
  g_assert_cmpint (sp_output_item_get_kind (item (model, 3)), ==, SP_OUTPUT_INPUT);
  g_assert_cmpuint (sp_output_item_get_prompt_length (item (model, 3)), ==, 0);
  g_assert_cmpuint (sp_output_item_get_prompt_length (item (model, 2)), ==, 0);

  /* A prompt on stderr (bash's read -p) is a line all the same. */
  sp_output_model_append (model, SP_OUTPUT_STDERR, "Age? ");
  sp_output_model_append (model, SP_OUTPUT_INPUT, "36\n");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 5);
  g_assert_cmpstr (sp_output_item_get_text (item (model, 4)), ==, "Age? 36\n");
  g_assert_cmpuint (sp_output_item_get_prompt_length (item (model, 4)), ==, 5);
  g_assert_finalize_object (model);
}

/* Rows that hand their text on as the tail moves (keep-rows) carry where
 * the prompt ends with it. */
static void
test_input_answers_prompt_keep_rows (void)
{
  SpOutputModel *model = sp_output_model_new ();
  SpOutputItem *row, *first;

  sp_output_model_set_keep_rows (model, TRUE);
  sp_output_model_set_max_lines (model, 3);
  sp_output_model_set_batched (model, TRUE);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "a\nb\nc\n");
  sp_output_model_flush (model);
  first = item (model, 0);
  /* One batch: the prompt, the answer and a line after, past the tail:
   * the three rows a view has take the last three lines in place. */
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "Name: ");
  sp_output_model_append (model, SP_OUTPUT_INPUT, "Alice\n");
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "x\n");
  sp_output_model_flush (model);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 3);
  g_assert_true (item (model, 0) == first);
  row = item (model, 1);
  g_assert_cmpstr (sp_output_item_get_text (row), ==, "Name: Alice\n");
  g_assert_cmpint (sp_output_item_get_kind (row), ==, SP_OUTPUT_INPUT);
  g_assert_cmpuint (sp_output_item_get_prompt_length (row), ==, strlen ("Name: "));
  g_assert_cmpstr (sp_output_item_get_text (item (model, 2)), ==, "x\n");
  g_assert_finalize_object (model);
}

/* A line longer than a row shows is folded: its row holds its first
 * SP_OUTPUT_MODEL_ITEM_BYTES and counts the rest, however it arrives,
 * and the newline that ends it ends the row. */
static void
test_fold (void)
{
  SpOutputModel *model = sp_output_model_new ();
  g_autofree char *big = g_strnfill (SP_OUTPUT_MODEL_ITEM_BYTES * 3 + 10, 'x');
  SpOutputItem *row;

  sp_output_model_append (model, SP_OUTPUT_STDOUT, big);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 1);
  row = item (model, 0);
  g_assert_cmpuint (sp_output_item_get_length (row), ==, SP_OUTPUT_MODEL_ITEM_BYTES);
  g_assert_cmpuint (sp_output_item_get_folded (row), ==, SP_OUTPUT_MODEL_ITEM_BYTES * 2 + 10);
  g_assert_cmpuint (sp_output_item_get_folded_chars (row), ==, SP_OUTPUT_MODEL_ITEM_BYTES * 2 + 10);
  /* More of the same line, in small pieces: only counted. */
  for (int i = 0; i < 100; i++)
    sp_output_model_append (model, SP_OUTPUT_STDOUT, "yy");
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "z\nnext\n");
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 2);
  g_assert_cmpuint (sp_output_item_get_folded (row), ==, SP_OUTPUT_MODEL_ITEM_BYTES * 2 + 211);
  g_assert_true (g_str_has_suffix (sp_output_item_get_text (row), "x\n"));
  g_assert_cmpuint (sp_output_item_get_length (row), ==, SP_OUTPUT_MODEL_ITEM_BYTES + 1);
  g_assert_cmpstr (sp_output_item_get_text (item (model, 1)), ==, "next\n");
  g_assert_cmpuint (sp_output_item_get_folded (item (model, 1)), ==, 0);
  g_assert_false (sp_output_model_get_truncated (model));

  /* A line of exactly a row's bytes is not folded: its newline comes too. */
  sp_output_model_clear (model);
  g_free (big);
  big = g_strnfill (SP_OUTPUT_MODEL_ITEM_BYTES + 1, 'a');
  big[SP_OUTPUT_MODEL_ITEM_BYTES] = '\n';
  sp_output_model_append (model, SP_OUTPUT_STDOUT, big);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 1);
  g_assert_cmpuint (sp_output_item_get_folded (item (model, 0)), ==, 0);
  g_assert_cmpstr (sp_output_item_get_text (item (model, 0)), ==, big);

  /* A carriage return starts the line over, fold and all. */
  sp_output_model_clear (model);
  g_free (big);
  big = g_strnfill (SP_OUTPUT_MODEL_ITEM_BYTES + 100, 'p');
  sp_output_model_append (model, SP_OUTPUT_STDOUT, big);
  g_assert_cmpuint (sp_output_item_get_folded (item (model, 0)), ==, 100);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "\rdone\n");
  g_assert_cmpstr (sp_output_item_get_text (item (model, 0)), ==, "done\n");
  g_assert_cmpuint (sp_output_item_get_folded (item (model, 0)), ==, 0);
  g_assert_finalize_object (model);
}

/* The tail counts what rows hold: folded lines are cheap to keep, and what
 * is dropped is counted with what its rows had folded. */
static void
test_fold_and_cap (void)
{
  SpOutputModel *model = sp_output_model_new ();
  g_autofree char *line = NULL;
  guint64 kept = 0, total;
  guint n;

  line = g_strnfill (SP_OUTPUT_MODEL_ITEM_BYTES * 3 + 1, 'x');
  line[SP_OUTPUT_MODEL_ITEM_BYTES * 3] = '\n';
  sp_output_model_set_max_bytes (model, SP_OUTPUT_MODEL_ITEM_BYTES * 10);
  for (int i = 0; i < 9; i++)
    sp_output_model_append (model, SP_OUTPUT_STDOUT, line);
  g_assert_cmpuint (g_list_model_get_n_items (G_LIST_MODEL (model)), ==, 9);
  g_assert_false (sp_output_model_get_truncated (model));
  for (int i = 0; i < 20; i++)
    sp_output_model_append (model, SP_OUTPUT_STDOUT, line);
  g_assert_true (sp_output_model_get_truncated (model));
  n = g_list_model_get_n_items (G_LIST_MODEL (model));
  for (guint i = 0; i < n; i++)
    {
      SpOutputItem *row = item (model, i);
      g_assert_cmpuint (sp_output_item_get_length (row), <=, SP_OUTPUT_MODEL_ITEM_BYTES + 1);
      kept += sp_output_item_get_length (row) + sp_output_item_get_folded (row);
    }
  g_assert_cmpuint (kept - n, <=, SP_OUTPUT_MODEL_ITEM_BYTES * 3 * 10);
  total = strlen (line) * 29;
  g_assert_cmpuint (kept + sp_output_model_get_hidden_bytes (model), ==, total);
  g_assert_cmpuint (sp_output_model_get_hidden_lines (model) + n, ==, 29);
  g_assert_cmpuint (sp_output_model_get_total_bytes (model), ==, total);
  g_assert_finalize_object (model);
}

static void
on_line_read (GObject *source, GAsyncResult *result, gpointer data)
{
  GBytes **out = data;
  g_autoptr (GError) error = NULL;

  *out = sp_output_model_read_line_finish (SP_OUTPUT_MODEL (source), result, &error);
  g_assert_no_error (error);
}

/* The whole line of row i, as read_line_async gives it. */
static char *
read_line (SpOutputModel *model, guint i)
{
  GBytes *bytes = NULL;
  gsize len;
  const char *data;
  char *text;

  sp_output_model_read_line_async (model, item (model, i), NULL, on_line_read, &bytes);
  while (bytes == NULL)
    g_main_context_iteration (NULL, TRUE);
  data = g_bytes_get_data (bytes, &len);
  text = g_strndup (data, len);
  g_bytes_unref (bytes);
  return text;
}

/* Drops the test's reference and waits for the model to go. A read's task
 * holds the model until its worker thread lets the task go, which can be
 * just after the read's callback has run here: finalizing at once would
 * race that thread. */
static void
finalize_once_released (SpOutputModel *model)
{
  gpointer weak = model;
  gint64 deadline = g_get_monotonic_time () + 10 * G_USEC_PER_SEC;

  g_object_add_weak_pointer (G_OBJECT (model), &weak);
  g_object_unref (model);
  while (g_atomic_pointer_get (&weak) != NULL && g_get_monotonic_time () < deadline)
    {
      g_main_context_iteration (NULL, FALSE);
      g_usleep (1000);
    }
  g_assert_null (g_atomic_pointer_get (&weak));
}

/* A folded line is read back whole from the store, however it came: in
 * pieces, between the other stream's lines, after a carriage return, with
 * CRLF, batched with more than the tail holds. */
static void
test_fold_read_back (void)
{
  SpOutputModel *model = sp_output_model_new ();
  g_autoptr (GString) whole = g_string_new (NULL);
  g_autofree char *read = NULL, *short_line = NULL, *after_cr = NULL, *opened = NULL;
  g_autofree char *last = NULL, *expected = NULL;
  guint n;

  sp_output_model_append (model, SP_OUTPUT_STDERR, "before\n");
  for (int i = 0; i < 3000; i++)
    {
      g_autofree char *piece = g_strdup_printf ("%d,", i);
      g_string_append (whole, piece);
      sp_output_model_append (model, SP_OUTPUT_STDOUT, piece);
    }
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "end\nshort\n");
  g_string_append (whole, "end");
  g_assert_cmpuint (sp_output_item_get_folded (item (model, 1)), ==,
                    whole->len - SP_OUTPUT_MODEL_ITEM_BYTES);
  read = read_line (model, 1);
  g_assert_cmpstr (read, ==, whole->str);
  /* A row that holds its whole line reads as its text. */
  short_line = read_line (model, 2);
  g_assert_cmpstr (short_line, ==, "short");

  /* Started over by a carriage return: the line as it was rewritten. */
  sp_output_model_append (model, SP_OUTPUT_STDOUT, whole->str);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "\r");
  sp_output_model_append (model, SP_OUTPUT_STDOUT, whole->str);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "!\r\n");
  n = g_list_model_get_n_items (G_LIST_MODEL (model));
  g_assert_cmpuint (sp_output_item_get_folded (item (model, n - 1)), >, 0);
  after_cr = read_line (model, n - 1);
  g_assert_cmpuint (strlen (after_cr), ==, whole->len + 1);
  g_assert_true (g_str_has_suffix (after_cr, "end!"));
  g_clear_pointer (&read, g_free);

  /* Batched, a flood that holds more than the tail after a long line:
   * the lines dropped are whole ones, and the long line, its start in a
   * row, still reads whole. */
  sp_output_model_clear (model);
  sp_output_model_set_batched (model, TRUE);
  sp_output_model_set_max_lines (model, 100);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "open: ");
  sp_output_model_flush (model);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, whole->str);
  sp_output_model_append (model, SP_OUTPUT_STDOUT, "\n");
  for (int i = 0; i < 1000; i++)
    {
      g_autofree char *flood = g_strdup_printf ("%d\n", i);
      sp_output_model_append (model, SP_OUTPUT_STDOUT, flood);
    }
  sp_output_model_flush (model);
  g_assert_true (sp_output_model_get_truncated (model));
  n = g_list_model_get_n_items (G_LIST_MODEL (model));
  for (guint i = 0; i < n; i++)
    {
      const char *text = sp_output_item_get_text (item (model, i));
      /* Every row starts a line: a number, or the long line's start. */
      g_assert_true (g_ascii_isdigit (text[0]) || g_str_has_prefix (text, "open: "));
    }
  last = all_text (model);
  g_assert_true (g_str_has_suffix (last, "998\n999\n"));
  g_assert_true (g_str_has_prefix (last, "open: "));
  opened = read_line (model, 0);
  expected = g_strconcat ("open: ", whole->str, NULL);
  g_assert_cmpstr (opened, ==, expected);
  finalize_once_released (model);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/Sandpad/OutputModel/coalesce", test_coalesce);
  g_test_add_func ("/Sandpad/OutputModel/fold", test_fold);
  g_test_add_func ("/Sandpad/OutputModel/fold-and-cap", test_fold_and_cap);
  g_test_add_func ("/Sandpad/OutputModel/fold-read-back", test_fold_read_back);
  g_test_add_func ("/Sandpad/OutputModel/utf8-boundary", test_utf8_boundary);
  g_test_add_func ("/Sandpad/OutputModel/carriage-return", test_carriage_return);
  g_test_add_func ("/Sandpad/OutputModel/tiny-chunks", test_tiny_chunks);
  g_test_add_func ("/Sandpad/OutputModel/interleaved-streams", test_interleaved_streams);
  g_test_add_func ("/Sandpad/OutputModel/tail", test_tail);
  g_test_add_func ("/Sandpad/OutputModel/tail-keeps-items", test_tail_keeps_items);
  g_test_add_func ("/Sandpad/OutputModel/batched", test_batched);
  g_test_add_func ("/Sandpad/OutputModel/view-publishes", test_view_publishes);
  g_test_add_func ("/Sandpad/OutputModel/keep-rows", test_keep_rows);
  g_test_add_func ("/Sandpad/OutputModel/keep-rows-batched", test_keep_rows_batched);
  g_test_add_func ("/Sandpad/OutputModel/notice-in-a-long-batch", test_notice_in_a_long_batch);
  g_test_add_func ("/Sandpad/OutputModel/save-whole", test_save_whole);
  g_test_add_func ("/Sandpad/OutputModel/store-unnamed", test_store_unnamed);
  g_test_add_func ("/Sandpad/OutputModel/insert-timed", test_insert_timed);
  g_test_add_func ("/Sandpad/OutputModel/insert-timed-edges", test_insert_timed_edges);
  g_test_add_func ("/Sandpad/OutputModel/input-answers-prompt", test_input_answers_prompt);
  g_test_add_func ("/Sandpad/OutputModel/input-answers-prompt-keep-rows",
                   test_input_answers_prompt_keep_rows);
  return g_test_run ();
}
