/* sp-runner-supervisor-private.h: what tests may change in a supervisor
 * that the app never does. */
#pragma once

#include "sp-runner-supervisor.h"

G_BEGIN_DECLS

/* Microseconds on a monotonic clock, as g_get_monotonic_time(). */
typedef gint64 (*SpSupervisorClock) (gpointer user_data);

/* The clock the restart window is measured on (default
 * g_get_monotonic_time). A test holds time still or moves it on, so the
 * window it checks does not race real restarts on a loaded machine.
 * clock NULL puts the default back; user_data must outlive its use. */
void _sp_runner_supervisor_set_clock (SpRunnerSupervisor *self, SpSupervisorClock clock,
                                      gpointer user_data);

G_END_DECLS
