/* sandpad-run-daemon.c: sandpad-run through the user's resident runner. */
#include "sandpad-run-daemon.h"

#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>

#include "config.h"
#include "runner-base.h"
#include "runner-daemon-path.h"
#include "runner-event.h"
#include "sp-frame.h"

/* How long a runner we started has to start listening. */
#define START_WAIT_MS 3000
/* Its log is started afresh past this size. */
#define LOG_MAX (1024 * 1024)

bool
sandpad_daemon_enabled (bool no_daemon_option)
{
  const char *env = getenv ("SANDPAD_NO_DAEMON");

  return !no_daemon_option && (env == NULL || env[0] == '\0' || strcmp (env, "0") == 0);
}

/* The runner beside us (a build tree, or both in one directory), else the
 * installed one; for sandpad-mcp in the build tree (src/mcp/), the build
 * tree's, as runner-warm-run.c finds the warm files: never a path outside
 * the installation or the developer's own tree. */
static char *
runner_path (void)
{
  cleanup_free char *self = realpath ("/proc/self/exe", NULL);

  if (self != NULL)
    {
      *strrchr (self, '/') = '\0';
      char *beside = xasprintf ("%s/sandpad-runner", self);
      if (access (beside, X_OK) == 0)
        return beside;
      free (beside);
      size_t root = strlen (SANDPAD_BUILD_ROOT);
      if (strncmp (self, SANDPAD_BUILD_ROOT, root) == 0 && self[root] == '/'
          && access (SANDPAD_BUILD_ROOT "/src/runner/sandpad-runner", X_OK) == 0
          && access (SANDPAD_LIBEXECDIR "/sandpad-runner", X_OK) != 0)
        return xstrdup (SANDPAD_BUILD_ROOT "/src/runner/sandpad-runner");
    }
  return xstrdup (SANDPAD_LIBEXECDIR "/sandpad-runner");
}

static int
try_connect (const char *path)
{
  struct sockaddr_un addr = { .sun_family = AF_UNIX };
  int fd;

  if (strlen (path) >= sizeof addr.sun_path)
    return -1;
  strcpy (addr.sun_path, path);
  fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0)
    return -1;
  if (connect (fd, (struct sockaddr *) &addr, sizeof addr) != 0)
    {
      close (fd);
      return -1;
    }
  return fd;
}

/* Starts the runner detached from us: its own session (no terminal's
 * signals), reparented (a double fork), no fd of ours (stdin and stdout
 * /dev/null, stderr its log), our signal mask undone. Two of us starting
 * one at once is fine: the runner's lock lets one serve, the other exits. */
static void
start_runner (const char *runner, const char *dir, const char *socket_path)
{
  pid_t pid = fork ();

  if (pid < 0)
    return;
  if (pid == 0)
    {
      sigset_t none;
      setsid ();
      if (fork () != 0)
        _exit (0);
      cleanup_free char *log = xasprintf ("%s/runner.log", dir);
      int null = open ("/dev/null", O_RDWR | O_CLOEXEC);
      int logfd = open (log, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
      struct stat st;
      if (logfd >= 0 && fstat (logfd, &st) == 0 && st.st_size > LOG_MAX)
        (void) ftruncate (logfd, 0);
      if (null < 0 || dup2 (null, 0) < 0 || dup2 (null, 1) < 0
          || dup2 (logfd >= 0 ? logfd : null, 2) < 0)
        _exit (127);
      syscall (SYS_close_range, 3, ~0U, 0);
      sigemptyset (&none);
      sigprocmask (SIG_SETMASK, &none, NULL);
      for (int s = 1; s < NSIG; s++)
        signal (s, SIG_DFL);
      if (chdir ("/") != 0)
        _exit (127);
      /* Its idle time and the grace between a cancel's steps, when the
       * environment sets them (the runner checks the values). */
      const char *idle = getenv ("SANDPAD_RUNNER_IDLE_EXIT");
      const char *grace = getenv ("SANDPAD_RUNNER_CANCEL_GRACE_MS");
      char *argv[5];
      size_t n = 0;
      argv[n++] = (char *) runner;
      argv[n++] = xasprintf ("--listen=%s", socket_path);
      if (idle != NULL && idle[0])
        argv[n++] = xasprintf ("--idle-exit=%s", idle);
      if (grace != NULL && grace[0])
        argv[n++] = xasprintf ("--cancel-grace-ms=%s", grace);
      argv[n] = NULL;
      execv (runner, argv);
      _exit (127);
    }
  while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
    ;
}

static int
connect_runner (bool start)
{
  cleanup_free char *dir = runner_daemon_dir ();
  cleanup_free char *runner = runner_path ();

  if (dir == NULL || access (runner, X_OK) != 0)
    return -1;
  cleanup_free char *name = runner_daemon_socket_name (runner);
  cleanup_free char *path = xasprintf ("%s/%s", dir, name);
  int fd = try_connect (path);
  if (fd >= 0 || !start)
    return fd;
  start_runner (runner, dir, path);
  for (int waited = 0, step = 2; waited < START_WAIT_MS;
       waited += step, step = step < 50 ? step * 2 : 50)
    {
      struct timespec ts = { 0, step * 1000000L };
      nanosleep (&ts, NULL);
      fd = try_connect (path);
      if (fd >= 0)
        return fd;
    }
  return -1;
}

int
sandpad_daemon_connect (void)
{
  return connect_runner (true);
}

int
sandpad_daemon_send (int sock, const SpMessage *msg, const int *fds, size_t n_fds)
{
  size_t len = 0;
  cleanup_free char *line = sp_message_encode (msg, &len);

  if (line == NULL)
    return -1;
  if (n_fds > 0)
    return send_with_fds (sock, line, len, fds, n_fds);
  for (size_t done = 0; done < len;)
    {
      ssize_t n = send (sock, line + done, len - done, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return -1;
      done += (size_t) n;
    }
  return 0;
}

typedef struct
{
  int sock;
  SpFrameReader *reader;
  bool json;
  bool taken;   /* the runner queued the run: from now on it is the runner's */
  bool refused; /* the runner answered the run with an error */
  bool done;
  SpExited *result;
  int out_fd;      /* the program's stdout, relayed raw; -1 without */
  const char *cwd; /* the request's --cwd, or NULL */
  bool session;    /* a named session's run: no cold path says a refusal */
} Conn;

static bool relay (int fd, int out);

/* What the program printed before a display is in its stdout pipe before
 * the display is on the socket (the resident runner writes it there
 * first): it goes out first. */
static void
drain_stdout (Conn *c)
{
  struct pollfd p = { .fd = c->out_fd, .events = POLLIN };

  while (c->out_fd >= 0 && poll (&p, 1, 0) > 0 && (p.revents & POLLIN))
    if (!relay (c->out_fd, 1))
      break;
}

void
sandpad_show_display (const SpDisplay *display)
{
  /* A chart's data: its picture is the plot file the run made. */
  for (size_t i = 0; i < display->n_items; i++)
    if (strcmp (display->items[i].mime, SP_DISPLAY_CHART_MIME) == 0)
      return;
  for (size_t i = 0; i < display->n_items; i++)
    if (strcmp (display->items[i].mime, "text/plain") == 0)
      {
        const char *text = display->items[i].text;
        size_t len = strlen (text);
        write_all (1, text, len);
        if (len == 0 || text[len - 1] != '\n')
          write_all (1, "\n", 1);
      }
}

void
sandpad_show_omitted (const SpOutputOmitted *om, const char *cwd)
{
  const char *stream = om->stream == SP_STREAM_STDERR ? "stderr" : "stdout";

  fprintf (stderr, "sandpad: %lld bytes (%lld lines) of %s left out here, past the output limit",
           (long long) om->bytes, (long long) om->lines, stream);
  if (om->file == NULL)
    fputs ("\n", stderr);
  else if (cwd == NULL)
    fprintf (stderr, "; --cwd DIR keeps the whole output in DIR/%s\n", om->file);
  else
    fprintf (stderr, "; the whole output is in %s/%s%s\n", cwd, om->file,
             om->file_cut ? " (its start: the file stopped at half the disk limit)" : "");
}

/* One event from the runner. */
static void
handle_event (Conn *c, const char *frame, size_t len)
{
  SpMessage msg;
  SpProtoError err = { 0 };
  const char *id;

  if (sp_message_decode (frame, len, SP_DIR_EVENT, &msg, &err, NULL) != 0)
    return;
  id = sp_message_run_id (&msg);
  if (msg.type == SP_MSG_ERROR && id != NULL && strcmp (id, "cli") == 0 && !c->taken)
    {
      /* The cold path says the same, in its own words; a session's run
       * has none, so the runner's are said here ("started with another
       * cwd"). */
      c->refused = true;
      if (c->session && msg.u.error.message != NULL)
        fprintf (stderr, "sandpad: %s\n", msg.u.error.message);
    }
  else if (id != NULL && strcmp (id, "cli") == 0)
    {
      c->taken = true;
      if (c->json)
        {
          /* The runner encoded it as sandpad-run would: pass it on. */
          write_all (1, frame, len);
          write_all (1, "\n", 1);
        }
      else if (msg.type == SP_MSG_DISPLAY)
        {
          drain_stdout (c);
          sandpad_show_display (&msg.u.display);
        }
      else if (msg.type == SP_MSG_OUTPUT_OMITTED)
        {
          drain_stdout (c);
          sandpad_show_omitted (&msg.u.omitted, c->cwd);
        }
      if (msg.type == SP_MSG_EXITED)
        {
          const SpExited *e = &msg.u.exited;
          memset (c->result, 0, sizeof *c->result);
          c->result->end = e->end;
          c->result->limit = e->limit;
          c->result->signal = e->signal;
          c->result->exit_code = e->exit_code;
          c->result->stdout_truncated = e->stdout_truncated;
          c->result->stderr_truncated = e->stderr_truncated;
          c->result->error = e->error ? xstrdup (e->error) : NULL;
          c->done = true;
        }
    }
  sp_message_clear (&msg);
}

static int
open_dir (const char *path)
{
  return path == NULL ? -1 : open (path, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

/* Copies what one read of fd gives to out; false at its end. */
static bool
relay (int fd, int out)
{
  char buf[65536];
  ssize_t n = read (fd, buf, sizeof buf);

  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return true;
  if (n <= 0)
    return false;
  write_all (out, buf, (size_t) n);
  return true;
}

int
sandpad_daemon_run (const SpRun *req, bool json, bool forward_stdin, SpExited *result)
{
  cleanup_fd int sock = -1, cwd_fd = -1, env_fd = -1, sig_fd = -1;
  int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 };
  int fds[5];
  size_t n_fds = 0;
  int status = SANDPAD_DAEMON_UNREACHED;
  Buf pending = { 0 }; /* our stdin, not yet in the run's pipe */
  bool stdin_open = forward_stdin;
  sigset_t quit, old;

  /* The directories named, opened by us: the runner uses these. */
  if ((req->cwd != NULL && (cwd_fd = open_dir (req->cwd)) < 0)
      || (req->environment != NULL && (env_fd = open_dir (req->environment)) < 0))
    return SANDPAD_DAEMON_UNREACHED;
  sock = connect_runner (true);
  if (sock < 0)
    return SANDPAD_DAEMON_UNREACHED;

  SpMessage hello = { .type = SP_MSG_HELLO };
  hello.u.hello.client = (char *) (json ? "sandpad-run --json" : "sandpad-run");
  SpMessage run = { .type = SP_MSG_RUN, .u.run = *req };
  run.u.run.stdin_open = forward_stdin;
  if (cwd_fd >= 0)
    fds[n_fds++] = cwd_fd;
  if (env_fd >= 0)
    fds[n_fds++] = env_fd;
  if ((forward_stdin && pipe2 (in, O_CLOEXEC) != 0)
      || (!json && (pipe2 (out, O_CLOEXEC) != 0 || pipe2 (err, O_CLOEXEC) != 0)))
    goto out;
  if (forward_stdin)
    fds[n_fds++] = in[0];
  if (!json)
    {
      fds[n_fds++] = out[1];
      fds[n_fds++] = err[1];
    }

  /* Ctrl+C, SIGTERM, SIGHUP: a cancel each, as the cold path's engine
   * does (the runner escalates). Blocked before the run is sent. */
  sigemptyset (&quit);
  sigaddset (&quit, SIGINT);
  sigaddset (&quit, SIGTERM);
  sigaddset (&quit, SIGHUP);
  sigprocmask (SIG_BLOCK, &quit, &old);
  sig_fd = signalfd (-1, &quit, SFD_CLOEXEC | SFD_NONBLOCK);
  signal (SIGPIPE, SIG_IGN);
  if (sig_fd < 0 || sandpad_daemon_send (sock, &hello, NULL, 0) != 0
      || sandpad_daemon_send (sock, &run, fds, n_fds) != 0)
    goto out;
  /* Theirs now: our copies would keep the pipes from ending. */
  if (in[0] >= 0)
    close (in[0]);
  if (out[1] >= 0)
    close (out[1]);
  if (err[1] >= 0)
    close (err[1]);
  in[0] = out[1] = err[1] = -1;
  if (in[1] >= 0)
    set_nonblocking (in[1], true);

  Conn c = { .sock = sock,
             .json = json,
             .result = result,
             .reader = sp_frame_reader_new (SP_PROTO_MAX_FRAME),
             .out_fd = out[0],
             .cwd = req->cwd,
             .session = req->session != NULL };
  bool sock_open = true;
  while (sock_open || out[0] >= 0 || err[0] >= 0)
    {
      struct pollfd p[6];
      int n = 0, i_sock = -1, i_sig, i_out = -1, i_err = -1, i_in = -1, i_pipe = -1;

      if (c.done && out[0] < 0 && err[0] < 0)
        break;
      if (sock_open)
        p[i_sock = n++] = (struct pollfd){ .fd = sock, .events = POLLIN };
      p[i_sig = n++] = (struct pollfd){ .fd = sig_fd, .events = POLLIN };
      if (out[0] >= 0)
        p[i_out = n++] = (struct pollfd){ .fd = out[0], .events = POLLIN };
      if (err[0] >= 0)
        p[i_err = n++] = (struct pollfd){ .fd = err[0], .events = POLLIN };
      /* Not a byte of stdin is read before the run is taken: a run the
       * runner refuses goes cold with all of it. */
      if (c.taken && stdin_open && pending.len == 0 && in[1] >= 0)
        p[i_in = n++] = (struct pollfd){ .fd = 0, .events = POLLIN };
      if (pending.len > 0 && in[1] >= 0)
        p[i_pipe = n++] = (struct pollfd){ .fd = in[1], .events = POLLOUT };
      if (poll (p, (nfds_t) n, -1) < 0)
        {
          if (errno == EINTR)
            continue;
          break;
        }
      if (p[i_sig].revents)
        {
          struct signalfd_siginfo si;
          while (read (sig_fd, &si, sizeof si) == sizeof si)
            {
              SpMessage cancel = { .type = SP_MSG_CANCEL };
              cancel.u.ref.id = (char *) "cli";
              sandpad_daemon_send (sock, &cancel, NULL, 0);
            }
        }
      if (i_sock >= 0 && p[i_sock].revents)
        {
          char buf[65536];
          ssize_t k = read (sock, buf, sizeof buf);
          if (k < 0 && errno == EINTR)
            continue;
          if (k <= 0)
            sock_open = false;
          else
            {
              sp_frame_reader_feed (c.reader, buf, (size_t) k);
              const char *frame;
              size_t len;
              SpProtoError perr = { 0 };
              int rc;
              while ((rc = sp_frame_reader_next (c.reader, &frame, &len, &perr)) != 0)
                if (rc > 0)
                  handle_event (&c, frame, len);
              if (c.refused)
                break;
            }
        }
      if (i_out >= 0 && p[i_out].revents && out[0] >= 0 && !relay (out[0], 1))
        {
          close (out[0]);
          out[0] = c.out_fd = -1;
        }
      if (i_err >= 0 && p[i_err].revents && !relay (err[0], 2))
        {
          close (err[0]);
          err[0] = -1;
        }
      if (i_in >= 0 && p[i_in].revents)
        {
          char buf[65536];
          ssize_t k = read (0, buf, sizeof buf);
          if (k > 0)
            buf_append (&pending, buf, (size_t) k);
          else if (k == 0 || (errno != EINTR && errno != EAGAIN))
            stdin_open = false;
        }
      if (i_pipe >= 0 && p[i_pipe].revents)
        {
          ssize_t k = write (in[1], pending.data, pending.len);
          if (k > 0)
            buf_consume (&pending, (size_t) k);
          else if (k < 0 && errno != EINTR && errno != EAGAIN)
            {
              buf_clear (&pending);
              stdin_open = false;
            }
        }
      if (!stdin_open && pending.len == 0 && in[1] >= 0)
        {
          close (in[1]); /* the program reads its end */
          in[1] = -1;
        }
    }
  sp_frame_reader_free (c.reader);

  if (c.done)
    status = 0;
  else if (c.taken)
    {
      if (json)
        {
          /* The run was accepted: --json still ends with its exited. */
          SpMessage msg = { .type = SP_MSG_EXITED };
          size_t len;
          msg.u.exited.id = (char *) "cli";
          msg.u.exited.end = SP_END_FAILED;
          msg.u.exited.error = (char *) "the resident runner stopped during the run";
          cleanup_free char *line = runner_event_encode (&msg, &len);
          if (line != NULL)
            write_all (1, line, len);
        }
      fputs ("sandpad: the resident runner stopped during the run (the next call starts a "
             "new one)\n",
             stderr);
      status = 125;
    }

out:
  buf_clear (&pending);
  for (int i = 0; i < 2; i++)
    {
      if (in[i] >= 0)
        close (in[i]);
      if (out[i] >= 0)
        close (out[i]);
      if (err[i] >= 0)
        close (err[i]);
    }
  if (sig_fd >= 0)
    sigprocmask (SIG_SETMASK, &old, NULL);
  return status;
}

int
sandpad_daemon_close_session (const char *name)
{
  cleanup_fd int sock = connect_runner (false);
  SpMessage msg = { .type = SP_MSG_SESSION_CLOSE };
  SpFrameReader *reader;
  int status = 0;

  if (sock < 0)
    {
      fprintf (stderr, "sandpad: no session \"%s\" (no resident runner)\n", name);
      return 1;
    }
  msg.u.session.session = (char *) name;
  if (sandpad_daemon_send (sock, &msg, NULL, 0) != 0)
    return 125;
  /* The runner answers only a refusal; a session_ended says it is done. */
  reader = sp_frame_reader_new (SP_PROTO_MAX_FRAME);
  for (bool waiting = true; waiting;)
    {
      char buf[65536];
      ssize_t k = read (sock, buf, sizeof buf);
      if (k < 0 && errno == EINTR)
        continue;
      if (k <= 0)
        break;
      sp_frame_reader_feed (reader, buf, (size_t) k);
      const char *frame;
      size_t len;
      SpProtoError perr = { 0 };
      int rc;
      while (waiting && (rc = sp_frame_reader_next (reader, &frame, &len, &perr)) != 0)
        {
          SpMessage ev;
          if (rc < 0 || sp_message_decode (frame, len, SP_DIR_EVENT, &ev, &perr, NULL) != 0)
            continue;
          if (ev.type == SP_MSG_ERROR)
            {
              fprintf (stderr, "sandpad: %s\n", ev.u.error.message);
              status = 1;
              waiting = false;
            }
          else if (ev.type == SP_MSG_SESSION_ENDED && ev.u.session.session != NULL
                   && strcmp (ev.u.session.session, name) == 0)
            waiting = false;
          sp_message_clear (&ev);
        }
    }
  sp_frame_reader_free (reader);
  return status;
}

/* The runner keeps the names of its sessions in a file beside its socket
 * (runner-listen.c): listing them asks nothing of a runner that is not
 * there, and starts none. */
int
sandpad_daemon_list_sessions (void)
{
  cleanup_free char *dir = runner_daemon_dir ();
  cleanup_free char *runner = runner_path ();
  cleanup_fd int sock = connect_runner (false);

  if (dir == NULL || sock < 0)
    return 0; /* no resident runner: no sessions */
  cleanup_free char *name = runner_daemon_socket_name (runner);
  cleanup_free char *path = xasprintf ("%s/%s.sessions", dir, name);
  cleanup_fd int fd = open (path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  char buf[65536];
  ssize_t n;

  while (fd >= 0 && (n = read (fd, buf, sizeof buf)) > 0)
    write_all (1, buf, (size_t) n);
  return 0;
}
