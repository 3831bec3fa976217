/* sp-line-diff.h: the difference of two texts, line by line.
 *
 * Used to compare two runs' output, a file on disk with the editor's text,
 * and to mark the lines an outside change touched. Texts are split at '\n'
 * (a '\r' stays part of its line); a last line without a newline is a
 * different line from the same text with one, so "a" and "a\n" differ.
 *
 * The edit script is a shortest one (Myers' O(ND) algorithm) after the
 * common first and last lines are set aside. Its work and memory grow with
 * the number of changed lines D (D * D integers kept: 4 MB at the default
 * bound of 1000), so it is bounded: when more than max_edits lines would
 * have to change, the part between the common first and last lines is
 * reported as replaced whole (one delete, one insert; gave_up is set)
 * instead of using unbounded memory or time.
 *
 * Usage:
 *   g_autoptr (SpLineDiff) diff = sp_line_diff (old_text, new_text);
 *   for (guint i = 0; i < diff->ops->len; i++)
 *     {
 *       const SpLineDiffOp *op = &g_array_index (diff->ops, SpLineDiffOp, i);
 *       if (op->kind == SP_LINE_DIFF_INSERT)
 *         mark new lines op->new_start .. op->new_start + op->n_lines - 1;
 *     }
 *   g_autofree char *patch = sp_line_diff_to_unified (diff, "a/x.py", "b/x.py", 3);
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* The default bound on changed lines before the diff gives up. */
#define SP_LINE_DIFF_MAX_EDITS 1000

typedef enum
{
  SP_LINE_DIFF_EQUAL,  /* n_lines lines the same in both */
  SP_LINE_DIFF_DELETE, /* n_lines lines of old, from old_start, are gone */
  SP_LINE_DIFF_INSERT, /* n_lines lines of new, from new_start, are new */
} SpLineDiffKind;

/* Line numbers count from 0. For every op both starts are given: where it
 * sits in old and in new (a delete's new_start is the new line it precedes,
 * an insert's old_start the old line it precedes). */
typedef struct
{
  SpLineDiffKind kind;
  guint old_start;
  guint new_start;
  guint n_lines;
} SpLineDiffOp;

typedef struct
{
  char **old_lines; /* NULL-terminated, without their '\n' */
  guint n_old;
  char **new_lines;
  guint n_new;
  gboolean old_no_eol; /* old's last line has no '\n' */
  gboolean new_no_eol;
  GArray *ops;      /* of SpLineDiffOp, in order; adjacent ops differ in kind,
                     * and in a changed stretch deletes come before inserts */
  gboolean gave_up; /* more than max_edits changes: the middle replaced whole */
} SpLineDiff;

/* NULL texts are empty. Never fails. */
SpLineDiff *sp_line_diff (const char *old_text, const char *new_text);
SpLineDiff *sp_line_diff_bounded (const char *old_text, const char *new_text, guint max_edits);
void sp_line_diff_free (SpLineDiff *diff);

/* Whether the texts are the same (no DELETE or INSERT op). */
gboolean sp_line_diff_is_same (const SpLineDiff *diff);

/* Lines deleted and inserted altogether (either may be NULL). */
void sp_line_diff_count (const SpLineDiff *diff, guint *deleted, guint *inserted);

/* The diff as unified-diff text (as diff -u and git print it): "--- "
 * and "+++ " header lines when the labels are non-NULL, then hunks
 * "@@ -l,s +l,s @@" with `context` unchanged lines around each change
 * ("\ No newline at end of file" where that applies). The empty string
 * when the texts are the same. */
char *sp_line_diff_to_unified (const SpLineDiff *diff, const char *old_label, const char *new_label,
                               guint context);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpLineDiff, sp_line_diff_free)

G_END_DECLS
