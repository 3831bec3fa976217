/* runner-sha256.h: SHA-256 (FIPS 180-4), for the install log.
 *
 * The runner links no crypto library; an install's log names each file by
 * its hash, computed by the runner from the bytes it checked, never taken
 * from what pip printed. */
#pragma once

#include <stddef.h>
#include <stdint.h>

typedef struct
{
  uint32_t h[8];
  uint64_t bytes;
  uint8_t block[64];
  size_t fill;
} RunnerSha256;

void runner_sha256_init (RunnerSha256 *ctx);
void runner_sha256_update (RunnerSha256 *ctx, const void *data, size_t len);
/* Writes 64 hex digits and a NUL into hex. */
void runner_sha256_hex (RunnerSha256 *ctx, char hex[65]);
