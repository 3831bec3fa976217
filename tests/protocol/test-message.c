/* test-message.c: every message type survives encode → decode → encode.
 *
 * Each message is fully populated, so a field that the encoder forgets,
 * the decoder drops or either side renames shows up as a field mismatch,
 * and the byte-identical re-encoding catches anything the field checks
 * miss (ordering, defaults that are emitted on one pass only).
 */
#include "message-check.h"

static void
test_requests (void)
{
  SpMessage m = { 0 };

  m.type = SP_MSG_HELLO;
  m.u.hello.client = xstrdup ("sandpad-gtk 0.1 \"dev\"");
  roundtrip (&m, "hello", "", check_hello);

  m.type = SP_MSG_RUN;
  m.u.run.id = xstrdup ("run-1");
  m.u.run.language = xstrdup ("python");
  m.u.run.code = xstrdup ("import sys\nprint(sys.argv, \"\\t\")\n");
  m.u.run.name = xstrdup ("main.py");
  m.u.run.args = strv_new ("-v", "two words", "", "ünïcødé", NULL);
  m.u.run.stdin_data = xstrdup ("line 1\nline 2\n");
  m.u.run.stdin_open = true;
  /* "EQ" checks that only the first '=' separates name from value. */
  m.u.run.env = strv_new ("LANG=C.UTF-8", "EMPTY=", "EQ=a=b", "_x9=\n", NULL);
  m.u.run.timeout_ms = 2500;
  m.u.run.memory_mib = 256;
  m.u.run.output_limit = 65536;
  m.u.run.cwd = xstrdup ("/tmp/sandpad work");
  m.u.run.network = true;
  m.u.run.return_base64 = true;
  m.u.run.return_files = true;
  roundtrip (&m, "run with code", "run-1", check_run);

  /* path instead of code, and every limit at the largest accepted value. */
  m.type = SP_MSG_RUN;
  m.u.run.id = xstrdup ("run-2");
  m.u.run.language = xstrdup ("bash");
  m.u.run.path = xstrdup ("/home/user/script.sh");
  m.u.run.name = xstrdup ("script.sh");
  m.u.run.args = strv_new (NULL);
  m.u.run.stdin_data = xstrdup ("");
  m.u.run.env = strv_new (NULL);
  m.u.run.timeout_ms = INT64_C (1) << 40;
  m.u.run.memory_mib = INT64_C (1) << 30;
  m.u.run.output_limit = INT64_C (1) << 50;
  m.u.run.cwd = xstrdup ("/");
  roundtrip (&m, "run with path", "run-2", check_run);

  m.type = SP_MSG_CANCEL;
  m.u.ref.id = xstrdup ("run-1");
  roundtrip (&m, "cancel", "run-1", check_ref);

  m.type = SP_MSG_RELEASE;
  m.u.ref.id = xstrdup ("~!@#$%^&*()_+{}|:<>?[]\\;',./`");
  roundtrip (&m, "release", "~!@#$%^&*()_+{}|:<>?[]\\;',./`", check_ref);

  m.type = SP_MSG_STDIN;
  m.u.stdin_.id = xstrdup ("s");
  m.u.stdin_.data = xstrdup ("more input\n");
  m.u.stdin_.eof = true;
  roundtrip (&m, "stdin with data and eof", "s", check_stdin);

  m.type = SP_MSG_STDIN;
  m.u.stdin_.id = xstrdup ("s");
  m.u.stdin_.data = xstrdup ("");
  roundtrip (&m, "stdin with empty data only", "s", check_stdin);

  m.type = SP_MSG_STDIN;
  m.u.stdin_.id = xstrdup ("s");
  m.u.stdin_.eof = true;
  roundtrip (&m, "stdin with eof only", "s", check_stdin);
}

static void
fill_sandbox (SpSandboxInfo *info)
{
  info->mode = xstrdup ("namespaces");
  info->layers = strv_new ("userns", "seccomp", NULL);
  info->waived = strv_new ("landlock: this kernel has no Landlock", NULL);
}

static void
fill_exited (SpExited *e, const char *id)
{
  e->id = xstrdup (id);
  e->t_ms = 98765;
  e->wall_ms = 1500;
  e->cpu_ms = 1234;
  e->peak_memory_bytes = INT64_C (5) << 30;
  e->stdout_bytes = 4096;
  e->stderr_bytes = 17;
  e->stdout_truncated = true;
  e->stderr_truncated = true;
}

static void
test_events (void)
{
  SpMessage m = { 0 };
  SpReady *r = &m.u.ready;
  SpExited *e = &m.u.exited;

  m.type = SP_MSG_READY;
  r->runner_version = xstrdup ("0.1.0");
  r->protocol = SP_PROTO_VERSION;
  r->n_languages = 2;
  r->languages = calloc (2, sizeof *r->languages);
  r->languages[0] = (SpLanguage){ xstrdup ("python"), xstrdup ("/usr/bin/python3"),
                                  xstrdup ("3.11.2"), strv_new (".py", ".pyw", NULL) };
  r->languages[1] = (SpLanguage){ xstrdup ("bash"), xstrdup ("/bin/bash"), xstrdup ("5.2"),
                                  strv_new (".sh", NULL) };
  r->timeout_ms = (SpLimitRange){ 10000, 600000 };
  r->memory_mib = (SpLimitRange){ 512, 4096 };
  r->output_limit = (SpLimitRange){ 1 << 20, 1 << 26 };
  r->max_concurrent = 4;
  r->max_frame = SP_PROTO_MAX_FRAME;
  fill_sandbox (&r->sandbox);
  roundtrip (&m, "ready", "", check_ready);

  m.type = SP_MSG_QUEUED;
  m.u.queued.id = xstrdup ("q");
  m.u.queued.position = 3;
  roundtrip (&m, "queued", "q", check_queued);

  m.type = SP_MSG_STARTED;
  m.u.started.id = xstrdup ("st");
  m.u.started.cwd = xstrdup ("/tmp/sandpad-XXXX/run");
  m.u.started.t_ms = 12345;
  m.u.started.timeout_ms = 10000;
  m.u.started.memory_mib = 512;
  m.u.started.output_limit = 1048576;
  m.u.started.network = true;
  fill_sandbox (&m.u.started.sandbox);
  roundtrip (&m, "started", "st", check_started);

  /* A run forked from a warm interpreter says so; cold leaves it out. */
  m.type = SP_MSG_STARTED;
  m.u.started.id = xstrdup ("warm");
  m.u.started.cwd = xstrdup ("/work");
  m.u.started.warm = true;
  fill_sandbox (&m.u.started.sandbox);
  roundtrip (&m, "started warm", "warm", check_started);

  m.type = SP_MSG_OUTPUT;
  m.u.output.id = xstrdup ("o");
  m.u.output.stream = SP_STREAM_STDOUT;
  m.u.output.data = xstrdup ("hello\n");
  m.u.output.t_ms = 806;
  roundtrip (&m, "output on stdout", "o", check_output);

  /* Untimed, as older runners send it. */
  m.type = SP_MSG_OUTPUT;
  m.u.output.id = xstrdup ("o");
  m.u.output.stream = SP_STREAM_STDOUT;
  m.u.output.data = xstrdup ("hello\n");
  m.u.output.t_ms = -1;
  roundtrip (&m, "output without t_ms", "o", check_output);

  /* Data a program really prints: newlines, quotes, backslashes, every
   * escapable control character, DEL and non-ASCII text. */
  m.type = SP_MSG_OUTPUT;
  m.u.output.id = xstrdup ("o");
  m.u.output.stream = SP_STREAM_STDERR;
  m.u.output.data = xstrdup ("a\nb\r\n\"q\" \\ \t\b\f\x01\x1b[31m\x1f\x7f é ✓ 😀\n\n");
  roundtrip (&m, "output on stderr with escapes", "o", check_output);

  m.type = SP_MSG_EXITED;
  fill_exited (e, "x1");
  e->end = SP_END_EXITED;
  e->exit_code = 255;
  e->limit = SP_LIMIT_OUTPUT;
  e->cancelled = SP_CANCEL_TERMINATE;
  e->n_files = 2;
  e->files = calloc (2, sizeof *e->files);
  e->files[0]
    = (SpFileInfo){ xstrdup ("out/plot.png"), 20480,      xstrdup ("image/png"), true, 640, 480,
                    xstrdup ("iVBORw0KGgo="), .t_ms = 850 };
  e->files[1]
    = (SpFileInfo){ xstrdup ("data.csv"), 0, xstrdup ("text/csv"), false, 0, 0, NULL, .t_ms = -1 };
  e->files_truncated = true;
  roundtrip (&m, "exited (exited)", "x1", check_exited);

  m.type = SP_MSG_EXITED;
  fill_exited (e, "x2");
  e->end = SP_END_SIGNALED;
  e->signal = 9;
  e->limit = SP_LIMIT_TIME;
  e->cancelled = SP_CANCEL_KILL;
  roundtrip (&m, "exited (signaled)", "x2", check_exited);

  m.type = SP_MSG_EXITED;
  fill_exited (e, "x2w");
  e->end = SP_END_EXITED;
  e->warm = true;
  roundtrip (&m, "exited (warm)", "x2w", check_exited);

  /* A cold run of a runner whose warm runs are off says why. */
  m.type = SP_MSG_EXITED;
  fill_exited (e, "x2c");
  e->end = SP_END_EXITED;
  e->cold_reason = xstrdup ("the warm spare's supervisor cannot execute sandpad-warm-init: "
                            "Permission denied");
  roundtrip (&m, "exited (cold, with its reason)", "x2c", check_exited);

  m.type = SP_MSG_EXITED;
  fill_exited (e, "x3");
  e->end = SP_END_FAILED;
  e->error = xstrdup ("execve: No such file or directory");
  roundtrip (&m, "exited (failed)", "x3", check_exited);

  /* Every limit and cancel stage, so the encoder's and the decoder's name
   * tables cannot drift apart unnoticed. */
  for (int i = SP_LIMIT_NONE; i < SP_LIMIT_LAST; i++)
    for (int c = SP_CANCEL_NONE; c < SP_CANCEL_LAST; c++)
      {
        char what[64];

        snprintf (what, sizeof what, "exited limit=%s cancelled=%d", sp_limit_to_string (i), c);
        m.type = SP_MSG_EXITED;
        fill_exited (e, "x4");
        e->end = SP_END_SIGNALED;
        e->signal = 64;
        e->limit = (SpLimit) i;
        e->cancelled = (SpCancelStage) c;
        roundtrip (&m, what, "x4", check_exited);
      }

  m.type = SP_MSG_RELEASED;
  m.u.ref.id = xstrdup ("gone");
  roundtrip (&m, "released", "gone", check_ref);

  m.type = SP_MSG_ERROR;
  m.u.error.id = xstrdup ("e1");
  m.u.error.code = SP_ERR_UNSUPPORTED_LANGUAGE;
  m.u.error.message = xstrdup ("no interpreter for \"cobol\"\n");
  roundtrip (&m, "error about a run", "e1", check_error);

  for (int c = SP_ERR_NONE + 1; c < SP_ERR_LAST; c++)
    {
      char what[64];

      snprintf (what, sizeof what, "error %s", sp_proto_error_code_to_string (c));
      m.type = SP_MSG_ERROR;
      m.u.error.code = (SpProtoErrorCode) c;
      m.u.error.message = xstrdup ("m");
      roundtrip (&m, what, "", check_error);
    }
}

/* 8 checks around every round trip, plus the fields it compares. */
#define RT(fields) (8 + (fields))

int
main (void)
{
  plan (RT (1) + 2 * RT (16) + 2 * RT (1) + 3 * RT (3)                   /* requests */
        + RT (3 + 4 * 2 + 6 + 2 + 2) + RT (2) + 2 * RT (10) + 3 * RT (4) /* ready..output */
        + RT (19 + 8 * 2) + 4 * RT (19)                                  /* exited variants */
        + SP_LIMIT_LAST * SP_CANCEL_LAST * RT (19)                       /* limit × cancel */
        + RT (1) + RT (3) + (SP_ERR_LAST - 1) * RT (3));                 /* released, error */
  test_requests ();
  test_events ();
  return done_testing ();
}
