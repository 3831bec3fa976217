/* runner-event.h: every event about a run leaves as one valid frame.
 *
 * docs/protocol.md promises that every accepted run ends with exactly one
 * exited event and that no frame is longer than SP_PROTO_MAX_FRAME. The
 * runner builds its events within that budget (names escaped once, lists
 * capped, inline data counted), and this is the last line behind it: an
 * event that still cannot be encoded, comes out too long or would not
 * pass the client's strict decoder is repaired here rather than lost, so
 * a client never waits for a run that ended, nor sees one event it
 * cannot read. */
#pragma once

#include <stddef.h>

#include "sp-proto.h"

/* Encodes msg as one frame (with its newline; *len counts it) of at most
 * SP_PROTO_MAX_FRAME bytes before the newline that sp_message_decode()
 * accepts as an event (output events pass by construction and are not
 * decoded again). When the event as given cannot be encoded so, it is
 * repaired, in this order, until it can:
 *
 * - exited: strings that are not valid UTF-8 are escaped (\xNN) and a
 *   program_error the decoder refuses is left out; then the files' inline
 *   base64 is left out; then the file list (files_truncated
 *   set); as a last resort the event becomes end "failed" with an error
 *   saying why, keeping its id, t_ms and cancellation.
 * - started: strings that are not valid UTF-8 are escaped.
 * - anything else about a run: an error event of code "internal" that
 *   carries the run's id.
 * - an error event: its message is escaped.
 *
 * Returns NULL only for an event that names no valid run id and cannot be
 * encoded even after that (a bug in the caller). */
char *runner_event_encode (const SpMessage *msg, size_t *len);

/* Names are bytes; the protocol wants UTF-8 text. Returns raw (NUL
 * terminated) with every byte that is not part of a valid UTF-8
 * character, and every control character, written as \xNN, so the
 * result is valid UTF-8 with no control characters; at most max bytes
 * are kept, a longer result is cut at a character and ends in "…". */
char *runner_escape_name (const char *raw, size_t max);
