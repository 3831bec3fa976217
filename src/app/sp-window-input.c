/* sp-window-input.c: a program that reads its input, as a person sees it.
 *
 * The runner says when the program is blocked reading its stdin (the
 * input_wait event, read from the kernel, never guessed from a prompt and
 * a pause): then the status says it waits, with the time limit standing
 * still, and the input line is highlighted. It never takes the keyboard:
 * a person typing in the editor when the program starts waiting would
 * send the rest of the line to the program on Enter (issue 29). A
 * program that reads without a prompt is seen all the same, and a
 * progress bar or a prompt-like line followed by work is not mistaken for
 * a wait.
 *
 * What the user sends is echoed into the transcript (SP_OUTPUT_INPUT) in
 * its place between the program's output, as a terminal shows it. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <string.h>

#include "sp-window-private.h"

static void
set_waiting (SpWindow *self, gboolean waiting)
{
  sp_exec_panel_set_waiting (self->exec_panel, waiting,
                             g_settings_get_uint (self->settings, "run-timeout-seconds"));
}

static void
on_input_wait (SpRunnerSupervisor *sup, const char *run_id, gboolean waiting, SpWindow *self)
{
  if (self->running && self->run_id != NULL && g_strcmp0 (self->run_id, run_id) == 0)
    set_waiting (self, waiting);
}

void
_sp_window_input_connect (SpWindow *self)
{
  g_signal_connect_object (self->supervisor, "input-wait", G_CALLBACK (on_input_wait), self, 0);
}

void
_sp_window_input_sent (SpWindow *self, const char *line)
{
  g_autofree char *echo = g_strconcat (line, "\n", NULL);

  if (self->output != NULL)
    sp_output_model_append (self->output, SP_OUTPUT_INPUT, echo);
  /* The runner says so too, once it gave the line to the program; the
   * status need not wait for it. */
  set_waiting (self, FALSE);
}

void
_sp_window_input_reset (SpWindow *self)
{
  set_waiting (self, FALSE);
}
