/* sp-declared.h: a Python snippet's declared dependencies (PEP 723
 * inline metadata, `# /// script` ... `dependencies = [...]`) before Run.
 *
 * The block is read by one parser, the runner's (runner-pep723.c), through
 * `sandpad-run --install --declared - --list`: it names what the snippet
 * declares and the environment lacks. Installs go through the same
 * `sandpad-run --install` request as the Packages dialog, with the
 * user's package settings (source, allow and block lists, pins). Only the
 * cheap question "is there a block at all" is answered here, so a snippet
 * without one never waits for a process. */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* A line that is exactly "# /// script" (PEP 723's opening line, trailing
 * spaces aside): the snippet may declare something, ask the runner. */
gboolean sp_declared_has_block (const char *code);

/* The specs code declares that environment (a venv; NULL: none chosen,
 * then every declared spec) does not have yet, as the runner reads the
 * block; an empty array when there are none. A malformed block or an
 * unmet requires-python is an error with the runner's words (its line). */
void sp_declared_list_async (const char *code, const char *environment, GCancellable *cancellable,
                             GAsyncReadyCallback callback, gpointer user_data);
GStrv sp_declared_list_finish (GAsyncResult *result, GError **error);

/* `sandpad-run --install --environment ENV` and the install settings
 * (index, find-links, allow, block, require pins) of settings
 * (org.sandpad.Sandpad), then "--": the caller adds the specs and the
 * NULL. The Packages dialog and Run's declared dependencies both use it,
 * so one policy holds for both. */
GPtrArray *sp_declared_install_argv (GSettings *settings, const char *environment);

G_END_DECLS
