/* sp-runner-banner.h: the strip that says the shared runner has failed,
 * in the runner's own words, and offers Retry. */
#pragma once

#include <adwaita.h>

#include "sp-runner-supervisor.h"

G_BEGIN_DECLS

#define SP_TYPE_RUNNER_BANNER (sp_runner_banner_get_type ())
G_DECLARE_FINAL_TYPE (SpRunnerBanner, sp_runner_banner, SP, RUNNER_BANNER, AdwBin)

/* Follows supervisor's state from now on. */
void sp_runner_banner_set_supervisor (SpRunnerBanner *self, SpRunnerSupervisor *supervisor);
/* Starts the runner afresh if it has failed or stopped; never cuts short
 * one that is starting or serving runs. */
void sp_runner_banner_retry (SpRunnerBanner *self);

G_END_DECLS
