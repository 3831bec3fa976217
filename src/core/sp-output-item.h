/* sp-output-item.h: one piece of a run's output, as the panel shows it. */
#pragma once

#include <glib-object.h>

#include "sp-data-table.h"
#include "sp-error-info.h"

G_BEGIN_DECLS

typedef enum
{
  SP_OUTPUT_STDOUT,
  SP_OUTPUT_STDERR,
  SP_OUTPUT_NOTICE, /* said by Sandpad, not the program: "output truncated" */
  SP_OUTPUT_IMAGE,  /* text: the image's absolute path, or its label when it has bytes; label: "Plot
                       1" */
  SP_OUTPUT_ERROR,  /* text: "Type: message"; error: the parsed error */
  SP_OUTPUT_FILE,   /* text: the file's absolute path, or its label; label: its path as shown */
  SP_OUTPUT_INPUT,  /* a line the user sent to the program's stdin, echoed */
  SP_OUTPUT_TABLE,  /* text: the result's text/plain; label: "Result 1"; table: its rows */
} SpOutputKind;

GType sp_output_kind_get_type (void) G_GNUC_CONST;
#define SP_TYPE_OUTPUT_KIND (sp_output_kind_get_type ())

#define SP_TYPE_OUTPUT_ITEM (sp_output_item_get_type ())
G_DECLARE_FINAL_TYPE (SpOutputItem, sp_output_item, SP, OUTPUT_ITEM, GObject)

SpOutputItem *sp_output_item_new (SpOutputKind kind, const char *text);
SpOutputItem *sp_output_item_new_image (const char *path, const char *label);
SpOutputItem *sp_output_item_new_error (SpErrorInfo *error);
/* A table a run displayed (a pandas DataFrame), shown as a table; text is
 * the result's text/plain. */
SpOutputItem *sp_output_item_new_table (SpDataTable *table, const char *text, const char *label);
SpDataTable *sp_output_item_get_table (SpOutputItem *self);
SpOutputItem *sp_output_item_new_file (const char *path, const char *label, gint64 size,
                                       const char *mime);
/* A run's regular file behind an image or file item: its directory and
 * its name's bytes beneath it, for sp-run-file.h (never the text shown).
 * An item without one (a symlink, a FIFO, a name the runner could not
 * carry) is listed only: not opened, previewed or saved. */
void sp_output_item_set_source (SpOutputItem *self, const char *dir, const char *name);
const char *sp_output_item_get_dir (SpOutputItem *self);
/* An image the app holds in memory instead (a display result's PNG,
 * at most 3 MiB): decoded and saved from these bytes, never from a file,
 * so nothing of it is left on disk by an app that is killed. */
void sp_output_item_set_bytes (SpOutputItem *self, GBytes *bytes);
GBytes *sp_output_item_get_bytes (SpOutputItem *self);
const char *sp_output_item_get_name (SpOutputItem *self);
/* What a file item's preview read (sp-run-file.h's head): kept on the
 * item so a row bound again shows it without reading again. */
GBytes *sp_output_item_get_preview (SpOutputItem *self, gboolean *whole);
void sp_output_item_set_preview (SpOutputItem *self, GBytes *head, gboolean whole);
gint64 sp_output_item_get_size (SpOutputItem *self);
/* An image's file size as the runner listed it (its placeholder says it). */
void sp_output_item_set_size (SpOutputItem *self, gint64 size);
/* An image drawn at a size of its own, as text is (a typeset formula):
 * how many of its pixels make one logical pixel; it is then shown at that
 * size, where text starts. 0 (the default): a picture such as a chart,
 * fitted to the panel's width. */
guint sp_output_item_get_image_scale (SpOutputItem *self);
void sp_output_item_set_image_scale (SpOutputItem *self, guint scale);
const char *sp_output_item_get_mime (SpOutputItem *self);
/* The image's accessible label; NULL for other kinds. */
const char *sp_output_item_get_label (SpOutputItem *self);
SpErrorInfo *sp_output_item_get_error (SpOutputItem *self);
SpOutputKind sp_output_item_get_kind (SpOutputItem *self);
const char *sp_output_item_get_text (SpOutputItem *self);
/* An image item's picture, decoded outside the app (a GdkTexture; core
 * knows it only as a GObject), or why it cannot be shown. Both NULL while
 * it is decoded; setting either notifies "image". */
GObject *sp_output_item_get_image (SpOutputItem *self);
const char *sp_output_item_get_image_error (SpOutputItem *self);
void sp_output_item_set_image (SpOutputItem *self, GObject *image);
void sp_output_item_set_image_error (SpOutputItem *self, const char *message);
/* Not decoded to keep within the window's image memory (its picture may
 * come when room does, or on demand); setting it notifies "image". */
gboolean sp_output_item_get_image_withheld (SpOutputItem *self);
void sp_output_item_set_image_withheld (SpOutputItem *self, gboolean withheld);
gsize sp_output_item_get_length (SpOutputItem *self);
/* An input row that answers a prompt: its text is the prompt line as the
 * program wrote it, then the line sent, as a terminal shows them; this is
 * how many bytes of it are the prompt (0: none, the row is the input
 * alone; always 0 for other kinds). */
gsize sp_output_item_get_prompt_length (SpOutputItem *self);
/* A text row whose line is longer than a row shows (sp-output-model.h:
 * SP_OUTPUT_MODEL_ITEM_BYTES): its text is the line's start, then this
 * many bytes (characters) of the line are folded away, its newline not
 * counted. The whole line stays in the model's store
 * (sp_output_model_read_line_async). 0 for every other row. "text" is
 * notified when it grows. */
guint64 sp_output_item_get_folded (SpOutputItem *self);
guint64 sp_output_item_get_folded_chars (SpOutputItem *self);
/* Only the model appends, before telling its views the item changed. */
void _sp_output_item_append (SpOutputItem *self, const char *text, gsize len);
void _sp_output_item_truncate (SpOutputItem *self, gsize len);
void _sp_output_item_erase_front (SpOutputItem *self, gsize len);
void _sp_output_item_notify_text (SpOutputItem *self);
void _sp_output_item_set_prompt_length (SpOutputItem *self, gsize len);
/* A text row taking another row's place: kind, text and time (then
 * notify); its line not folded, not known in the store. */
void _sp_output_item_replace (SpOutputItem *self, SpOutputKind kind, const char *text, gint64 t_ms);
/* The same with everything from's text is: kind, text, time, prompt,
 * fold and line. */
void _sp_output_item_take_place (SpOutputItem *self, SpOutputItem *from);
/* The row's open line in the model's store: it starts (again) at at (-1:
 * not kept), nothing folded; then len more bytes of it were kept at at
 * (the line's place is forgotten when that is not where it left off). */
void _sp_output_item_start_line (SpOutputItem *self, gint64 at);
void _sp_output_item_extend_line (SpOutputItem *self, gint64 at, gsize len);
gboolean _sp_output_item_get_line (SpOutputItem *self, gint64 *at, gint64 *end);
void _sp_output_item_add_folded (SpOutputItem *self, guint64 bytes, guint64 chars);
/* When the runner read the row's last text (its clock, ms), or for another
 * item the time of the row before it: what the run's files are placed by. */
gint64 _sp_output_item_get_t_ms (SpOutputItem *self);
void _sp_output_item_set_t_ms (SpOutputItem *self, gint64 t_ms);

G_END_DECLS
