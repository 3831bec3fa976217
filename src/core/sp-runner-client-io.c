/* sp-runner-client-io.c: the runner's socket: writes queued and written in
 * order, reads split into frames and decoded, all asynchronous on the main
 * context. */
#define G_LOG_DOMAIN "sp-runner-client"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "sp-runner-client-private.h"

/* After EOF, how long to wait for the exit status, to say how it ended. */
#define EOF_GRACE_MS 250
#define READ_SIZE 65536

/* ---- writing ---- */

static void write_next (SpRunnerClient *self);

static void
write_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpRunnerClient) self = user_data;
  g_autoptr (GError) error = NULL;
  gboolean ok = g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error);

  if (self->phase == CLIENT_CLOSED)
    return;
  if (!ok)
    {
      g_autofree char *why = g_strdup_printf (_ ("Could not write to the runner: %s"),
                                              error->message);
      _sp_runner_client_close_with (self, SP_RUNNER_ERROR_CLOSED, why);
      return;
    }
  self->writing = FALSE;
  g_bytes_unref (g_queue_pop_head (&self->writes));
  write_next (self);
}

static void
write_next (SpRunnerClient *self)
{
  GBytes *bytes = g_queue_peek_head (&self->writes);

  if (self->writing || bytes == NULL || self->stream == NULL)
    return;
  self->writing = TRUE;
  g_output_stream_write_all_async (g_io_stream_get_output_stream (self->stream),
                                   g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                   G_PRIORITY_DEFAULT, self->cancellable, write_done,
                                   g_object_ref (self));
}

/* Queues one encoded line (malloc'd by the protocol library; taken). */
void
_sp_runner_client_send (SpRunnerClient *self, char *line, gsize len)
{
  if (self->phase == CLIENT_CLOSED)
    {
      free (line);
      return;
    }
  g_queue_push_tail (&self->writes, g_bytes_new_with_free_func (line, len, free, line));
  write_next (self);
}

/* ---- reading ---- */

/* Handles every complete frame; FALSE when the client closed meanwhile. */
static gboolean
handle_frames (SpRunnerClient *self)
{
  for (;;)
    {
      const char *frame;
      size_t len;
      SpProtoError perr = { 0 };
      SpMessage msg;
      char id[SP_PROTO_MAX_ID + 1] = "";
      int rc = sp_frame_reader_next (self->reader, &frame, &len, &perr);

      if (rc == 0)
        return TRUE;
      if (rc < 0 || sp_message_decode (frame, len, SP_DIR_EVENT, &msg, &perr, id) != 0)
        {
          /* A well-framed event about one of our runs costs that run
           * only: a program's output once made one undecodable (issue
           * 29), and restarting the runner every window shares would
           * kill every other run and session with it. */
          if (rc > 0 && _sp_runner_client_fail_run (self, id, &perr))
            {
              if (self->phase == CLIENT_CLOSED)
                return FALSE;
              continue;
            }
          /* Anything else is a runner in no state we know: kill it rather
           * than guess. */
          g_autofree char *why = g_strdup_printf (_ ("The runner sent an invalid message (%s): %s"),
                                                  sp_proto_error_code_to_string (perr.code),
                                                  perr.message);
          _sp_runner_client_close_with (self, sp_runner_error_from_proto (perr.code), why);
          return FALSE;
        }
      if (msg.type == SP_MSG_READY)
        _sp_runner_client_handle_ready (self, &msg);
      else
        _sp_runner_client_dispatch (self, &msg);
      sp_message_clear (&msg);
      /* A handler may have stopped us, freeing the reader. */
      if (self->phase == CLIENT_CLOSED)
        return FALSE;
    }
}

static gboolean
eof_timeout_cb (gpointer user_data)
{
  SpRunnerClient *self = user_data;

  self->eof_id = 0;
  _sp_runner_client_close_with (self, SP_RUNNER_ERROR_CLOSED,
                                _ ("The runner closed its connection"));
  return G_SOURCE_REMOVE;
}

static void
read_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpRunnerClient) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result,
                                                               &error);

  if (self->phase == CLIENT_CLOSED)
    return;
  if (bytes == NULL)
    {
      g_autofree char *why = g_strdup_printf (_ ("Could not read from the runner: %s"),
                                              error->message);
      _sp_runner_client_close_with (self, SP_RUNNER_ERROR_CLOSED, why);
      return;
    }
  if (g_bytes_get_size (bytes) == 0)
    {
      /* Usually the runner is exiting: give its status a moment to
       * arrive, it says more than "closed". */
      self->eof_id = g_timeout_add (EOF_GRACE_MS, eof_timeout_cb, self);
      return;
    }
  sp_frame_reader_feed (self->reader, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  if (handle_frames (self))
    _sp_runner_client_read_more (self);
}

void
_sp_runner_client_read_more (SpRunnerClient *self)
{
  /* One read per main loop dispatch, and below the redraw: during a flood
   * the socket is always ready, and at the default priority it kept
   * GTK's frames (G_PRIORITY_HIGH_IDLE + 20) from ever running while
   * input was still dispatched, so the window took keys but painted
   * nothing for seconds (issue 30). Frames first; the runner's outbox
   * holds what we have not read yet. */
  g_input_stream_read_bytes_async (g_io_stream_get_input_stream (self->stream), READ_SIZE,
                                   SP_RUNNER_CLIENT_READ_PRIORITY, self->cancellable, read_done,
                                   g_object_ref (self));
}
