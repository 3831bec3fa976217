/* fake-runner.c: a scripted stand-in for sandpad-runner that misbehaves on
 * purpose, to test how the app's side copes. It only answers the
 * handshake, then does what it was told; it never runs anything.
 *
 * Usage: fake-runner --fd N [BEHAVIOUR] [--count-file PATH --ok-after N]
 *                    [--requests-log PATH]
 *   (none)               behave: every run prints "fake\n" and exits 0
 *   --crash-after-ready  exit with status 3 when the first run arrives
 *   --garbage            send a line that is not JSON right after ready
 *   --unknown            send a well-formed message of an unknown type
 *   --stall              never answer hello
 *   --oversize           send a 5 MiB line right after ready
 *   --future             announce protocol version 2 in ready
 *   --bad-exited         end the first run with an exited event the strict
 *                        decoder refuses (a program_error line past int32,
 *                        as the runner once sent); answer cancel with
 *                        run_state and release with released
 *   --count-file PATH --ok-after N
 *                        count starts in PATH; from start N+1 on, behave
 *   --requests-log PATH  append "TYPE ID" for each request that names a run
 *
 * SANDPAD_FAKE_SANDBOX_MODE and SANDPAD_FAKE_SANDBOX_LAYERS (names separated
 * by spaces) set the sandbox it reports in ready and started, so the UI can
 * be shown a degraded layer set ("fake" and none by default).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp-proto.h"

/* %d: the protocol version announced; %s: the sandbox object. */
static const char ready_format[]
  = "{\"v\":1,\"type\":\"ready\",\"runner_version\":\"fake\",\"protocol\":%d,"
    "\"languages\":[{\"name\":\"python\",\"path\":\"/usr/bin/python3\",\"version\":\"3\","
    "\"extensions\":[\"py\"]}],"
    "\"limits\":{\"timeout_ms\":{\"default\":30000,\"max\":300000},"
    "\"memory_mib\":{\"default\":512,\"max\":16384},"
    "\"output_limit\":{\"default\":1048576,\"max\":67108864},"
    "\"max_concurrent\":1,\"max_frame\":4194304},"
    "\"sandbox\":%s}\n";

/* The sandbox to report: mode and layers from the environment. */
typedef struct
{
  const char *mode;
  char *layers[32];
  char buf[1024];
} FakeSandbox;

static void
fake_sandbox_init (FakeSandbox *sb)
{
  const char *layers = getenv ("SANDPAD_FAKE_SANDBOX_LAYERS");
  size_t n = 0;

  sb->mode = getenv ("SANDPAD_FAKE_SANDBOX_MODE") ? getenv ("SANDPAD_FAKE_SANDBOX_MODE") : "fake";
  snprintf (sb->buf, sizeof sb->buf, "%s", layers ? layers : "");
  for (char *save = NULL, *tok = strtok_r (sb->buf, " ", &save); tok != NULL && n < 31;
       tok = strtok_r (NULL, " ", &save))
    sb->layers[n++] = tok;
  sb->layers[n] = NULL;
}

/* The sandbox object as JSON (names are plain words: no escaping needed). */
static void
fake_sandbox_json (const FakeSandbox *sb, char *out, size_t size)
{
  size_t len = (size_t) snprintf (out, size, "{\"mode\":\"%s\",\"layers\":[", sb->mode);

  for (size_t i = 0; sb->layers[i] != NULL && len < size; i++)
    len += (size_t) snprintf (out + len, size - len, "%s\"%s\"", i ? "," : "", sb->layers[i]);
  if (len < size)
    snprintf (out + len, size - len, "]}");
}

static void
send_all (int fd, const char *data, size_t len)
{
  while (len > 0)
    {
      ssize_t n = write (fd, data, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        exit (1); /* the client went away: nothing left to do */
      data += n;
      len -= (size_t) n;
    }
}

static void
send_str (int fd, const char *text)
{
  send_all (fd, text, strlen (text));
}

static void
send_message (int fd, const SpMessage *msg)
{
  size_t len = 0;
  char *line = sp_message_encode (msg, &len);

  if (line == NULL)
    abort ();
  send_all (fd, line, len);
  free (line);
}

/* Everything a good exited has, and a line the decoder refuses (%s: id). */
static const char bad_exited_format[]
  = "{\"v\":1,\"type\":\"exited\",\"id\":\"%s\",\"end\":\"exited\",\"exit_code\":1,"
    "\"t_ms\":1,\"wall_ms\":1,\"cpu_ms\":1,\"peak_memory_bytes\":1,\"stdout_bytes\":5,"
    "\"stderr_bytes\":0,\"stdout_truncated\":false,\"stderr_truncated\":false,\"files\":[],"
    "\"files_truncated\":false,\"program_error\":{\"type\":\"ValueError\",\"message\":\"\","
    "\"line\":99999999999,\"frames\":[]}}\n";

/* The one run this fake knows how to do: print "fake" and succeed, or
 * with `bad`, fail in a way the client cannot read. */
static void
answer_run (int fd, const char *id, const FakeSandbox *sb, int bad)
{
  SpMessage msg = { .type = SP_MSG_QUEUED };

  msg.u.queued.id = (char *) id;
  send_message (fd, &msg);

  memset (&msg, 0, sizeof msg);
  msg.type = SP_MSG_STARTED;
  msg.u.started.id = (char *) id;
  msg.u.started.cwd = (char *) "/nonexistent/fake";
  msg.u.started.timeout_ms = 30000;
  msg.u.started.memory_mib = 512;
  msg.u.started.output_limit = 1048576;
  msg.u.started.sandbox.mode = (char *) sb->mode;
  msg.u.started.sandbox.layers = (char **) sb->layers;
  send_message (fd, &msg);

  memset (&msg, 0, sizeof msg);
  msg.type = SP_MSG_OUTPUT;
  msg.u.output.id = (char *) id;
  msg.u.output.stream = SP_STREAM_STDOUT;
  msg.u.output.data = (char *) "fake\n";
  send_message (fd, &msg);

  if (bad)
    {
      char line[sizeof bad_exited_format + SP_PROTO_MAX_ID];
      snprintf (line, sizeof line, bad_exited_format, id);
      send_str (fd, line);
      return;
    }
  memset (&msg, 0, sizeof msg);
  msg.type = SP_MSG_EXITED;
  msg.u.exited.id = (char *) id;
  msg.u.exited.end = SP_END_EXITED;
  msg.u.exited.wall_ms = 1;
  msg.u.exited.stdout_bytes = 5;
  send_message (fd, &msg);
}

static const char *
option_value (int argc, char **argv, const char *name)
{
  for (int i = 1; i + 1 < argc; i++)
    if (strcmp (argv[i], name) == 0)
      return argv[i + 1];
  return NULL;
}

static int
has_flag (int argc, char **argv, const char *name)
{
  for (int i = 1; i < argc; i++)
    if (strcmp (argv[i], name) == 0)
      return 1;
  return 0;
}

/* How many times this fake has been started, counting this one. */
static long
bump_count (const char *path)
{
  long count = 0;
  FILE *file = fopen (path, "r");

  if (file != NULL)
    {
      if (fscanf (file, "%ld", &count) != 1)
        count = 0;
      fclose (file);
    }
  count++;
  file = fopen (path, "w");
  if (file == NULL)
    abort ();
  fprintf (file, "%ld\n", count);
  fclose (file);
  return count;
}

/* What the client asked about a run, for the test to read back. */
static void
log_request (const char *path, const SpMessage *msg)
{
  FILE *file;

  if (path == NULL || (msg->type != SP_MSG_CANCEL && msg->type != SP_MSG_RELEASE))
    return;
  file = fopen (path, "a");
  if (file == NULL)
    abort ();
  fprintf (file, "%s %s\n", sp_message_type_to_string (msg->type), msg->u.ref.id);
  fclose (file);
}

/* cancel: the run is over (run_state); release: released. */
static void
answer_ref (int fd, const SpMessage *req)
{
  SpMessage msg = { .type = req->type == SP_MSG_CANCEL ? SP_MSG_ERROR : SP_MSG_RELEASED };

  if (req->type == SP_MSG_CANCEL)
    {
      msg.u.error.id = req->u.ref.id;
      msg.u.error.code = SP_ERR_RUN_STATE;
      msg.u.error.message = (char *) "the run has exited";
    }
  else
    msg.u.ref.id = req->u.ref.id;
  send_message (fd, &msg);
}

int
main (int argc, char **argv)
{
  const char *fd_arg = option_value (argc, argv, "--fd");
  const char *count_file = option_value (argc, argv, "--count-file");
  const char *ok_after = option_value (argc, argv, "--ok-after");
  const char *requests_log = option_value (argc, argv, "--requests-log");
  int misbehave = 1, n_runs = 0;
  FakeSandbox sandbox;
  int fd;
  FILE *in;
  char *line = NULL;
  size_t cap = 0;
  ssize_t len;

  if (fd_arg == NULL)
    {
      fputs ("fake-runner: --fd N is required\n", stderr);
      return 2;
    }
  fd = atoi (fd_arg);
  fake_sandbox_init (&sandbox);
  if (count_file != NULL && ok_after != NULL && bump_count (count_file) > atol (ok_after))
    misbehave = 0;
  /* Writing to a vanished client must end us, not hang us. */
  signal (SIGPIPE, SIG_DFL);
  in = fdopen (fd, "r");
  if (in == NULL)
    return 1;

  while ((len = getline (&line, &cap, in)) > 0)
    {
      SpMessage msg;
      SpProtoError err;

      if (sp_message_decode (line, (size_t) len - (line[len - 1] == '\n'), SP_DIR_REQUEST, &msg,
                             &err, NULL)
          != 0)
        continue;
      if (msg.type == SP_MSG_HELLO)
        {
          if (misbehave && has_flag (argc, argv, "--stall"))
            pause (); /* until the client gives up and kills us */
          char json[2048];
          char ready[sizeof ready_format + sizeof json + 16];
          fake_sandbox_json (&sandbox, json, sizeof json);
          snprintf (ready, sizeof ready, ready_format,
                    misbehave && has_flag (argc, argv, "--future") ? 2 : 1, json);
          send_str (fd, ready);
          if (misbehave && has_flag (argc, argv, "--garbage"))
            send_str (fd, "this is not json\n");
          if (misbehave && has_flag (argc, argv, "--unknown"))
            send_str (fd, "{\"v\":1,\"type\":\"surprise\"}\n");
          if (misbehave && has_flag (argc, argv, "--oversize"))
            {
              size_t big = 5 * 1024 * 1024;
              char *junk = malloc (big + 1);
              if (junk == NULL)
                abort ();
              memset (junk, 'x', big);
              junk[big] = '\n';
              send_all (fd, junk, big + 1);
              free (junk);
            }
        }
      else if (msg.type == SP_MSG_RUN)
        {
          if (misbehave && has_flag (argc, argv, "--crash-after-ready"))
            _exit (3);
          answer_run (fd, msg.u.run.id, &sandbox,
                      misbehave && n_runs++ == 0 && has_flag (argc, argv, "--bad-exited"));
        }
      else if (msg.type == SP_MSG_CANCEL || msg.type == SP_MSG_RELEASE)
        {
          log_request (requests_log, &msg);
          answer_ref (fd, &msg);
        }
      sp_message_clear (&msg);
    }
  free (line);
  return 0;
}
