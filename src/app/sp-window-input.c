/* sp-window-input.c: a program that reads its input, as a person sees it.
 *
 * The protocol does not say when a program blocks on stdin, so the window
 * reads the signs a person would: output that ends in an open line (a
 * prompt such as input("name? ") or bash's read -p prints), then quiet.
 * After QUIET_MS of that the status says the program waits, with the time
 * limit, which keeps counting, and the input line is highlighted; it never
 * takes the keyboard, since a guess must not send what a person was
 * typing in the editor to the program. An
 * open line rewritten with a carriage return is a progress bar, not a
 * prompt. A program that reads without a prompt is not detected; its input
 * line is there all the same while it runs.
 *
 * What the user sends is echoed into the transcript (SP_OUTPUT_INPUT) in
 * its place between the program's output, as a terminal shows it. */
#define G_LOG_DOMAIN "sp-window"

#include "config.h"

#include <string.h>

#include "sp-window-private.h"

#define QUIET_MS 300

static void
set_waiting (SpWindow *self, gboolean waiting)
{
  /* Every chunk of a flood says "not waiting": the time limit is read only
   * when it is shown (a settings lookup per chunk was a seventh of the
   * window's work while output poured in, issue 30). */
  sp_exec_panel_set_waiting (self->exec_panel, waiting,
                             waiting ? g_settings_get_uint (self->settings, "run-timeout-seconds")
                                     : 0);
}

static gboolean
on_quiet (gpointer user_data)
{
  SpWindow *self = user_data;

  self->quiet_id = 0;
  if (self->running && self->prompt_open)
    set_waiting (self, TRUE);
  return G_SOURCE_REMOVE;
}

/* Does the text leave an open line that looks like a prompt? */
static gboolean
ends_in_prompt (const char *text)
{
  const char *line = strrchr (text, '\n');

  line = line != NULL ? line + 1 : text;
  return line[0] != '\0' && strchr (line, '\r') == NULL;
}

void
_sp_window_input_saw_output (SpWindow *self, const char *text)
{
  if (text == NULL || text[0] == '\0')
    return;
  self->prompt_open = ends_in_prompt (text);
  set_waiting (self, FALSE);
  g_clear_handle_id (&self->quiet_id, g_source_remove);
  if (self->prompt_open && self->running)
    self->quiet_id = g_timeout_add (QUIET_MS, on_quiet, self);
}

void
_sp_window_input_sent (SpWindow *self, const char *line)
{
  g_autofree char *echo = g_strconcat (line, "\n", NULL);

  if (self->output != NULL)
    sp_output_model_append (self->output, SP_OUTPUT_INPUT, echo);
  self->prompt_open = FALSE;
  g_clear_handle_id (&self->quiet_id, g_source_remove);
  set_waiting (self, FALSE);
}

void
_sp_window_input_reset (SpWindow *self)
{
  self->prompt_open = FALSE;
  g_clear_handle_id (&self->quiet_id, g_source_remove);
  set_waiting (self, FALSE);
}
