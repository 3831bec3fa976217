/* sp-sandbox-policy.h: the runner's sandbox layers, in words a person reads.
 *
 * The policy card must not promise more than the runner applied. This
 * reads the `sandbox` object of a ready or started event (a mode and a
 * list of layer names, docs/protocol.md) and says what a run may do, and,
 * first and plainly, what protection is missing. Layer names are matched
 * by prefix ("seccomp" and "seccomp:allowlist" alike); names it does not
 * know are listed as they are, never dropped. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _SpSandboxPolicy SpSandboxPolicy;

GType sp_sandbox_policy_get_type (void) G_GNUC_CONST;
#define SP_TYPE_SANDBOX_POLICY (sp_sandbox_policy_get_type ())

/* mode and layers as the runner reported them (either may be NULL). */
SpSandboxPolicy *sp_sandbox_policy_new (const char *mode, const char *const *layers);
SpSandboxPolicy *sp_sandbox_policy_ref (SpSandboxPolicy *self);
void sp_sandbox_policy_unref (SpSandboxPolicy *self);

/* A layer the mode needs is missing, or the mode itself is the fallback. */
gboolean sp_sandbox_policy_is_reduced (SpSandboxPolicy *self);
/* One line: "Strong isolation" or "Reduced isolation: ...". */
const char *sp_sandbox_policy_get_title (SpSandboxPolicy *self);
/* What is missing and what that lets a program do, one sentence each;
 * empty when nothing is. */
const char *const *sp_sandbox_policy_get_warnings (SpSandboxPolicy *self);
/* What holds, one sentence each. */
const char *const *sp_sandbox_policy_get_facts (SpSandboxPolicy *self);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpSandboxPolicy, sp_sandbox_policy_unref)

G_END_DECLS
