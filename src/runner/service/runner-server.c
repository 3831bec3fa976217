/* runner-server.c: the protocol side of sandpad-runner. */
#include "runner-server.h"

#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>

#include "runner-util.h"
#include "sp-frame.h"

/* Past this much unsent output the client is not keeping up: stop reading
 * the programs' pipes until it catches up (they block, nothing is lost). */
#define OUT_HIGH_WATER (8 * 1024 * 1024)
#define OUT_LOW_WATER (1024 * 1024)
/* After the client leaves, how long runs get to die before we give up. */
#define SHUTDOWN_NS (5 * INT64_C (1000000000))

typedef struct
{
  RunnerEngine *engine;
  int in_fd;
  int out_fd;
  RunnerWatch *in_watch;
  RunnerWatch *out_watch;
  SpFrameReader *reader;
  Buf out;
  bool stopping;
  bool out_broken;
} RunnerServer;

static void
flush_out (RunnerServer *server)
{
  while (server->out.len > 0 && !server->out_broken)
    {
      ssize_t n = write (server->out_fd, server->out.data, server->out.len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        break;
      if (n <= 0)
        {
          /* The client is gone; nobody is left to tell. */
          server->out_broken = true;
          server->stopping = true;
          buf_clear (&server->out);
          break;
        }
      buf_consume (&server->out, (size_t) n);
    }
  if (server->out_watch != NULL)
    runner_loop_set_events (runner_engine_get_loop (server->engine), server->out_watch,
                            server->out.len > 0 && !server->out_broken ? EPOLLOUT : 0);
  if (server->out.len > OUT_HIGH_WATER)
    runner_engine_throttle (server->engine, true);
  else if (server->out.len < OUT_LOW_WATER)
    runner_engine_throttle (server->engine, false);
}

static void
send_message (RunnerServer *server, const SpMessage *msg)
{
  size_t len = 0;
  char *line = sp_message_encode (msg, &len);

  if (line == NULL)
    {
      /* Only a bug can get here: every string we send is sanitized. */
      SpMessage fallback = { .type = SP_MSG_ERROR };
      fallback.u.error.code = SP_ERR_INTERNAL;
      fallback.u.error.message = (char *) "failed to encode an event";
      line = sp_message_encode (&fallback, &len);
    }
  buf_append (&server->out, line, len);
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
        runner_engine_describe (server->engine, &ready.u.ready);
        send_message (server, &ready);
        sp_message_clear (&ready);
      }
      break;
    case SP_MSG_RUN:
      rc = runner_engine_submit (server->engine, &msg.u.run, &err);
      break;
    case SP_MSG_CANCEL:
      rc = runner_engine_cancel (server->engine, msg.u.ref.id, &err);
      break;
    case SP_MSG_STDIN:
      rc = runner_engine_stdin (server->engine, msg.u.stdin_.id,
                                msg.u.stdin_.data ? msg.u.stdin_.data : "",
                                msg.u.stdin_.data ? strlen (msg.u.stdin_.data) : 0,
                                msg.u.stdin_.eof, &err);
      break;
    case SP_MSG_RELEASE:
      rc = runner_engine_release (server->engine, msg.u.ref.id, &err);
      break;
    default:
      rc = sp_proto_set_error (&err, SP_ERR_UNKNOWN_TYPE, "not a request");
      break;
    }
  if (rc != 0)
    send_error (server, id, &err);
  sp_message_clear (&msg);
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

  sp_frame_reader_feed (server->reader, buf, (size_t) n);
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
on_output_ready (void *data, int fd, uint32_t events)
{
  RunnerServer *server = data;

  if (events & EPOLLERR)
    {
      server->out_broken = true;
      server->stopping = true;
      buf_clear (&server->out);
    }
  flush_out (server);
}

int
runner_server_run (const RunnerConfig *config, RunnerLanguages *langs, int in_fd, int out_fd)
{
  RunnerServer server = { .in_fd = in_fd };
  RunnerSink sink = { .event = on_event, .quit = on_quit };

  /* One fd (a socket) may serve both ways; epoll wants distinct fds. */
  server.out_fd = out_fd == in_fd ? fcntl (out_fd, F_DUPFD_CLOEXEC, 3) : out_fd;
  if (server.out_fd < 0)
    die_with_error ("dup");
  set_nonblocking (in_fd, true);
  set_nonblocking (server.out_fd, true);
  server.reader = sp_frame_reader_new (SP_PROTO_MAX_FRAME);
  server.engine = runner_engine_new (config, langs, &sink, &server);

  RunnerLoop *loop = runner_engine_get_loop (server.engine);
  server.in_watch = runner_loop_watch (loop, in_fd, EPOLLIN, on_input, &server);
  server.out_watch = runner_loop_watch (loop, server.out_fd, 0, on_output_ready, &server);

  while (!server.stopping)
    if (runner_engine_iterate (server.engine, -1) != 0)
      break;

  /* Shutting down: kill every run, let the exited events go out while the
   * client may still listen, then clean up. */
  runner_engine_kill_all (server.engine);
  int64_t give_up = now_ns () + SHUTDOWN_NS;
  while ((runner_engine_active (server.engine) > 0 || (server.out.len > 0 && !server.out_broken))
         && now_ns () < give_up)
    if (runner_engine_iterate (server.engine, 100) != 0)
      break;

  runner_loop_unwatch (loop, server.in_watch);
  runner_loop_unwatch (loop, server.out_watch);
  server.out_watch = NULL;
  runner_engine_free (server.engine);
  sp_frame_reader_free (server.reader);
  buf_clear (&server.out);
  if (server.out_fd != out_fd)
    close (server.out_fd);
  return 0;
}
