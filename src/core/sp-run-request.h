/* sp-run-request.h: what to run and under which limits. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _SpRunRequest SpRunRequest;

#define SP_TYPE_RUN_REQUEST (sp_run_request_get_type ())
GType sp_run_request_get_type (void) G_GNUC_CONST;

SpRunRequest *sp_run_request_new (const char *language, const char *code);
SpRunRequest *sp_run_request_ref (SpRunRequest *self);
void sp_run_request_unref (SpRunRequest *self);

void sp_run_request_set_name (SpRunRequest *self, const char *name);
void sp_run_request_set_stdin (SpRunRequest *self, const char *text);
void sp_run_request_set_stdin_open (SpRunRequest *self, gboolean open);
void sp_run_request_set_timeout_ms (SpRunRequest *self, gint64 timeout_ms);
void sp_run_request_set_memory_mib (SpRunRequest *self, gint64 memory_mib);
void sp_run_request_set_output_limit (SpRunRequest *self, gint64 bytes);
void sp_run_request_set_network (SpRunRequest *self, gboolean network);
void sp_run_request_set_cwd (SpRunRequest *self, const char *cwd);
/* Runs in the runner's session of this id (state kept between runs);
 * NULL: a fresh interpreter, as usual. */
void sp_run_request_set_session (SpRunRequest *self, const char *session);
/* The run's environment (a venv for Python, node_modules for JavaScript),
 * absolute; the runner checks it and keeps it read-only to the run. */
void sp_run_request_set_environment (SpRunRequest *self, const char *environment);
const char *sp_run_request_get_environment (SpRunRequest *self);
/* Arguments after the file name (NULL: none). */
void sp_run_request_set_args (SpRunRequest *self, const char *const *args);
/* Adds (or replaces) one variable of the program's environment. */
void sp_run_request_setenv (SpRunRequest *self, const char *name, const char *value);

const char *sp_run_request_get_language (SpRunRequest *self);
const char *sp_run_request_get_code (SpRunRequest *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpRunRequest, sp_run_request_unref)

G_END_DECLS
