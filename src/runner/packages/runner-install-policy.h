/* runner-install-policy.h: the install policy's rules, plain functions
 * over names, specs and file names (runner-install-policy.c): what may be
 * asked for, and whether what the download step brought may go in. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct
{
  char **allow;      /* fnmatch patterns on normalized names (PEP 503);
                      * NULL or empty: every name may come in */
  char **block;      /* patterns refused whatever allow says */
  bool require_pins; /* every file must be requested as name==version */
  int64_t max_bytes; /* all files of one install together; 0: the default */
  bool allow_sdist;  /* accept source distributions (their setup.py runs) */
} RunnerInstallPolicy;

#define RUNNER_INSTALL_DEFAULT_MAX_BYTES (200 * INT64_C (1024) * 1024)

typedef struct
{
  char *name; /* normalized */
  char *version;
  char *file; /* the file's name */
  char sha256[65];
  int64_t size;
  bool sdist;
} RunnerInstallFile;

/* PEP 503: lower case, runs of "-", "_", "." as one "-". malloc'd. */
char *runner_install_normalize (const char *name);

/* Splits a requirement spec into a normalized name and, for name==version,
 * the pin (else *pin NULL). Refuses options ("-e", "--index-url"), paths
 * and URLs: only names from the index or find-links come in. */
int runner_install_parse_spec (const char *spec, char **name, char **pin, char *msg,
                               size_t msg_len);

/* Reads name and version from a distribution's file name: a wheel
 * (name-version(-build)?-py-abi-plat.whl) or an sdist (name-version.tar.gz,
 * .zip). Returns -1 for anything else. */
int runner_install_parse_file (const char *file, RunnerInstallFile *out);

/* The policy's verdict on one requested name (before any download): 0, or
 * -1 with the rule in msg. */
int runner_install_check_name (const RunnerInstallPolicy *policy, const char *name, char *msg,
                               size_t msg_len);

/* The verdict on what the download step brought: every file against the
 * lists, the pins of the request (names and pins parallel, n entries),
 * the kinds and the size cap. */
int runner_install_check_files (const RunnerInstallPolicy *policy, char *const *names,
                                char *const *pins, size_t n, const RunnerInstallFile *files,
                                size_t n_files, char *msg, size_t msg_len);

void runner_install_file_clear (RunnerInstallFile *file);
