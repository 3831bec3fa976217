/* runner-daemon-path.h: where the per-user resident runner listens.
 *
 * sandpad-run and `sandpad-runner --listen` must agree on one place, and
 * both must refuse a place someone else could have prepared: the directory
 * is $XDG_RUNTIME_DIR/sandpad (the user's own tmpfs, gone at logout), or
 * /tmp/sandpad-UID without one; either way it must be a real directory,
 * ours, mode 0700, or nothing is used (sandpad-run then runs cold). */
#pragma once

/* Makes (mode 0700) and checks the directory. Returns its path, or NULL
 * with errno set (EPERM: it exists but is not ours alone). */
char *runner_daemon_dir (void);

/* The socket's name in that directory for the runner executable at
 * runner_path: "runner.sock" for the installed one (the name systemd's
 * sandpad-runner.socket listens on), else one named after that very
 * file, so a build tree never talks to another build's runner. */
char *runner_daemon_socket_name (const char *runner_path);
