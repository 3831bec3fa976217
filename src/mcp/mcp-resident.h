/* mcp-resident.h: named sessions through the user's resident runner
 * (issue 42, E2B's reconnect).
 *
 * With --resident-sessions, an execute_code call that names a session_id
 * runs in the user's resident runner (sandpad-runner --listen, the one
 * sandpad-run uses, started if there is none) instead of this server's
 * own engine. The session lives there, named by its id, so it outlives
 * this server: another sandpad-mcp of the same user (another assistant's
 * client, or the same one after a restart) continues it by naming the
 * same id. The runner is reached over its socket, speaking the protocol
 * with events for output (a client that is not sandpad-run); the call's
 * working directory and environment go as fds, so the runner uses the
 * directories this server checked. Everything else of a call (limits,
 * env, stdin, the inline files of its result) travels in the request. */
#pragma once

#include "runner-engine.h"
#include "runner-loop.h"
#include "sp-proto.h"

typedef struct McpResident McpResident;

/* Each event of the runner about a run this connection sent, as the
 * engine's sink would get it. When the connection is lost, every run not
 * yet exited gets an exited event with end "failed" and why. */
typedef void (*McpResidentEvent) (void *data, const SpMessage *msg);

McpResident *mcp_resident_new (RunnerLoop *loop, McpResidentEvent on_event, void *data);
void mcp_resident_free (McpResident *resident);

/* Sends run req to the resident runner, connecting (and starting it)
 * first if need be. 0, or -1 with *err set when it could not be sent
 * (nothing ran). */
int mcp_resident_submit (McpResident *resident, const SpRun *req, SpProtoError *err);

/* A cancel, a release or a session request for the runner, when it is
 * connected; false when it could not be sent. */
bool mcp_resident_send (McpResident *resident, const SpMessage *msg);

/* Whether run_id is a run this connection sent and has not seen exit. */
bool mcp_resident_has_run (const McpResident *resident, const char *run_id);
