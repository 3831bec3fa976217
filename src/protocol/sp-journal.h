/* sp-journal.h: the run journal that sandpad-mcp writes and the app reads
 * (runs.jsonl, live.jsonl, cancel/<run>), decoded strictly.
 *
 * The journal is a second wire format: files instead of a pipe, but one
 * JSON object per line all the same, written by one program and read by
 * another. docs/journal.md is the reference. Every line carries "v"
 * (SP_JOURNAL_VERSION_MIN to SP_JOURNAL_VERSION); unknown keys, missing keys, wrong types, values
 * out of range and oversize lines are errors with the protocol's codes
 * and a message naming the field, never a guess. Plain C + jansson like
 * the rest of src/protocol, so sandpad-mcp's tests and the GLib core both
 * link it. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp-proto.h"

/* The version a writer puts on every line, and the oldest a reader still
 * takes: version 2 only added keys and values to 1 (docs/journal.md,
 * "Version history"), so a line of 1 is read as one of 2. */
#define SP_JOURNAL_VERSION 2
#define SP_JOURNAL_VERSION_MIN 1

/* Longest line a reader takes, excluding the newline. A writer keeps far
 * below it: every text in a line is capped (docs/journal.md). */
#define SP_JOURNAL_LINE_MAX (4 * 1024 * 1024)

/* The writer cuts the code, command and stdin of "input", and the stdout,
 * stderr and diff of a result, at this many bytes (on a character
 * boundary), followed by a short note of what it left out. */
#define SP_JOURNAL_TEXT_MAX 4096

/* A display's text/plain in an entry: the start of what it showed (the
 * writer keeps no display data, only this and the MIME types). */
#define SP_JOURNAL_DISPLAY_TEXT_MAX 512

/* Of a run's output, this much goes to live.jsonl in output lines; the
 * end line has its start and end anyway. */
#define SP_JOURNAL_OUTPUT_MAX (64 * 1024)

/* A live run's name, "<server pid>-<run id>", is also the name of its
 * cancel file: a digit first, then letters, digits, '-' and '_', shorter
 * than this. */
#define SP_JOURNAL_MAX_RUN 63

typedef enum
{
  SP_JOURNAL_LIVE, /* live.jsonl: start, output and end lines */
  SP_JOURNAL_RUNS, /* runs.jsonl: one entry per finished run */
} SpJournalFile;

typedef enum
{
  SP_JOURNAL_START,
  SP_JOURNAL_OUTPUT,
  SP_JOURNAL_END, /* also every runs.jsonl entry */
} SpJournalEvent;

/* What a reader needs of one line; the rest is checked, not kept.
 * Strings are owned; absent ones are NULL. */
typedef struct
{
  SpJournalEvent event;
  char *run; /* live.jsonl only */

  /* start and end */
  char *time; /* UTC, "2026-11-23T10:00:00.000Z" */
  char *tool; /* "execute_code", "execute_command", "edit_and_execute", "code_execution" */
  int64_t server_pid;
  char *workspace;
  /* from "input": what was run */
  char *language;
  char *code;
  char *command;
  char *path; /* edit_and_execute's "path" or "file_path" */

  /* output */
  bool is_stderr;
  char *text;
  bool cut;

  /* end */
  char *end; /* "exited", "cancelled", "timeout", ..., "refused" (code_execution) */
  bool has_exit_code;
  int64_t exit_code;
  int64_t duration_ms;
  char *error_type; /* the program's error, when it reported one */
  char *error_message;
  char *diff;
  char **files; /* the paths of the files it made (code_execution: created_files),
                 * NULL-terminated */
  char *stdout_text;
  char *stderr_text;
} SpJournalLine;

/* Decodes one line (without its newline). On failure returns -1 with
 * *err set and *out cleared; on success the caller clears *out. */
int sp_journal_decode (const char *data, size_t len, SpJournalFile file, SpJournalLine *out,
                       SpProtoError *err);
void sp_journal_line_clear (SpJournalLine *line);

/* Whether name is a run's name as live.jsonl and cancel/ use it. */
bool sp_journal_run_valid (const char *name);
