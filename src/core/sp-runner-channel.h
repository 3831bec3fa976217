/* sp-runner-channel.h: the runner's socket, as one line-framed channel:
 * writes queued and written in order, reads split into frames and
 * decoded, all asynchronous on the main context. It knows nothing of the
 * client that owns it: what it reads and how it ends go to the handlers
 * it was given. */
#pragma once

#include <gio/gio.h>

#include "sp-proto.h"
#include "sp-runner-error.h"

G_BEGIN_DECLS

/* The priority the runner's socket is read at: below a window's redraw
 * (GDK_PRIORITY_REDRAW, G_PRIORITY_HIGH_IDLE + 20, which core cannot
 * name), so output that is always ready never keeps frames from being
 * painted; above the default idle, so it is not left behind idle work. */
#define SP_RUNNER_CHANNEL_READ_PRIORITY (G_PRIORITY_HIGH_IDLE + 30)

#define SP_TYPE_RUNNER_CHANNEL (sp_runner_channel_get_type ())
G_DECLARE_FINAL_TYPE (SpRunnerChannel, sp_runner_channel, SP, RUNNER_CHANNEL, GObject)

typedef struct
{
  /* An event, decoded (the handler may take what it owns). */
  void (*message) (SpMessage *msg, gpointer data);
  /* A well-framed event that did not decode, id the run it names ("" if
   * none could be read): TRUE when the owner took it as that run's
   * failure alone; FALSE closes the channel as failed. */
  gboolean (*bad_event) (const char *id, const SpProtoError *perr, gpointer data);
  /* Reading or writing failed, or the runner sent what cannot be framed:
   * nothing more is read. */
  void (*failed) (SpRunnerError code, const char *message, gpointer data);
  /* The runner closed its end. */
  void (*eof) (gpointer data);
} SpRunnerChannelHandlers;

/* Takes stream; handlers and data outlive the channel, or it is closed
 * first. Nothing is read before sp_runner_channel_start(). */
SpRunnerChannel *sp_runner_channel_new (GIOStream *stream, const SpRunnerChannelHandlers *handlers,
                                        gpointer data);
void sp_runner_channel_start (SpRunnerChannel *self);
/* Queues one encoded line (malloc'd by the protocol library; taken). */
void sp_runner_channel_send (SpRunnerChannel *self, char *line, gsize len);
/* Stops for good: pending reads and writes finish cancelled, the stream
 * is closed, no handler is called after this. */
void sp_runner_channel_close (SpRunnerChannel *self);

G_END_DECLS
