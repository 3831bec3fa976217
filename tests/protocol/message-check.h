/* message-check.h: field-by-field comparison of SpMessages and the
 * encode → decode → encode round trip built on it (test-message.c). */
#pragma once

#include "sp-proto.h"
#include "tap.h"
#include "test-common.h"

typedef void (*CheckFn) (const SpMessage *want, const SpMessage *got, const char *what);

#define STR(field) is_str (got->field, want->field, "%s: " #field, what)
#define INT(field) is_int ((long long) got->field, (long long) want->field, "%s: " #field, what)

static void
is_strv (char *const *got, char *const *want, const char *what, const char *field)
{
  size_t n = sp_strv_length (want);
  bool same = sp_strv_length (got) == n && (got == NULL) == (want == NULL);

  for (size_t i = 0; same && i < n; i++)
    same = strcmp (got[i], want[i]) == 0;
  ok (same, "%s: %s", what, field);
}

static void
check_sandbox (const SpSandboxInfo *got, const SpSandboxInfo *want, const char *what)
{
  size_t n_waived = sp_strv_length (want->waived);
  bool same_waived = sp_strv_length (got->waived) == n_waived;

  STR (mode);
  for (size_t i = 0; same_waived && i < n_waived; i++)
    same_waived = strcmp (got->waived[i], want->waived[i]) == 0;
  /* One check for both lists: a waiver lost on the way fails it. */
  is_strv (same_waived ? got->layers : NULL, want->layers, what, "sandbox.layers and waived");
}

static void
check_hello (const SpMessage *w, const SpMessage *g, const char *what)
{
  const SpHello *want = &w->u.hello, *got = &g->u.hello;

  STR (client);
}

static void
check_run (const SpMessage *w, const SpMessage *g, const char *what)
{
  const SpRun *want = &w->u.run, *got = &g->u.run;

  STR (id);
  STR (language);
  STR (code);
  STR (path);
  STR (name);
  is_strv (got->args, want->args, what, "args");
  STR (stdin_data);
  INT (stdin_open);
  is_strv (got->env, want->env, what, "env");
  INT (timeout_ms);
  INT (memory_mib);
  INT (output_limit);
  STR (cwd);
  INT (network);
  INT (return_base64);
  INT (return_files);
}

static void
check_ref (const SpMessage *w, const SpMessage *g, const char *what)
{
  const SpRunRef *want = &w->u.ref, *got = &g->u.ref;

  STR (id);
}

static void
check_stdin (const SpMessage *w, const SpMessage *g, const char *what)
{
  const SpStdin *want = &w->u.stdin_, *got = &g->u.stdin_;

  STR (id);
  STR (data);
  INT (eof);
}

static void
check_ready (const SpMessage *w, const SpMessage *g, const char *what)
{
  const SpReady *want = &w->u.ready, *got = &g->u.ready;

  STR (runner_version);
  INT (protocol);
  if (INT (n_languages))
    for (size_t i = 0; i < want->n_languages; i++)
      {
        STR (languages[i].name);
        STR (languages[i].path);
        STR (languages[i].version);
        is_strv (got->languages[i].extensions, want->languages[i].extensions, what, "extensions");
      }
  INT (timeout_ms.default_value);
  INT (timeout_ms.max_value);
  INT (memory_mib.default_value);
  INT (memory_mib.max_value);
  INT (output_limit.default_value);
  INT (output_limit.max_value);
  INT (max_concurrent);
  INT (max_frame);
  check_sandbox (&got->sandbox, &want->sandbox, what);
}

static void
check_queued (const SpMessage *w, const SpMessage *g, const char *what)
{
  const SpQueued *want = &w->u.queued, *got = &g->u.queued;

  STR (id);
  INT (position);
}

static void
check_started (const SpMessage *w, const SpMessage *g, const char *what)
{
  const SpStarted *want = &w->u.started, *got = &g->u.started;

  STR (id);
  STR (cwd);
  INT (t_ms);
  INT (timeout_ms);
  INT (memory_mib);
  INT (output_limit);
  INT (network);
  INT (warm);
  check_sandbox (&got->sandbox, &want->sandbox, what);
}

static void
check_output (const SpMessage *w, const SpMessage *g, const char *what)
{
  const SpOutput *want = &w->u.output, *got = &g->u.output;

  STR (id);
  INT (stream);
  STR (data);
  INT (t_ms);
}

static void
check_exited (const SpMessage *w, const SpMessage *g, const char *what)
{
  const SpExited *want = &w->u.exited, *got = &g->u.exited;

  STR (id);
  INT (end);
  INT (exit_code);
  INT (signal);
  STR (error);
  INT (limit);
  INT (cancelled);
  INT (t_ms);
  INT (wall_ms);
  INT (cpu_ms);
  INT (peak_memory_bytes);
  INT (stdout_bytes);
  INT (stderr_bytes);
  INT (stdout_truncated);
  INT (stderr_truncated);
  INT (warm);
  STR (cold_reason);
  if (INT (n_files))
    for (size_t i = 0; i < want->n_files; i++)
      {
        STR (files[i].path);
        INT (files[i].size);
        STR (files[i].mime);
        INT (files[i].created);
        INT (files[i].width);
        INT (files[i].height);
        STR (files[i].base64);
        INT (files[i].t_ms);
      }
  INT (files_truncated);
}

static void
check_error (const SpMessage *w, const SpMessage *g, const char *what)
{
  const SpErrorMsg *want = &w->u.error, *got = &g->u.error;

  STR (id);
  INT (code);
  STR (message);
}

/* Encodes msg, checks the framing, decodes it in its own direction and
 * compares every field, re-encodes, and decodes it in the wrong direction.
 * A failure never skips a check (an encoding failure goes on with an empty
 * line), so the plan holds; only per-item checks wait for a matching item
 * count, whose own failure has then already been reported.
 * Takes ownership of msg. */
static void
roundtrip (SpMessage *msg, const char *what, const char *id, CheckFn check)
{
  bool request = msg->type >= SP_MSG_HELLO && msg->type <= SP_MSG_RELEASE;
  SpDirection dir = request ? SP_DIR_REQUEST : SP_DIR_EVENT;
  size_t len = 0, len2 = 0;
  char *line = sp_message_encode (msg, &len);
  SpMessage back, wrong;
  SpProtoError err = { 0 };
  char id_out[SP_PROTO_MAX_ID + 1];

  if (!ok (line != NULL, "%s: encodes", what))
    line = xstrdup ("");
  ok (len > 0 && len == strlen (line) && line[len - 1] == '\n'
        && memchr (line, '\n', len - 1) == NULL,
      "%s: one line ending in a single newline", what);

  int rc = sp_message_decode (line, len ? len - 1 : 0, dir, &back, &err, NULL);
  if (!is_int (rc, 0, "%s: decodes", what))
    diag ("%s: %s", sp_proto_error_code_to_string (err.code), err.message);
  is_int (back.type, msg->type, "%s: type", what);
  is_int (back.version, SP_PROTO_VERSION, "%s: version", what);
  check (msg, &back, what);

  char *again = sp_message_encode (&back, &len2);
  is_str (again, line, "%s: re-encodes byte-identical", what);

  /* A peer must not be able to smuggle an event in as a request. */
  rc = sp_message_decode (line, len ? len - 1 : 0, request ? SP_DIR_EVENT : SP_DIR_REQUEST, &wrong,
                          &err, id_out);
  is_str (rc == 0 ? "success" : sp_proto_error_code_to_string (err.code), "unknown_type",
          "%s: rejected in the other direction", what);
  is_str (id_out, id, "%s: id_out names the run of the rejected frame", what);
  sp_message_clear (&wrong);

  free (again);
  free (line);
  sp_message_clear (&back);
  sp_message_clear (msg);
}
