/* sp-runner-channel.c: the runner's socket; see the header. */
#define G_LOG_DOMAIN "sp-runner-client"

#include "config.h"

#include <glib/gi18n-lib.h>

#include "sp-frame.h"
#include "sp-runner-channel.h"
#include "sp-runner-error-private.h"

#define READ_SIZE 65536

struct _SpRunnerChannel
{
  GObject parent_instance;

  GIOStream *stream;
  GCancellable *cancellable; /* every read and write */
  SpFrameReader *reader;
  GQueue writes; /* GBytes, written in order, one at a time */
  gboolean writing;
  gboolean closed;

  const SpRunnerChannelHandlers *handlers;
  gpointer data;
};

G_DEFINE_FINAL_TYPE (SpRunnerChannel, sp_runner_channel, G_TYPE_OBJECT)

/* ---- writing ---- */

static void write_next (SpRunnerChannel *self);

static void
write_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpRunnerChannel) self = user_data;
  g_autoptr (GError) error = NULL;
  gboolean ok = g_output_stream_write_all_finish (G_OUTPUT_STREAM (object), result, NULL, &error);

  if (self->closed)
    return;
  if (!ok)
    {
      g_autofree char *why = g_strdup_printf (_ ("Could not write to the runner: %s"),
                                              error->message);
      self->handlers->failed (SP_RUNNER_ERROR_CLOSED, why, self->data);
      return;
    }
  self->writing = FALSE;
  g_bytes_unref (g_queue_pop_head (&self->writes));
  write_next (self);
}

static void
write_next (SpRunnerChannel *self)
{
  GBytes *bytes = g_queue_peek_head (&self->writes);

  if (self->writing || bytes == NULL)
    return;
  self->writing = TRUE;
  g_output_stream_write_all_async (g_io_stream_get_output_stream (self->stream),
                                   g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes),
                                   G_PRIORITY_DEFAULT, self->cancellable, write_done,
                                   g_object_ref (self));
}

void
sp_runner_channel_send (SpRunnerChannel *self, char *line, gsize len)
{
  g_return_if_fail (SP_IS_RUNNER_CHANNEL (self));
  if (self->closed)
    {
      free (line);
      return;
    }
  g_queue_push_tail (&self->writes, g_bytes_new_with_free_func (line, len, free, line));
  write_next (self);
}

/* ---- reading ---- */

/* Handles every complete frame; FALSE when the channel closed meanwhile. */
static gboolean
handle_frames (SpRunnerChannel *self)
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
          /* A well-framed event about one of the owner's runs costs that
           * run only: a program's output once made one undecodable (issue
           * 29), and restarting the runner every window shares would
           * kill every other run and session with it. */
          if (rc > 0 && self->handlers->bad_event (id, &perr, self->data))
            {
              if (self->closed)
                return FALSE;
              continue;
            }
          /* Anything else is a runner in no state we know: the owner
           * kills it rather than guess. */
          g_autofree char *why = g_strdup_printf (_ ("The runner sent an invalid message (%s): %s"),
                                                  sp_proto_error_code_to_string (perr.code),
                                                  perr.message);
          self->handlers->failed (sp_runner_error_from_proto (perr.code), why, self->data);
          return FALSE;
        }
      self->handlers->message (&msg, self->data);
      sp_message_clear (&msg);
      /* A handler may have closed us, freeing the reader. */
      if (self->closed)
        return FALSE;
    }
}

static void read_more (SpRunnerChannel *self);

static void
read_done (GObject *object, GAsyncResult *result, gpointer user_data)
{
  g_autoptr (SpRunnerChannel) self = user_data;
  g_autoptr (GError) error = NULL;
  g_autoptr (GBytes) bytes = g_input_stream_read_bytes_finish (G_INPUT_STREAM (object), result,
                                                               &error);

  if (self->closed)
    return;
  if (bytes == NULL)
    {
      g_autofree char *why = g_strdup_printf (_ ("Could not read from the runner: %s"),
                                              error->message);
      self->handlers->failed (SP_RUNNER_ERROR_CLOSED, why, self->data);
      return;
    }
  if (g_bytes_get_size (bytes) == 0)
    {
      self->handlers->eof (self->data);
      return;
    }
  sp_frame_reader_feed (self->reader, g_bytes_get_data (bytes, NULL), g_bytes_get_size (bytes));
  if (handle_frames (self))
    read_more (self);
}

static void
read_more (SpRunnerChannel *self)
{
  /* One read per main loop dispatch, and below the redraw: during a flood
   * the socket is always ready, and at the default priority it kept
   * GTK's frames (G_PRIORITY_HIGH_IDLE + 20) from ever running while
   * input was still dispatched, so the window took keys but painted
   * nothing for seconds (issue 30). Frames first; the runner's outbox
   * holds what we have not read yet. */
  g_input_stream_read_bytes_async (g_io_stream_get_input_stream (self->stream), READ_SIZE,
                                   SP_RUNNER_CHANNEL_READ_PRIORITY, self->cancellable, read_done,
                                   g_object_ref (self));
}

void
sp_runner_channel_start (SpRunnerChannel *self)
{
  g_return_if_fail (SP_IS_RUNNER_CHANNEL (self));
  if (!self->closed)
    read_more (self);
}

void
sp_runner_channel_close (SpRunnerChannel *self)
{
  g_return_if_fail (SP_IS_RUNNER_CHANNEL (self));
  if (self->closed)
    return;
  self->closed = TRUE;
  /* Pending reads and writes finish cancelled, later. */
  g_cancellable_cancel (self->cancellable);
  g_io_stream_close (self->stream, NULL, NULL);
  g_clear_pointer (&self->reader, sp_frame_reader_free);
  g_queue_clear_full (&self->writes, (GDestroyNotify) g_bytes_unref);
  self->writing = FALSE;
}

SpRunnerChannel *
sp_runner_channel_new (GIOStream *stream, const SpRunnerChannelHandlers *handlers, gpointer data)
{
  SpRunnerChannel *self;

  g_return_val_if_fail (G_IS_IO_STREAM (stream), NULL);
  g_return_val_if_fail (handlers != NULL, NULL);
  self = g_object_new (SP_TYPE_RUNNER_CHANNEL, NULL);
  self->stream = stream;
  self->handlers = handlers;
  self->data = data;
  return self;
}

static void
sp_runner_channel_finalize (GObject *object)
{
  SpRunnerChannel *self = SP_RUNNER_CHANNEL (object);

  g_clear_pointer (&self->reader, sp_frame_reader_free);
  g_queue_clear_full (&self->writes, (GDestroyNotify) g_bytes_unref);
  g_clear_object (&self->stream);
  g_clear_object (&self->cancellable);
  G_OBJECT_CLASS (sp_runner_channel_parent_class)->finalize (object);
}

static void
sp_runner_channel_class_init (SpRunnerChannelClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = sp_runner_channel_finalize;
}

static void
sp_runner_channel_init (SpRunnerChannel *self)
{
  self->cancellable = g_cancellable_new ();
  self->reader = sp_frame_reader_new (SP_PROTO_MAX_FRAME);
  g_queue_init (&self->writes);
}
