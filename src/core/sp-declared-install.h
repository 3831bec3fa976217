/* sp-declared-install.h: what Run does before a Python snippet that
 * declares its dependencies (PEP 723, `# /// script`) runs, decided apart
 * from how it is shown, so it is tested without a display.
 *
 * The ones its document's environment lacks are installed first, through
 * the Packages dialog's install request and the user's package settings
 * (sp-declared.h), then it runs. A refusal (the policy's rule, a
 * malformed block) or no environment to install into is an outcome of its
 * own and nothing runs: code that declares a package would only fail on
 * its import. The code is kept after "no environment", for Run Anyway. */
#pragma once

#include <gio/gio.h>

#include "sp-document.h"

G_BEGIN_DECLS

typedef enum
{
  SP_DECLARED_NOTHING_TO_DO,  /* the environment has them all: run */
  SP_DECLARED_INSTALLED,      /* the missing ones went in: run */
  SP_DECLARED_UNREADABLE,     /* a malformed block, an unmet requires-python: reason */
  SP_DECLARED_NO_ENVIRONMENT, /* missing ones (specs) and nowhere to put them */
  SP_DECLARED_REFUSED,        /* the install failed: reason (or NULL), output (pip's) */
  SP_DECLARED_FAILED,         /* sandpad-run could not be started or read: reason */
} SpDeclaredOutcome;

#define SP_TYPE_DECLARED_INSTALL (sp_declared_install_get_type ())
G_DECLARE_FINAL_TYPE (SpDeclaredInstall, sp_declared_install, SP, DECLARED_INSTALL, GObject)

/* document: whose environment (read when the block is listed and again
 * when its specs install; told "environment-changed" after an install);
 * settings: org.sandpad.Sandpad, the install policy. */
SpDeclaredInstall *sp_declared_install_new (SpDocument *document, GSettings *settings);

/* FALSE when code has no PEP 723 block: run it now, nothing was started.
 * Else stops what was going on and starts: "installing" (guint: how many)
 * when specs go in, then "finished" (SpDeclaredOutcome) once. */
gboolean sp_declared_install_start (SpDeclaredInstall *self, const char *code);
/* Between start and finished (or stop). */
gboolean sp_declared_install_get_busy (SpDeclaredInstall *self);
/* Stops the listing or the install (SIGTERM: sandpad-run cancels its
 * step and removes its files); "finished" is not said. FALSE when nothing
 * was going on. */
gboolean sp_declared_install_stop (SpDeclaredInstall *self);

/* The last outcome's details (valid until the next start). */
const char *sp_declared_install_get_reason (SpDeclaredInstall *self);
const char *sp_declared_install_get_output (SpDeclaredInstall *self);
const char *const *sp_declared_install_get_specs (SpDeclaredInstall *self);
/* The code started last, given to the caller to run (NOTHING_TO_DO,
 * INSTALLED, or Run Anyway after NO_ENVIRONMENT); NULL once taken. */
char *sp_declared_install_take_code (SpDeclaredInstall *self);

G_END_DECLS
