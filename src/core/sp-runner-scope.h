/* sp-runner-scope.h: a delegated cgroup for the app's runner, from the
 * user's systemd.
 *
 * Only a cgroup counts what the kernel holds for a run (socket and pipe
 * queues, page tables). An ordinary user may make cgroups only in a
 * subtree delegated to them; a systemd user manager gives one: a
 * transient scope with Delegate=yes, asked for over D-Bus
 * (StartTransientUnit) with the runner's pid. The runner then finds its
 * own group writable, with memory and pids, and gives each run a group of
 * its own (src/runner/sandbox/runner-cgroup.h: it looks again at its next
 * run, as the move comes after it starts).
 *
 * Asynchronous, never blocking the caller; where there is no session bus
 * or no user manager on it (Flatpak, a plain X session, a CI machine), or
 * it refuses, the request fails with the reason and the runner keeps the
 * other memory layers. Never starts a bus (no autolaunch). */
#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The scope's unit name for pid: "sandpad-runner-PID.scope". */
char *sp_runner_scope_unit_name (GPid pid);

void sp_runner_scope_request_async (GPid pid, GCancellable *cancellable,
                                    GAsyncReadyCallback callback, gpointer user_data);

/* TRUE once systemd took the request (its job then moves pid). */
gboolean sp_runner_scope_request_finish (GAsyncResult *result, GError **error);

G_END_DECLS
