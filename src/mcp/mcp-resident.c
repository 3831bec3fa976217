/* mcp-resident.c: named sessions through the user's resident runner
 * (mcp-resident.h). One connection for the server's life, made at the
 * first call that needs it and made again after it is lost. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "mcp-resident.h"
#include "runner-base.h"
#include "sandpad-run-daemon.h"
#include "sp-frame.h"

struct McpResident
{
  RunnerLoop *loop;
  McpResidentEvent on_event;
  void *data;
  int sock; /* -1: not connected */
  RunnerWatch *watch;
  SpFrameReader *reader;
  char **runs; /* the ids sent and not exited, NULL-terminated */
};

McpResident *
mcp_resident_new (RunnerLoop *loop, McpResidentEvent on_event, void *data)
{
  McpResident *r = xcalloc (1, sizeof *r);

  r->loop = loop;
  r->on_event = on_event;
  r->data = data;
  r->sock = -1;
  r->runs = xcalloc (1, sizeof *r->runs);
  return r;
}

static void
forget_run (McpResident *r, const char *id)
{
  size_t n = sp_strv_length (r->runs);

  for (size_t i = 0; i < n; i++)
    if (strcmp (r->runs[i], id) == 0)
      {
        free (r->runs[i]);
        memmove (r->runs + i, r->runs + i + 1, (n - i) * sizeof *r->runs);
        return;
      }
}

bool
mcp_resident_has_run (const McpResident *r, const char *run_id)
{
  for (size_t i = 0; r->runs[i] != NULL; i++)
    if (strcmp (r->runs[i], run_id) == 0)
      return true;
  return false;
}

static void
disconnect (McpResident *r)
{
  if (r->watch != NULL)
    runner_loop_unwatch (r->loop, r->watch);
  r->watch = NULL;
  if (r->sock >= 0)
    close (r->sock);
  r->sock = -1;
  sp_frame_reader_free (r->reader);
  r->reader = NULL;
}

/* The connection is gone: every run still out ends, failed, saying so. */
static void
lost (McpResident *r, const char *why)
{
  disconnect (r);
  while (r->runs[0] != NULL)
    {
      cleanup_free char *id = xstrdup (r->runs[0]);
      SpMessage msg = { .type = SP_MSG_EXITED };

      forget_run (r, id);
      msg.u.exited.id = id;
      msg.u.exited.end = SP_END_FAILED;
      msg.u.exited.error = (char *) why;
      r->on_event (r->data, &msg);
    }
}

static void
handle_frame (McpResident *r, const char *frame, size_t len)
{
  SpMessage msg;
  SpProtoError err = { 0 };
  const char *id;

  if (sp_message_decode (frame, len, SP_DIR_EVENT, &msg, &err, NULL) != 0)
    return;
  id = sp_message_run_id (&msg);
  if (msg.type == SP_MSG_ERROR && id != NULL && mcp_resident_has_run (r, id))
    {
      /* The runner refused the run (a session started with another
       * working directory, its cap): it never ran. */
      SpMessage exited = { .type = SP_MSG_EXITED };
      cleanup_free char *run = xstrdup (id);
      forget_run (r, run);
      exited.u.exited.id = run;
      exited.u.exited.end = SP_END_FAILED;
      exited.u.exited.error = msg.u.error.message;
      r->on_event (r->data, &exited);
    }
  else if (msg.type == SP_MSG_SESSION_ENDED || (id != NULL && mcp_resident_has_run (r, id)))
    {
      if (msg.type == SP_MSG_EXITED)
        forget_run (r, id);
      r->on_event (r->data, &msg);
    }
  sp_message_clear (&msg);
}

static void
on_readable (void *data, int fd, uint32_t events)
{
  McpResident *r = data;
  char buf[65536];
  ssize_t n = read (fd, buf, sizeof buf);

  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return;
  if (n <= 0)
    {
      lost (r, "the resident runner went away (sandpad-runner --listen); the session's state "
               "is gone with it");
      return;
    }
  sp_frame_reader_feed (r->reader, buf, (size_t) n);
  const char *frame;
  size_t len;
  SpProtoError perr = { 0 };
  int rc;
  while (r->reader != NULL && (rc = sp_frame_reader_next (r->reader, &frame, &len, &perr)) != 0)
    if (rc > 0)
      handle_frame (r, frame, len);
}

static int
send_message (McpResident *r, const SpMessage *msg, const int *fds, size_t n_fds)
{
  return sandpad_daemon_send (r->sock, msg, fds, n_fds);
}

static int
connect_runner (McpResident *r)
{
  SpMessage hello = { .type = SP_MSG_HELLO };

  if (r->sock >= 0)
    return 0;
  r->sock = sandpad_daemon_connect ();
  if (r->sock < 0)
    return -1;
  /* Named so the runner sends output as events, not into pipes of ours. */
  hello.u.hello.client = (char *) "sandpad-mcp";
  r->reader = sp_frame_reader_new (SP_PROTO_MAX_FRAME);
  r->watch = runner_loop_watch (r->loop, r->sock, EPOLLIN, on_readable, r);
  if (r->watch == NULL || send_message (r, &hello, NULL, 0) != 0)
    {
      disconnect (r);
      return -1;
    }
  return 0;
}

int
mcp_resident_submit (McpResident *r, const SpRun *req, SpProtoError *err)
{
  cleanup_fd int cwd_fd = -1, env_fd = -1;
  int fds[2];
  size_t n_fds = 0;
  SpMessage run = { .type = SP_MSG_RUN, .u.run = *req };

  /* The directories as this server checked them, in the order the
   * runner takes them. */
  if (req->cwd != NULL
      && (cwd_fd = open (req->cwd, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) < 0)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "cannot open %.200s: %s", req->cwd,
                               strerror (errno));
  if (req->environment != NULL
      && (env_fd = open (req->environment, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "cannot open %.200s: %s",
                               req->environment, strerror (errno));
  if (cwd_fd >= 0)
    fds[n_fds++] = cwd_fd;
  if (env_fd >= 0)
    fds[n_fds++] = env_fd;
  run.u.run.stdin_open = false;
  if (connect_runner (r) != 0)
    return sp_proto_set_error (err, SP_ERR_INTERNAL,
                               "the resident runner (sandpad-runner --listen) cannot be reached "
                               "or started, so a session cannot outlive this server; start "
                               "sandpad-mcp without --resident-sessions to keep sessions here");
  if (send_message (r, &run, fds, n_fds) != 0)
    {
      disconnect (r);
      return sp_proto_set_error (err, SP_ERR_INTERNAL,
                                 "the resident runner went away before the run was sent");
    }
  size_t n = sp_strv_length (r->runs);
  r->runs = xrealloc (r->runs, (n + 2) * sizeof *r->runs);
  r->runs[n] = xstrdup (req->id);
  r->runs[n + 1] = NULL;
  return 0;
}

bool
mcp_resident_send (McpResident *r, const SpMessage *msg)
{
  return r->sock >= 0 && send_message (r, msg, NULL, 0) == 0;
}

void
mcp_resident_free (McpResident *r)
{
  if (r == NULL)
    return;
  disconnect (r);
  sp_strv_free (r->runs);
  free (r);
}
