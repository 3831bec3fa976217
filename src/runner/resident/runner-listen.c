/* runner-listen.c: the per-user resident runner (sandpad-runner --listen). */
#include "runner-listen.h"

#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include "runner-base.h"
#include "runner-daemon-path.h"
#include "runner-engine.h"
#include "runner-event.h"
#include "runner-outbox.h"
#include "sp-frame.h"

/* Fds a client may have sent ahead of the frames that use them. */
#define MAX_QUEUED_FDS 16
/* Clients at once; past it a connection is closed unanswered (the client
 * runs cold). */
#define MAX_CLIENTS 64

typedef struct Listener Listener;
typedef struct Client Client;

/* How a client's runs get their stdio, from its hello's "client" name:
 * sandpad-run hands each run its own pipes, so bytes pass untouched
 * (the protocol's output events carry text). */
typedef enum
{
  STDIO_EVENTS, /* output as events, stdin as stdin requests */
  STDIO_STDIN,  /* "sandpad-run --json": a stdin pipe with each run that forwards stdin */
  STDIO_ALL,    /* "sandpad-run": that, and stdout and stderr pipes */
} StdioMode;

typedef struct
{
  int fd;
  Buf buf;
  RunnerWatch *watch;
  bool broken;
} RawOut;

typedef struct LRun
{
  Listener *l;
  Client *client;  /* NULL once the client is gone */
  char *id;        /* the engine's */
  char *client_id; /* the client's */
  bool exited;
  int stdin_fd;
  RunnerWatch *stdin_watch;
  RawOut out[2]; /* SP_STREAM_STDOUT, SP_STREAM_STDERR; fd -1: events */
  struct LRun *next;
} LRun;

struct Client
{
  Listener *l;
  unsigned number;
  int fd;
  RunnerWatch *watch;
  SpFrameReader *reader;
  RunnerOutbox out;
  int fds[MAX_QUEUED_FDS];
  size_t n_fds;
  StdioMode stdio;
  bool gone;
  Client *next;
};

struct Listener
{
  RunnerConfig *config;
  RunnerLanguages *langs;
  RunnerEngine *engine;
  int listen_fd;
  RunnerWatch *listen_watch;
  Client *clients;
  int n_clients;
  LRun *runs;
  unsigned next_client, next_run;
  int64_t idle_exit_ns, idle_since;
  bool throttled;
  bool stopping;
};

static void log_msg (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));

static void
log_msg (const char *fmt, ...)
{
  va_list args;

  fputs ("sandpad-runner: ", stderr);
  va_start (args, fmt);
  vfprintf (stderr, fmt, args);
  va_end (args);
  fputc ('\n', stderr);
}

/* ---- backpressure over every client -------------------------------- */

/* The engine has one throttle; it is on while any client, or any run's
 * pipe, holds more than the high mark unsent, and off once all are below
 * the low one. */
static void
update_throttle (Listener *l)
{
  size_t most = 0;

  for (Client *c = l->clients; c != NULL; c = c->next)
    most = c->out.buf.len > most ? c->out.buf.len : most;
  for (LRun *r = l->runs; r != NULL; r = r->next)
    for (int s = 0; s < 2; s++)
      most = r->out[s].buf.len > most ? r->out[s].buf.len : most;
  if (!l->throttled && most > RUNNER_OUTBOX_HIGH_WATER)
    runner_engine_throttle (l->engine, l->throttled = true);
  else if (l->throttled && most < RUNNER_OUTBOX_LOW_WATER)
    runner_engine_throttle (l->engine, l->throttled = false);
}

/* Writes what a non-blocking fd takes; true when its reader is gone. */
static bool
flush_buf (int fd, Buf *buf)
{
  while (buf->len > 0)
    {
      ssize_t n = write (fd, buf->data, buf->len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0 && errno == EAGAIN)
        return false;
      if (n <= 0)
        {
          buf_clear (buf);
          return true;
        }
      buf_consume (buf, (size_t) n);
    }
  return false;
}

static void client_drop (Client *c);
static void lrun_maybe_done (LRun *r);

static void
client_flush (Client *c)
{
  RunnerLoop *loop = runner_engine_get_loop (c->l->engine);

  if (!c->out.broken && flush_buf (c->fd, &c->out.buf))
    c->out.broken = true;
  runner_loop_set_events (loop, c->out.watch, c->out.buf.len > 0 && !c->out.broken ? EPOLLOUT : 0);
  update_throttle (c->l);
}

static void
client_send (Client *c, const SpMessage *msg)
{
  size_t len = 0;
  char *line;

  if (c == NULL || c->gone || c->out.broken)
    return;
  /* Repairs what it must: an exited event always goes out, with its id. */
  line = runner_event_encode (msg, &len);
  if (line == NULL)
    return;
  buf_append (&c->out.buf, line, len);
  free (line);
  client_flush (c);
}

static void
client_error (Client *c, const char *id, const SpProtoError *err)
{
  SpMessage msg = { .type = SP_MSG_ERROR };

  msg.u.error.id = id && id[0] ? (char *) id : NULL;
  msg.u.error.code = err->code;
  msg.u.error.message = (char *) err->message;
  client_send (c, &msg);
}

/* ---- runs ------------------------------------------------------------ */

static LRun *
find_engine_run (Listener *l, const char *id)
{
  for (LRun *r = l->runs; r != NULL; r = r->next)
    if (id != NULL && strcmp (r->id, id) == 0)
      return r;
  return NULL;
}

static LRun *
find_client_run (Client *c, const char *id)
{
  for (LRun *r = c->l->runs; r != NULL; r = r->next)
    if (r->client == c && id != NULL && strcmp (r->client_id, id) == 0)
      return r;
  return NULL;
}

static void
raw_out_close (Listener *l, RawOut *o)
{
  runner_loop_unwatch (runner_engine_get_loop (l->engine), o->watch);
  o->watch = NULL;
  if (o->fd >= 0)
    close (o->fd);
  o->fd = -1;
  buf_clear (&o->buf);
}

static void
lrun_free (LRun *r)
{
  Listener *l = r->l;
  RunnerLoop *loop = runner_engine_get_loop (l->engine);

  for (LRun **p = &l->runs; *p != NULL; p = &(*p)->next)
    if (*p == r)
      {
        *p = r->next;
        break;
      }
  runner_loop_unwatch (loop, r->stdin_watch);
  if (r->stdin_fd >= 0)
    close (r->stdin_fd);
  for (int s = 0; s < 2; s++)
    raw_out_close (l, &r->out[s]);
  free (r->id);
  free (r->client_id);
  free (r);
  update_throttle (l);
}

/* A run of a client that left is released once it has exited (which
 * removes its directory); one whose pipes are still draining waits. */
static void
lrun_maybe_done (LRun *r)
{
  if (!r->exited || r->client != NULL)
    return;
  for (int s = 0; s < 2; s++)
    if (r->out[s].fd >= 0 && r->out[s].buf.len > 0 && !r->out[s].broken)
      return;
  runner_engine_release (r->l->engine, r->id, NULL);
  lrun_free (r);
}

static void
raw_out_flush (LRun *r, SpStream s)
{
  RawOut *o = &r->out[s];
  RunnerLoop *loop = runner_engine_get_loop (r->l->engine);

  if (o->fd < 0)
    return;
  if (!o->broken && flush_buf (o->fd, &o->buf))
    o->broken = true;
  if (o->buf.len == 0 && r->exited)
    {
      /* Its end: the client reads EOF after the last byte. */
      raw_out_close (r->l, o);
      return;
    }
  runner_loop_set_events (loop, o->watch, o->buf.len > 0 ? EPOLLOUT : 0);
  update_throttle (r->l);
}

static void
on_raw_out_ready (void *data, int fd, uint32_t events)
{
  LRun *r = data;
  SpStream s = fd == r->out[SP_STREAM_STDOUT].fd ? SP_STREAM_STDOUT : SP_STREAM_STDERR;

  if (events & EPOLLERR)
    {
      r->out[s].broken = true;
      buf_clear (&r->out[s].buf);
    }
  raw_out_flush (r, s);
  lrun_maybe_done (r);
}

static void
on_run_stdin (void *data, int fd, uint32_t events)
{
  LRun *r = data;
  char buf[65536];
  ssize_t n = read (fd, buf, sizeof buf);

  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  if (n <= 0)
    {
      runner_loop_unwatch (runner_engine_get_loop (r->l->engine), r->stdin_watch);
      r->stdin_watch = NULL;
      close (r->stdin_fd);
      r->stdin_fd = -1;
      if (!r->exited)
        runner_engine_stdin (r->l->engine, r->id, "", 0, true, NULL);
      return;
    }
  if (!r->exited)
    runner_engine_stdin (r->l->engine, r->id, buf, (size_t) n, false, NULL);
}

/* ---- the engine's sink ---------------------------------------------- */

static void
set_run_id (SpMessage *msg, char *id)
{
  switch (msg->type)
    {
    case SP_MSG_QUEUED:
      msg->u.queued.id = id;
      break;
    case SP_MSG_STARTED:
      msg->u.started.id = id;
      break;
    case SP_MSG_OUTPUT:
      msg->u.output.id = id;
      break;
    case SP_MSG_DISPLAY:
      msg->u.display.id = id;
      break;
    case SP_MSG_INPUT_WAIT:
      msg->u.input_wait.id = id;
      break;
    case SP_MSG_PHASE:
      msg->u.phase.id = id;
      break;
    case SP_MSG_OUTPUT_OMITTED:
      msg->u.omitted.id = id;
      break;
    case SP_MSG_EXITED:
      msg->u.exited.id = id;
      break;
    case SP_MSG_RELEASED:
      msg->u.ref.id = id;
      break;
    case SP_MSG_ERROR:
      msg->u.error.id = id;
      break;
    default:
      break;
    }
}

static void
on_event (void *data, const SpMessage *msg)
{
  Listener *l = data;
  const char *id = sp_message_run_id (msg);

  if (msg->type == SP_MSG_SESSION_ENDED)
    {
      /* Sessions are the user's, not one client's: everyone hears. */
      for (Client *c = l->clients; c != NULL; c = c->next)
        client_send (c, msg);
      return;
    }
  LRun *r = find_engine_run (l, id);
  if (r == NULL)
    return;
  SpMessage copy = *msg;
  set_run_id (&copy, r->client_id);
  client_send (r->client, &copy);
  if (msg->type == SP_MSG_EXITED)
    {
      r->exited = true;
      for (int s = 0; s < 2; s++)
        raw_out_flush (r, (SpStream) s);
      lrun_maybe_done (r);
    }
  else if (msg->type == SP_MSG_RELEASED && r->client != NULL)
    lrun_free (r); /* the client's release; lrun_maybe_done() frees its own */
}

static bool
wants_raw (void *data, const char *id)
{
  LRun *r = find_engine_run (data, id);
  return r != NULL && r->out[SP_STREAM_STDOUT].fd >= 0;
}

static void
on_raw_output (void *data, const char *id, SpStream stream, const char *bytes, size_t len)
{
  LRun *r = find_engine_run (data, id);

  if (r == NULL || r->out[stream].fd < 0 || r->out[stream].broken)
    return;
  buf_append (&r->out[stream].buf, bytes, len);
  raw_out_flush (r, stream);
}

static void
on_quit (void *data, int signo)
{
  Listener *l = data;
  l->stopping = true;
}

/* ---- requests -------------------------------------------------------- */

static int
take_fd (Client *c, SpProtoError *err)
{
  if (c->n_fds == 0)
    {
      sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                          "this runner takes a directory or stdio only with its fd "
                          "(SCM_RIGHTS), and none came");
      return -1;
    }
  int fd = c->fds[0];
  memmove (c->fds, c->fds + 1, --c->n_fds * sizeof *c->fds);
  return fd;
}

/* The name must be the directory whose fd the client sent: resolved here,
 * without following a symlink, it is that very inode. Then the engine may
 * take the name (and checks it again as always). */
static int
check_dir_fd (const char *field, const char *name, int fd, char ***allow, SpProtoError *err)
{
  struct stat held, named;
  cleanup_fd int ours = name[0] == '/' ? open_no_symlinks (name, O_PATH | O_DIRECTORY) : -1;

  if (fstat (fd, &held) != 0 || !S_ISDIR (held.st_mode) || ours < 0 || fstat (ours, &named) != 0
      || held.st_dev != named.st_dev || held.st_ino != named.st_ino)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"%s\": %.100s is not the directory whose fd came with "
                               "the request",
                               field, name);
  bool known = false;
  for (char **p = *allow; p != NULL && *p != NULL; p++)
    known = known || strcmp (*p, name) == 0;
  if (!known && runner_policy_allow (allow, name) != 0)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"%s\": %.100s: %s", field, name,
                               strerror (errno));
  return 0;
}

static int
handle_run (Client *c, SpRun *run, SpProtoError *err)
{
  Listener *l = c->l;
  RunnerPathPolicy *paths = &runner_engine_config (l->engine)->paths;
  cleanup_fd int cwd_fd = -1, env_fd = -1, in_fd = -1, out_fd = -1, err_fd = -1;

  if (find_client_run (c, run->id) != NULL)
    return sp_proto_set_error (err, SP_ERR_DUPLICATE_RUN,
                               "run \"%s\" already exists; release it first", run->id);
  /* The fds come in this order, each only when it applies. */
  if ((run->cwd != NULL && (cwd_fd = take_fd (c, err)) < 0)
      || (run->environment != NULL && (env_fd = take_fd (c, err)) < 0)
      || (c->stdio != STDIO_EVENTS && run->stdin_open && (in_fd = take_fd (c, err)) < 0)
      || (c->stdio == STDIO_ALL
          && ((out_fd = take_fd (c, err)) < 0 || (err_fd = take_fd (c, err)) < 0)))
    return -1;
  if (run->path != NULL)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"path\" is not allowed here: send the code");
  if (run->cwd != NULL && check_dir_fd ("cwd", run->cwd, cwd_fd, &paths->cwds, err) != 0)
    return -1;
  if (run->environment != NULL
      && check_dir_fd ("environment", run->environment, env_fd, &paths->environments, err) != 0)
    return -1;

  LRun *r = xcalloc (1, sizeof *r);
  r->l = l;
  r->client = c;
  r->client_id = xstrdup (run->id);
  r->id = xasprintf ("c%u-%u", c->number, l->next_run++);
  r->stdin_fd = -1;
  r->out[0].fd = r->out[1].fd = -1;
  r->next = l->runs;
  l->runs = r;
  free (run->id);
  run->id = xstrdup (r->id);
  if (out_fd >= 0)
    {
      r->out[SP_STREAM_STDOUT].fd = steal_fd (&out_fd);
      r->out[SP_STREAM_STDERR].fd = steal_fd (&err_fd);
    }
  if (runner_engine_submit (l->engine, run, err) != 0)
    {
      lrun_free (r);
      return -1;
    }
  RunnerLoop *loop = runner_engine_get_loop (l->engine);
  for (int s = 0; s < 2; s++)
    if (r->out[s].fd >= 0)
      {
        set_nonblocking (r->out[s].fd, true);
        r->out[s].watch = runner_loop_watch (loop, r->out[s].fd, 0, on_raw_out_ready, r);
      }
  if (in_fd >= 0)
    {
      r->stdin_fd = steal_fd (&in_fd);
      set_nonblocking (r->stdin_fd, true);
      r->stdin_watch = runner_loop_watch (loop, r->stdin_fd, EPOLLIN, on_run_stdin, r);
      if (r->stdin_watch == NULL)
        runner_engine_stdin (l->engine, r->id, "", 0, true, NULL);
    }
  return 0;
}

static void
handle_frame (Client *c, const char *frame, size_t len)
{
  Listener *l = c->l;
  char id[SP_PROTO_MAX_ID + 1];
  SpProtoError err = { 0 };
  SpMessage msg;
  LRun *r = NULL;
  int rc = 0;

  if (sp_message_decode (frame, len, SP_DIR_REQUEST, &msg, &err, id) != 0)
    {
      client_error (c, id, &err);
      return;
    }
  if ((msg.type == SP_MSG_CANCEL || msg.type == SP_MSG_RELEASE || msg.type == SP_MSG_STDIN)
      && (r = find_client_run (c, sp_message_run_id (&msg) ? sp_message_run_id (&msg)
                                                           : msg.u.stdin_.id))
           == NULL)
    {
      sp_proto_set_error (&err, SP_ERR_UNKNOWN_RUN, "no run \"%s\"", id);
      client_error (c, id, &err);
      sp_message_clear (&msg);
      return;
    }
  switch (msg.type)
    {
    case SP_MSG_HELLO:
      {
        SpMessage ready = { .type = SP_MSG_READY };
        if (msg.u.hello.client != NULL && strcmp (msg.u.hello.client, "sandpad-run") == 0)
          c->stdio = STDIO_ALL;
        else if (msg.u.hello.client != NULL
                 && strcmp (msg.u.hello.client, "sandpad-run --json") == 0)
          c->stdio = STDIO_STDIN;
        runner_langs_probe_versions (l->langs);
        runner_engine_describe (l->engine, &ready.u.ready);
        client_send (c, &ready);
        sp_message_clear (&ready);
      }
      break;
    case SP_MSG_RUN:
      rc = handle_run (c, &msg.u.run, &err);
      break;
    default:
      /* cancel, stdin, release under the engine's id for the client's run */
      rc = runner_engine_request (l->engine, &msg, r != NULL ? r->id : NULL, &err);
      break;
    }
  if (rc != 0)
    client_error (c, id, &err);
  sp_message_clear (&msg);
}

/* ---- clients ---------------------------------------------------------- */

static void
on_client_out (void *data, int fd, uint32_t events)
{
  Client *c = data;

  if (events & EPOLLERR)
    {
      c->out.broken = true;
      buf_clear (&c->out.buf);
    }
  client_flush (c);
  if (c->out.broken)
    client_drop (c);
}

/* Reads what came, with any fds (SCM_RIGHTS) queued for the frames that
 * name them. */
static void
on_client_in (void *data, int fd, uint32_t events)
{
  Client *c = data;
  char buf[65536];
  char control[CMSG_SPACE (sizeof (int) * RUNNER_MAX_PASSED_FDS)];
  struct iovec iov = { .iov_base = buf, .iov_len = sizeof buf };
  struct msghdr mh = { .msg_iov = &iov,
                       .msg_iovlen = 1,
                       .msg_control = control,
                       .msg_controllen = sizeof control };
  ssize_t n = recvmsg (fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);

  if (n < 0 && (errno == EAGAIN || errno == EINTR))
    return;
  for (struct cmsghdr *cm = n >= 0 ? CMSG_FIRSTHDR (&mh) : NULL; cm != NULL;
       cm = CMSG_NXTHDR (&mh, cm))
    if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS)
      {
        size_t k = (cm->cmsg_len - CMSG_LEN (0)) / sizeof (int);
        int *fds = (int *) CMSG_DATA (cm);
        for (size_t i = 0; i < k; i++)
          if (c->n_fds < MAX_QUEUED_FDS)
            c->fds[c->n_fds++] = fds[i];
          else
            close (fds[i]);
      }
  if (n <= 0 || (mh.msg_flags & MSG_CTRUNC))
    {
      client_drop (c);
      return;
    }
  sp_frame_reader_feed (c->reader, buf, (size_t) n);
  for (;;)
    {
      const char *frame;
      size_t len;
      SpProtoError err = { 0 };
      int rc = sp_frame_reader_next (c->reader, &frame, &len, &err);

      if (rc == 0)
        break;
      if (rc < 0)
        client_error (c, NULL, &err);
      else
        handle_frame (c, frame, len);
      if (c->gone)
        return;
    }
}

/* The client left (or stopped reading): its runs are cancelled, with the
 * usual escalation, and released once they have exited; named sessions
 * stay (they are the user's). */
static void
client_drop (Client *c)
{
  Listener *l = c->l;
  RunnerLoop *loop = runner_engine_get_loop (l->engine);

  if (c->gone)
    return;
  c->gone = true;
  for (LRun *r = l->runs, *next; r != NULL; r = next)
    {
      next = r->next;
      if (r->client != c)
        continue;
      r->client = NULL;
      if (!r->exited)
        runner_engine_cancel (l->engine, r->id, NULL);
      for (int s = 0; s < 2; s++)
        if (r->out[s].fd >= 0)
          r->out[s].broken = true;
      lrun_maybe_done (r);
    }
  runner_loop_unwatch (loop, c->watch);
  runner_loop_unwatch (loop, c->out.watch);
  c->watch = c->out.watch = NULL;
  for (size_t i = 0; i < c->n_fds; i++)
    close (c->fds[i]);
  c->n_fds = 0;
  close (c->fd);
  c->fd = -1;
  buf_clear (&c->out.buf);
  /* Freed by the main loop, outside any callback of its own. */
}

static void
reap_clients (Listener *l)
{
  for (Client **p = &l->clients; *p != NULL;)
    {
      Client *c = *p;
      if (!c->gone)
        {
          p = &c->next;
          continue;
        }
      *p = c->next;
      sp_frame_reader_free (c->reader);
      free (c);
      l->n_clients--;
    }
}

/* The seccomp filters a process carries (Seccomp_filters, Linux 5.9),
 * or -1 when /proc does not say. */
static long
seccomp_filters (const char *pid)
{
  char path[64], line[256];
  long filters = -1;

  snprintf (path, sizeof path, "/proc/%s/status", pid);
  FILE *f = fopen (path, "re");
  if (f == NULL)
    return -1;
  while (fgets (line, sizeof line, f) != NULL)
    if (strncmp (line, "Seccomp_filters:", 16) == 0)
      filters = atol (line + 16);
  fclose (f);
  return filters;
}

/* A peer inside a sandbox (a run of ours, in fallback mode the same uid)
 * carries seccomp filters on top of the ones we inherited: every run
 * loads its own. A peer with more filters than ours is refused (and runs
 * cold); one /proc cannot tell about is refused too. Read while the
 * connection, and so the peer, is held. */
static bool
peer_sandboxed (pid_t pid)
{
  char id[32];
  long ours = seccomp_filters ("self"), theirs;

  snprintf (id, sizeof id, "%d", (int) pid);
  theirs = seccomp_filters (id);
  return ours < 0 || theirs < 0 || theirs > ours;
}

static void
on_accept (void *data, int fd, uint32_t events)
{
  Listener *l = data;
  struct ucred cred;
  socklen_t len = sizeof cred;
  int sock = accept4 (fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

  if (sock < 0)
    return;
  if (getsockopt (sock, SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
    {
      log_msg ("refused a connection: SO_PEERCRED: %s", strerror (errno));
      close (sock);
      return;
    }
  if (cred.uid != geteuid ())
    {
      log_msg ("refused a connection from uid %u (pid %d): not this runner's uid %u",
               (unsigned) cred.uid, (int) cred.pid, (unsigned) geteuid ());
      close (sock);
      return;
    }
  if (peer_sandboxed (cred.pid))
    {
      log_msg ("refused a connection from pid %d: it runs under more seccomp filters than "
               "this runner (a sandbox)",
               (int) cred.pid);
      close (sock);
      return;
    }
  if (l->n_clients >= MAX_CLIENTS)
    {
      log_msg ("refused a connection from pid %d: %d clients already", (int) cred.pid, MAX_CLIENTS);
      close (sock);
      return;
    }
  Client *c = xcalloc (1, sizeof *c);
  RunnerLoop *loop = runner_engine_get_loop (l->engine);
  c->l = l;
  c->number = l->next_client++;
  c->fd = sock;
  c->reader = sp_frame_reader_new (SP_PROTO_MAX_FRAME);
  c->out.fd = sock;
  c->watch = runner_loop_watch (loop, sock, EPOLLIN, on_client_in, c);
  c->out.watch = runner_loop_watch (loop, sock, 0, on_client_out, c);
  c->next = l->clients;
  l->clients = c;
  l->n_clients++;
  if (c->watch == NULL)
    client_drop (c);
}

/* ---- the socket --------------------------------------------------------- */

/* systemd's socket activation: one listening socket as fd 3. */
static int
activated_fd (void)
{
  const char *pid = getenv ("LISTEN_PID"), *fds = getenv ("LISTEN_FDS");

  if (pid == NULL || fds == NULL || atol (pid) != (long) getpid () || atoi (fds) != 1)
    return -1;
  unsetenv ("LISTEN_PID");
  unsetenv ("LISTEN_FDS");
  unsetenv ("LISTEN_FDNAMES");
  fcntl (3, F_SETFD, FD_CLOEXEC);
  return 3;
}

/* Takes the runner's lock on fd: a POSIX record lock, not flock. flock
 * belongs to the open file, which every fork shares until the child
 * closes its copy; a child that has not exec'd nor closed its fds yet (a
 * run's supervisor before it drops the runner's fds, the namespace probe,
 * the reader of a request's file as the run's uid) would keep it after a
 * SIGKILL'd runner, and the next client would find the socket's lock held
 * and run cold. A record lock is the process's own: the kernel never
 * passes it to a child, and it is gone when the runner is. (It is also
 * dropped by closing any fd of the file: the runner opens it once.) */
static int
take_lock (int fd)
{
  struct flock lock = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };

  return fcntl (fd, F_SETLK, &lock);
}

/* Binds path, under a lock held for the runner's life so that two never
 * serve it (the loser returns 1: not an error). The directory was checked
 * to be ours alone, so the lock file and socket in it are ours too. */
static int
bind_socket (const char *path, int *lock_fd, int *out)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  cleanup_free char *lock_path = xasprintf ("%s.lock", path);

  if (strlen (path) >= sizeof addr.sun_path)
    {
      log_msg ("%s: the path is too long for a socket", path);
      return -1;
    }
  *lock_fd = open (lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (*lock_fd < 0)
    {
      log_msg ("%s: %s", lock_path, strerror (errno));
      return -1;
    }
  if (take_lock (*lock_fd) != 0)
    return 1;
  /* The pid, for whoever wants to find the runner (tests, the curious). */
  char pid[32];
  int n = snprintf (pid, sizeof pid, "%d\n", (int) getpid ());
  if (ftruncate (*lock_fd, 0) == 0)
    write_all (*lock_fd, pid, (size_t) n);
  strcpy (addr.sun_path, path);
  unlink (path); /* a runner that died left it; the lock says none serves it */
  int fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  mode_t old = umask (0177);
  int rc = fd < 0 ? -1 : bind (fd, (struct sockaddr *) &addr, sizeof addr);
  umask (old);
  if (rc != 0 || chmod (path, 0600) != 0 || listen (fd, 64) != 0)
    {
      log_msg ("%s: %s", path, strerror (errno));
      if (fd >= 0)
        close (fd);
      return -1;
    }
  *out = fd;
  return 0;
}

/* The names of the sessions, for sandpad-run --sessions, in a file beside
 * the socket (in our 0700 directory), rewritten whole when they change. */
static void
write_sessions (Listener *l, const char *socket_path, char **last)
{
  char **names = runner_engine_session_names (l->engine);
  Buf text = { 0 };

  for (char **p = names; *p != NULL; p++)
    {
      buf_append (&text, *p, strlen (*p));
      buf_append (&text, "\n", 1);
    }
  buf_append (&text, "", 1);
  sp_strv_free (names);
  if (socket_path != NULL && (*last == NULL || strcmp (*last, text.data) != 0))
    {
      cleanup_free char *path = xasprintf ("%s.sessions", socket_path);
      cleanup_free char *tmp = xasprintf ("%s.sessions.new", socket_path);
      cleanup_fd int fd = open (tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
      if (fd >= 0 && write_all (fd, text.data, text.len - 1) == 0)
        rename (tmp, path);
    }
  free (*last);
  *last = text.data;
}

static bool
idle (Listener *l)
{
  return l->clients == NULL && l->runs == NULL && runner_engine_active (l->engine) == 0
         && !runner_engine_has_sessions (l->engine);
}

int
runner_listen_run (RunnerConfig *config, RunnerLanguages *langs, const RunnerListenOptions *options)
{
  Listener l = { .config = config, .langs = langs, .listen_fd = -1 };
  RunnerSink sink
    = { .event = on_event, .raw_output = on_raw_output, .wants_raw = wants_raw, .quit = on_quit };
  cleanup_free char *path = NULL;
  cleanup_fd int lock_fd = -1;

  if (options->socket_path != NULL)
    path = xstrdup (options->socket_path);
  else
    {
      cleanup_free char *dir = runner_daemon_dir ();
      cleanup_free char *exe = realpath ("/proc/self/exe", NULL);
      if (dir == NULL || exe == NULL)
        die_with_error ("no directory of our own for the socket");
      cleanup_free char *name = runner_daemon_socket_name (exe);
      path = xasprintf ("%s/%s", dir, name);
    }
  /* From systemd, the socket is its to keep: the path only names the
   * session list beside it. */
  l.listen_fd = activated_fd ();
  bool bound = l.listen_fd < 0;
  if (bound)
    {
      int rc = bind_socket (path, &lock_fd, &l.listen_fd);
      if (rc != 0)
        return rc > 0 ? 0 : 125;
    }
  set_nonblocking (l.listen_fd, true);

  /* Names the clients showed with fds are added here: only those. */
  config->paths.cwd_any_owner = true;
  l.engine = runner_engine_new (config, langs, &sink, &l);
  l.idle_exit_ns = options->idle_exit_ms * INT64_C (1000000);
  RunnerLoop *loop = runner_engine_get_loop (l.engine);
  l.listen_watch = runner_loop_watch (loop, l.listen_fd, EPOLLIN, on_accept, &l);
  if (l.listen_watch == NULL)
    die_with_error ("cannot watch the socket");
  /* The first client should find a warm interpreter already. */
  runner_engine_prewarm (l.engine);
  l.idle_since = now_ns ();
  cleanup_free char *sessions = NULL;

  while (!l.stopping)
    {
      int64_t now = now_ns ();
      int wait_ms = -1;

      reap_clients (&l);
      write_sessions (&l, path, &sessions);
      if (!idle (&l))
        l.idle_since = now;
      else if (now - l.idle_since >= l.idle_exit_ns)
        break;
      else
        wait_ms = (int) ((l.idle_exit_ns - (now - l.idle_since)) / 1000000) + 1;
      if (runner_engine_iterate (l.engine, wait_ms) < 0)
        break;
    }

  /* Stop taking clients first, then the socket's name, then the lock:
   * a client that finds no socket starts a new runner, which waits for
   * nothing. */
  runner_loop_unwatch (loop, l.listen_watch);
  cleanup_free char *list = xasprintf ("%s.sessions", path);
  unlink (list);
  if (bound)
    unlink (path);
  close (l.listen_fd);
  for (Client *c = l.clients; c != NULL; c = c->next)
    client_drop (c);
  runner_engine_kill_all (l.engine);
  int64_t give_up = now_ns () + 5 * INT64_C (1000000000);
  while (runner_engine_active (l.engine) > 0 && now_ns () < give_up)
    if (runner_engine_iterate (l.engine, 100) < 0)
      break;
  reap_clients (&l);
  while (l.runs != NULL)
    lrun_free (l.runs);
  /* The lists grew (and moved): the caller clears the engine's. */
  config->paths = runner_engine_config (l.engine)->paths;
  runner_engine_free (l.engine);
  return 0;
}
