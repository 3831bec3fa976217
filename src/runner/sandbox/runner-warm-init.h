/* runner-warm-init.h: how a warm spare's supervisor and run init become
 * sandpad-warm-init (see runner-warm-child.c and runner-warm-init.c). */
#pragma once

/* argv[1]: what the process is. The init gets the program's pid as argv[2]
 * and how many seat fds it has as argv[3]. */
#define RUNNER_WARM_INIT_ROLE_SUPERVISOR "supervisor"
#define RUNNER_WARM_INIT_ROLE_INIT "init"

/* The init's fds: the socket the warm parent sends the run's plan and five
 * pipes on, and the channel to the spare's program. */
#define RUNNER_WARM_INIT_PARENT_FD 3
#define RUNNER_WARM_INIT_PROGRAM_FD 4
/* The cgroup.procs files of the spare's seat, from this fd on. */
#define RUNNER_WARM_INIT_SEAT_FD 5

/* The largest plan the warm parent sends. */
#define RUNNER_WARM_MAX_PLAN 65536
