/* sp-document-private.h: SpDocument's state, shared by sp-document.c
 * (the file, saving, the copy, where runs belong) and sp-document-watch.c
 * (the watch on the file and what a change is). */
#pragma once

#include "sp-document.h"

struct _SpDocument
{
  GObject parent_instance;

  SpDocumentTextFunc text_func;
  gpointer text_data;
  gboolean modified;
  char *language;
  char *workspace;

  /* The file on disk, watched. disk_text is what the file held when we
   * last loaded, saved or accepted it (NULL: nothing on disk). */
  GFile *file;
  GFileMonitor *monitor;
  GBytes *disk_text;
  GBytes *saving_text;  /* a save on its way to disk */
  GBytes *pending_disk; /* an outside change the person has not answered */
  GFile *renamed_to;    /* the monitor saw our file renamed to this */
  gboolean moved_away;  /* ... or moved out of its folder */
  gboolean gone;        /* deleted or moved was said */
  GCancellable *check_cancellable;
  guint check_id;

  /* The copy in the state folder; dir NULL when another process owns it. */
  char *autosave_dir;
  char *autosave_id;
  char *untitled_name;
  guint autosave_timer;
  gboolean autosave_failed;
  gboolean autosave_off_said;
  gboolean closed;
};

/* Puts value (owned) in *slot, dropping what was there. */
void _sp_document_set_bytes (GBytes **slot, GBytes *value);
/* Sets the file, notifying "file"; nothing else. */
void _sp_document_set_file_only (SpDocument *self, GFile *file);
void _sp_document_emit_disk (SpDocument *self, SpDocumentDiskChange change, GBytes *contents);

/* sp-document-watch.c */
void _sp_document_watch (SpDocument *self);
void _sp_document_stop_watch (SpDocument *self);
