/* runner-server.c: the protocol side of sandpad-runner. */
#include "runner-server.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>

#include "runner-event.h"
#include "runner-outbox.h"
#include "runner-base.h"
#include "sp-frame.h"

/* After the client leaves, how long runs get to die before we give up. */
#define SHUTDOWN_NS (5 * INT64_C (1000000000))

/* One end of the protocol, as the server uses it. */
typedef struct
{
  int fd;            /* what the server reads or writes */
  int caller_fd;     /* what it was handed */
  int restore_flags; /* -1, or the file status flags to put back on exit */
} ServerFd;

typedef struct
{
  const RunnerConfig *config;
  RunnerLanguages *langs;
  RunnerEngine *engine;
  ServerFd in;
  ServerFd events;
  bool in_file; /* requests come from a regular file (or /dev/null) */
  bool in_done; /* ... and all of it has been read */
  RunnerWatch *in_watch;
  SpFrameReader *reader;
  RunnerOutbox out;
  bool stopping;
} RunnerServer;

static void
flush_out (RunnerServer *server)
{
  if (runner_outbox_flush (&server->out, server->engine))
    server->stopping = true;
}

static void
send_message (RunnerServer *server, const SpMessage *msg)
{
  size_t len = 0;
  /* Repairs what it must: an exited event always goes out, with its id. */
  char *line = runner_event_encode (msg, &len);

  if (line == NULL)
    {
      fputs ("sandpad-runner: an event could not be encoded\n", stderr);
      return;
    }
  buf_append (&server->out.buf, line, len);
  free (line);
  flush_out (server);
}

static void
on_event (void *data, const SpMessage *msg)
{
  send_message (data, msg);
}

static void
on_quit (void *data, int signo)
{
  RunnerServer *server = data;
  server->stopping = true;
}

static void
send_error (RunnerServer *server, const char *id, const SpProtoError *err)
{
  SpMessage msg = { .type = SP_MSG_ERROR };

  msg.u.error.id = id && id[0] ? (char *) id : NULL;
  msg.u.error.code = err->code;
  msg.u.error.message = (char *) err->message;
  send_message (server, &msg);
}

static void
handle_frame (RunnerServer *server, const char *frame, size_t len)
{
  char id[SP_PROTO_MAX_ID + 1];
  SpProtoError err = { 0 };
  SpMessage msg;
  int rc = 0;

  if (sp_message_decode (frame, len, SP_DIR_REQUEST, &msg, &err, id) != 0)
    {
      send_error (server, id, &err);
      return;
    }

  switch (msg.type)
    {
    case SP_MSG_HELLO:
      {
        SpMessage ready = { .type = SP_MSG_READY };
        /* Versions are asked for here, once, not at startup: a client that
         * never says hello (a batch of requests from a file) does not wait
         * for three interpreters to start. */
        runner_langs_probe_versions (server->langs);
        runner_engine_describe (server->engine, &ready.u.ready);
        send_message (server, &ready);
        runner_engine_prewarm (server->engine);
        sp_message_clear (&ready);
      }
      break;
    case SP_MSG_RUN:
      rc = runner_engine_submit (server->engine, &msg.u.run, &err);
      break;
    case SP_MSG_CANCEL:
    case SP_MSG_RELEASE:
      rc = runner_engine_request (server->engine, &msg, msg.u.ref.id, &err);
      break;
    case SP_MSG_STDIN:
      rc = runner_engine_request (server->engine, &msg, msg.u.stdin_.id, &err);
      break;
    default:
      rc = runner_engine_request (server->engine, &msg, NULL, &err);
      break;
    }
  if (rc != 0)
    send_error (server, id, &err);
  sp_message_clear (&msg);
}

/* Decodes and answers every complete frame read so far. */
static void
handle_input (RunnerServer *server, const char *buf, size_t n)
{
  sp_frame_reader_feed (server->reader, buf, n);
  for (;;)
    {
      const char *frame;
      size_t len;
      SpProtoError err = { 0 };
      int rc = sp_frame_reader_next (server->reader, &frame, &len, &err);

      if (rc == 0)
        break;
      if (rc < 0)
        send_error (server, NULL, &err);
      else
        handle_frame (server, frame, len);
    }
}

static void
on_input (void *data, int fd, uint32_t events)
{
  RunnerServer *server = data;
  char buf[65536];
  ssize_t n = read (fd, buf, sizeof buf);

  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  if (n <= 0)
    {
      server->stopping = true;
      runner_loop_unwatch (runner_engine_get_loop (server->engine), server->in_watch);
      server->in_watch = NULL;
      return;
    }
  handle_input (server, buf, (size_t) n);
}

/* Requests from a file (sandpad-runner < requests.ndjson): epoll cannot
 * watch one and a read never waits, so it is read here, at the pace runs
 * finish (no more than the runner could start, so none is refused for a
 * full queue). Its end is not a client leaving: the runs it asked for
 * finish first, then the runner exits. */
static bool
read_file_input (RunnerServer *server)
{
  char buf[65536];

  if (runner_engine_active (server->engine) >= server->config->max_concurrent
      || server->out.buf.len > RUNNER_OUTBOX_LOW_WATER)
    return false; /* a run ending or the client reading wakes the loop */
  ssize_t n = read (server->in.fd, buf, sizeof buf);
  if (n < 0 && errno == EINTR)
    return true;
  if (n <= 0)
    {
      if (n < 0)
        fprintf (stderr, "sandpad-runner: reading requests: %s\n", strerror (errno));
      server->in_done = true;
      return false;
    }
  handle_input (server, buf, (size_t) n);
  return true;
}

static void
on_output_ready (void *data, int fd, uint32_t events)
{
  RunnerServer *server = data;

  if (events & EPOLLERR)
    {
      server->out.broken = true;
      server->stopping = true;
      buf_clear (&server->out.buf);
    }
  flush_out (server);
}

/* The server's own copy of a protocol fd. Making the caller's fd
 * non-blocking would change it for every process that shares its open
 * file description (a shell, the terminal): a pipe, FIFO or terminal is
 * opened again through /proc instead, a description of our own; a socket
 * cannot be, so it is shared and its flags are put back on exit. A regular
 * file (or /dev/null) is used as it is: it never blocks. */
static int
own_fd (int fd, int access, bool *is_file, ServerFd *out)
{
  struct stat st;

  *out = (ServerFd){ .fd = -1, .caller_fd = fd, .restore_flags = -1 };
  if (fstat (fd, &st) != 0)
    return -1;
  *is_file = S_ISREG (st.st_mode) || S_ISBLK (st.st_mode) || S_ISDIR (st.st_mode)
             || (S_ISCHR (st.st_mode) && !isatty (fd));
  if (*is_file)
    {
      out->fd = fcntl (fd, F_DUPFD_CLOEXEC, 3);
      return out->fd < 0 ? -1 : 0;
    }
  if (S_ISFIFO (st.st_mode) || S_ISCHR (st.st_mode))
    {
      char proc[64];
      snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
      out->fd = open (proc, access | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
      if (out->fd >= 0)
        return 0;
    }
  /* A socket, or a pipe /proc would not open (no reader left). */
  out->fd = fcntl (fd, F_DUPFD_CLOEXEC, 3);
  if (out->fd < 0)
    return -1;
  out->restore_flags = fcntl (fd, F_GETFL);
  return set_nonblocking (out->fd, true);
}

static void
release_fd (ServerFd *sfd)
{
  if (sfd->restore_flags >= 0)
    fcntl (sfd->fd, F_SETFL, sfd->restore_flags);
  if (sfd->fd >= 0)
    close (sfd->fd);
  sfd->fd = -1;
}

/* Whether the loop should go on: a client may send more; requests from a
 * file are done once read in full, their runs have ended and every event
 * is out (a slow reader of our stdout is not a client leaving). */
static bool
serving (RunnerServer *server)
{
  if (server->stopping)
    return false;
  if (server->in_file && server->in_done && runner_engine_active (server->engine) == 0
      && (server->out.buf.len == 0 || server->out.broken))
    return false;
  return true;
}

int
runner_server_run (const RunnerConfig *config, RunnerLanguages *langs, int in_fd, int out_fd)
{
  RunnerServer server = { .config = config, .langs = langs };
  RunnerSink sink = { .event = on_event, .quit = on_quit };
  bool out_file = false;

  /* Setup: failing here is fatal, nobody is being served yet. */
  if (own_fd (in_fd, O_RDONLY, &server.in_file, &server.in) != 0)
    die_with_error ("cannot use fd %d for requests", in_fd);
  if (own_fd (out_fd, O_WRONLY, &out_file, &server.events) != 0)
    die_with_error ("cannot use fd %d for events", out_fd);
  server.out.fd = server.events.fd;
  server.reader = sp_frame_reader_new (SP_PROTO_MAX_FRAME);
  server.engine = runner_engine_new (config, langs, &sink, &server);

  RunnerLoop *loop = runner_engine_get_loop (server.engine);
  if (!server.in_file)
    {
      server.in_watch = runner_loop_watch (loop, server.in.fd, EPOLLIN, on_input, &server);
      if (server.in_watch == NULL)
        die_with_error ("cannot watch fd %d for requests", in_fd);
    }
  if (!out_file)
    {
      server.out.watch = runner_loop_watch (loop, server.events.fd, 0, on_output_ready, &server);
      if (server.out.watch == NULL)
        die_with_error ("cannot watch fd %d for events", out_fd);
    }

  while (serving (&server))
    {
      bool more = server.in_file && !server.in_done && read_file_input (&server);
      /* The file's end may have been the last thing to wait for. */
      if (!serving (&server))
        break;
      if (runner_engine_iterate (server.engine, more ? 0 : -1) < 0)
        break;
    }

  /* Shutting down: kill every run, let the exited events go out while the
   * client may still listen, then clean up. */
  runner_engine_kill_all (server.engine);
  int64_t give_up = now_ns () + SHUTDOWN_NS;
  while (
    (runner_engine_active (server.engine) > 0 || (server.out.buf.len > 0 && !server.out.broken))
    && now_ns () < give_up)
    if (runner_engine_iterate (server.engine, 100) < 0)
      break;

  runner_loop_unwatch (loop, server.in_watch);
  runner_loop_unwatch (loop, server.out.watch);
  server.out.watch = NULL;
  runner_engine_free (server.engine);
  sp_frame_reader_free (server.reader);
  buf_clear (&server.out.buf);
  /* In this order: with one socket for both, in holds the flags it had
   * before we touched it. */
  release_fd (&server.events);
  release_fd (&server.in);
  return 0;
}
