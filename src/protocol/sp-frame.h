/* sp-frame.h: splits a byte stream into newline-terminated frames.
 *
 * Bytes arrive in arbitrary pieces (partial reads, many frames per read).
 * The reader hands back one complete frame at a time, enforces
 * SP_PROTO_MAX_FRAME without buffering the excess, and rejects frames
 * that contain NUL bytes, since a NUL would truncate the frame for any
 * C-string consumer and hide the rest from the JSON parser.
 */
#pragma once

#include "sp-proto.h"

typedef struct SpFrameReader SpFrameReader;

SpFrameReader *sp_frame_reader_new (size_t max_frame);
void sp_frame_reader_free (SpFrameReader *reader);

/* Appends bytes read from the peer. Never fails: oversize input is
 * discarded as it arrives, not stored. */
void sp_frame_reader_feed (SpFrameReader *reader, const char *data, size_t len);

/* Returns 1 and points *frame and *len at the next complete frame (valid until
 * the next call; a trailing '\r' is removed), 0 when no complete frame is
 * buffered, -1 with *err set for a frame that was too long or held a NUL
 * (the bad frame is dropped; the next call goes on with the next one). */
int sp_frame_reader_next (SpFrameReader *reader, const char **frame, size_t *len,
                          SpProtoError *err);

/* Bytes of an unfinished frame still buffered (useful at EOF). */
size_t sp_frame_reader_pending (const SpFrameReader *reader);
