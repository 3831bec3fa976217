/* sp-utf8.h: turns arbitrary program output into protocol-safe text.
 *
 * Programs write bytes, not text. Every byte sequence that is not valid
 * UTF-8, and every NUL, becomes U+FFFD, so binary output shows up as
 * replacement characters instead of vanishing or breaking the JSON.
 * A multi-byte character split across two reads is held back and
 * completed by the next read rather than being replaced.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/* Converts in[0..len) to valid UTF-8 without NULs. Returns a malloc'd,
 * NUL-terminated string (length in *out_len). Unless final, an incomplete
 * but so-far-valid sequence at the very end is not converted: *consumed
 * tells how many input bytes were used; the caller keeps the rest
 * (at most 3 bytes) for the next call. */
char *sp_utf8_sanitize (const char *in, size_t len, bool final, size_t *consumed, size_t *out_len);

/* True when s[0..len) is valid UTF-8 with no NUL. */
bool sp_utf8_valid (const char *s, size_t len);
