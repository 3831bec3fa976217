/* sp-environment.h: a workspace's environment, as the app sees it.
 *
 * The runner checks and binds an environment (runner-venv.c); the app only
 * needs to find the one that belongs to a file, list what it holds and
 * find sandpad-run for installs. Finding is a small walk that core keeps in
 * GLib rather than linking the runner's plain-C service library into the
 * app (src/DESIGN.md says why). Nothing here runs the environment's
 * interpreter: a package can ship a .pth file that runs at every start, so
 * the list is read from the *.dist-info directory names, and installs go
 * through sandpad-run, in the sandbox. */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* For "python": `.venv` or `venv` (holding pyvenv.cfg); for "javascript":
 * `node_modules`; looked for in dir, then each parent up to workspace
 * inclusive (NULL: dir alone). NULL when there is none. */
char *sp_environment_find (const char *language, const char *dir, const char *workspace);

/* "name version" of each distribution in the venv's site-packages, sorted;
 * an empty array for none. */
GStrv sp_environment_list_packages (const char *venv, GError **error);

/* Whether a Python venv's pyvenv.cfg says include-system-site-packages =
 * true: the system's packages import in it too, though its list above
 * does not hold them. */
gboolean sp_environment_includes_system (const char *venv);

/* SANDPAD_RUN, the installed sandpad-run, or the build tree's. */
char *sp_environment_find_sandpad_run (void);

G_END_DECLS
