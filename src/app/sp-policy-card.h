/* sp-policy-card.h: the card above a window's output that says what a
 * run may do: what the sandbox holds and lacks, from the layers the runner
 * reported (SpSandboxPolicy: missing protections first, in the warning
 * style), and the limits line (network, time, memory, session, how the
 * last run started, the environment). */
#pragma once

#include <adwaita.h>

#include "sp-document.h"
#include "sp-run-controller.h"
#include "sp-runner-supervisor.h"

G_BEGIN_DECLS

#define SP_TYPE_POLICY_CARD (sp_policy_card_get_type ())
G_DECLARE_FINAL_TYPE (SpPolicyCard, sp_policy_card, SP, POLICY_CARD, AdwBin)

/* Binds the card to what it says, once: the runner's state and its
 * sandbox, the window's runs (the run shown, its session), its document's
 * environment and the settings (org.sandpad.Sandpad: network, limits).
 * From then on the card follows them by itself. */
void sp_policy_card_bind (SpPolicyCard *self, SpRunnerSupervisor *supervisor, SpRunController *runs,
                          SpDocument *document, GSettings *settings);
/* The card shows a missing protection (its warning style is on). */
gboolean sp_policy_card_get_reduced (SpPolicyCard *self);
/* All the card's text, title first (for tests and copying). */
char *sp_policy_card_get_text (SpPolicyCard *self);

G_END_DECLS
