/* mcp-server.h: sandpad-mcp, the runner's engine behind the Model Context
 * Protocol.
 *
 * An assistant's client starts sandpad-mcp and speaks JSON-RPC 2.0 to it,
 * one message per line on stdin/stdout (the MCP stdio transport). Every
 * tools/call that runs code becomes one run of the same engine that
 * sandpad-runner and sandpad-run use, so there is no second way of running
 * code and no second sandbox. The client is not trusted: every line is
 * capped, strictly parsed and answered, and nothing it sends stops the
 * server from serving the next line. */
#pragma once

#include <jansson.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>

#include "mcp-resident.h"
#include "runner-engine.h"
#include "runner-outbox.h"
#include "runner-install.h"
#include "runner-base.h"

/* The protocol revisions we speak, newest first. */
#define MCP_PROTOCOL_LATEST "2025-11-25"
#define MCP_PROTOCOL_OLDER "2025-06-18"

/* How often a server with runs going looks for Stop requests. */
#define MCP_CANCEL_POLL_MS 200

/* JSON-RPC 2.0 error codes. */
#define MCP_PARSE_ERROR (-32700)
#define MCP_INVALID_REQUEST (-32600)
#define MCP_METHOD_NOT_FOUND (-32601)
#define MCP_INVALID_PARAMS (-32602)

/* execute_command's filters (mcp-command.c): policy, not the boundary. */
typedef struct
{
  regex_t *builtin, *block, *allow;
  size_t n_builtin, n_block, n_allow;
} McpFilters;

/* The run journal (mcp-journal.c). */
typedef struct
{
  char *dir;         /* NULL: no state directory, no journal */
  int64_t max_bytes; /* runs.jsonl rotates past this; 0: off */
  bool warned;
} McpJournal;

/* What the command line fixed for every run. */
typedef struct
{
  bool allow_network;
  const char *workspace; /* execute_command's directory; NULL: no such tool */
  char **env;            /* NAME=VALUE for every run (--env), or NULL */
  char **context_paths;  /* read-only for every run (canonical), or NULL */
  McpFilters filters;
  const char *journal_dir; /* NULL: under $XDG_STATE_HOME */
  int64_t journal_max;     /* bytes of runs.jsonl before it rotates; 0: no journal */
  int64_t disk_limit;      /* the runs' disk cap: input files must fit it */
  const char *environment; /* the workspace's venv (canonical): Python runs use
                            * it, install_packages installs into it; NULL: none */
  const char *index_url;   /* install_packages' sources and policy */
  char **find_links;
  RunnerInstallPolicy install_policy;
  bool no_environment;
  char *environment_owned;
  bool resident_sessions; /* execute_code's sessions in the resident runner
                           * (mcp-resident.h) */
} McpOptions;

typedef struct McpInstallCall McpInstallCall;

/* Output of one stream, bounded: the first and the last bytes are kept,
 * since a program's start says what it did and its end (a traceback)
 * why it stopped. */
typedef struct
{
  Buf head;
  Buf tail;
  int64_t seen; /* bytes received from the engine */
  /* Past the run's output limit the runner left out the middle
   * (output_omitted): how much, and the run's file with all of it. */
  int64_t omitted;
  int64_t marker_bytes; /* its markers, in head and tail but not in seen */
  char file[64];        /* "" : none kept */
  bool file_cut;
} McpCapture;

typedef struct McpCall McpCall;
typedef struct McpSession McpSession;
typedef struct McpCodeExec McpCodeExec;
typedef struct McpReply McpReply;
struct McpCall
{
  McpCall *next;
  json_t *request_id;     /* the JSON-RPC id to answer */
  json_t *progress_token; /* NULL: the client asked for no progress */
  int64_t progress;       /* output bytes reported so far */
  int64_t progress_sent;  /* bytes of output sent as progress messages */
  char run_id[32];
  RunnerInputFile *input_files; /* execute_code's files, checked and decoded: the
                                 * engine writes them as the run starts */
  size_t n_input_files;
  char *workspace_dir;   /* the run's cwd when it is in the workspace (it stays) */
  McpCapture out[2];     /* stdout, stderr */
  SpSandboxInfo sandbox; /* from "started"; mode NULL until then */
  int64_t timeout_ms;    /* the limits in force, from "started" */
  int64_t memory_mib;
  int64_t output_limit;
  char *diff;       /* edit_and_execute: the edit, as a unified diff */
  const char *tool; /* for the journal: which tool, and what it was asked */
  json_t *input;
  int64_t live_bytes;                /* output written to live.jsonl so far (mcp-activity.c) */
  char session[SP_PROTO_MAX_ID + 1]; /* execute_code's session_id, or "" */
  bool session_new;                  /* from "started": the run started the session afresh */
  int64_t execution_count;           /* the call's number in its session's interpreter */
  char language[16];                 /* the run's language */
  /* What its run's exited event becomes (its tool's row, mcp-tool.h). */
  json_t *(*on_exited) (const McpReply *reply, McpCall *call, const SpExited *exited);
  bool resident;     /* the run is the resident runner's (mcp-resident.h) */
  json_t *installed; /* name==version installed for the snippet's PEP 723 metadata */
  /* code_execution (mcp-code-execution.c) */
  McpCodeExec *cx;                   /* the call's pipeline: scan, install, run; or NULL */
  void (*cx_free) (McpCodeExec *cx); /* what frees cx (set with it) */
  bool internal;                     /* the scan's own run: no answer, journal or activity */
  bool drop_output;                  /* capture_output false: the streams are not kept */
  int64_t started_t_ms;              /* "started"'s t_ms, on the runner's clock */
  json_t *displays;                  /* the run's display events as {data, stdout_offset}, capped */
  int64_t displays_bytes;            /* what they hold */
  bool displays_truncated;
};

/* Keeps a display event for the call's result (mcp-result.c). */
void mcp_result_add_display (McpCall *call, const SpDisplay *display);

/* What the server hands up to the tools (one table, given by the caller of
 * mcp_server_run: mcp_tools_handlers), so that the server, at the bottom of
 * src/mcp/, calls none of the files above it. */
typedef struct McpServer McpServer;

/* Where one tools/call's answer goes: the server that took it, the call's
 * JSON-RPC id and its progress token (NULL: none was asked for). A tool
 * answers through it (mcp_reply), once. */
struct McpReply
{
  McpServer *server;
  json_t *id;
  json_t *progress_token;
};
void mcp_reply (const McpReply *reply, json_t *result); /* steals result */

typedef struct
{
  json_t *(*tools_list) (const McpOptions *options);
  void (*tools_call) (McpServer *server, json_t *id, json_t *params);
  /* An install's event: true when it was one (mcp-install.c). */
  bool (*install_event) (McpServer *server, const SpMessage *msg);
  void (*install_poll) (McpServer *server);
  void (*install_free_all) (McpServer *server);
  void (*session_started) (McpServer *server, McpCall *call, const char *language,
                           bool session_new);
  void (*session_ended) (McpServer *server, const SpSessionRef *ref);
  void (*sessions_free_all) (McpServer *server);
} McpHandlers;

struct McpServer
{
  RunnerEngine *engine;
  RunnerLanguages *langs;
  const McpOptions *options;
  const McpHandlers *handlers;
  int in_fd;
  RunnerWatch *in_watch;
  struct SpFrameReader *reader;
  RunnerOutbox out; /* answers and notifications not yet written */
  bool stopping;
  bool input_closed; /* EOF on stdin: serve what is running, then exit */
  char *protocol;    /* the negotiated revision, once initialized */
  McpCall *calls;    /* calls whose run has not exited */
  char **to_release; /* run ids to release once the engine returns */
  size_t n_release;
  uint64_t next_run;
  McpJournal journal;
  McpInstallCall *installs; /* install_packages calls not yet answered */
  McpCall *pending_code;    /* code_execution calls waiting for their scan */
  McpSession *sessions;     /* what list_sessions shows (mcp-sessions.c) */
  McpResident *resident;    /* --resident-sessions: where sessions run; else NULL */
};

int mcp_server_run (const RunnerConfig *config, RunnerLanguages *langs, const McpOptions *options,
                    const McpHandlers *handlers, int in_fd, int out_fd);

/* The tools' answers to the server (mcp-tools.c). */
extern const McpHandlers mcp_tools_handlers;

/* mcp-server.c */
void mcp_call_free (McpCall *call); /* its pipeline too, through cx_free */
/* Cancels run run_id, wherever it runs (the engine, the resident runner). */
void mcp_server_cancel (McpServer *server, const char *run_id);
void mcp_send (McpServer *server, json_t *message);                   /* steals message */
void mcp_send_result (McpServer *server, json_t *id, json_t *result); /* steals result */
void mcp_send_error (McpServer *server, json_t *id, int code, const char *fmt, ...)
  __attribute__ ((format (printf, 4, 5)));

/* mcp-capture.c */
void mcp_capture_append (McpCapture *cap, const char *data, size_t len);
/* The runner left out the middle here: a marker in its place, and the
 * totals the result reports. */
void mcp_capture_omitted (McpCapture *cap, const SpOutputOmitted *omitted);
/* The kept text, with a marker where the middle was cut; *cut is the
 * number of bytes not kept. Valid UTF-8 when the input was. */
char *mcp_capture_text (const McpCapture *cap, int64_t *cut);
void mcp_capture_clear (McpCapture *cap);

/* mcp-files.c: execute_code's input files, checked, decoded and within
 * the disk cap into call->input (the engine writes them into the run's
 * directory, or its session's, as the run starts); and the run's files
 * out as embedded resources (or links to workspace files past the caps)
 * appended to content. */
int mcp_files_input (const McpOptions *options, McpCall *call, json_t *files, SpProtoError *err);
bool mcp_files_inline (const SpFileInfo *file);
void mcp_files_resources (const McpCall *call, const SpExited *exited, json_t *content);

/* mcp-sessions.c: list_sessions, restart_session, close_session (their
 * rows are in mcp-tool.h), and each session call's execution count, from
 * the engine's events. */
void mcp_sessions_started (McpServer *server, McpCall *call, const char *language,
                           bool session_new);
void mcp_sessions_ended (McpServer *server, const SpSessionRef *ref);
void mcp_sessions_free_all (McpServer *server);

/* mcp-command.c */
int mcp_filters_init (McpFilters *filters);
/* Adds a --block-command (allow false) or --allow-command pattern; -1
 * with the regex error in error[] when it does not compile. */
int mcp_filters_add (McpFilters *filters, bool allow, const char *pattern, char *error,
                     size_t error_len);
void mcp_filters_clear (McpFilters *filters);
/* NULL when the command may run, else why not (malloc'd). */
char *mcp_filters_check (const McpFilters *filters, const char *command);

/* mcp-diff.c: a unified diff (3 lines of context) of before -> after. */
char *mcp_diff (const char *path, const char *before, const char *after);

/* mcp-edit.c: applies edits ([{old_text, new_text}]) to PATH beneath
 * workspace and replaces it atomically; on success *new_text is the new
 * content and *diff the change. Nothing is written on failure. */
int mcp_edit_file (const char *workspace, const char *path, json_t *edits, char **new_text,
                   char **diff, SpProtoError *err);

/* mcp-journal.c */
void mcp_journal_init (McpJournal *journal, const char *dir, int64_t max_bytes);
void mcp_journal_clear (McpJournal *journal);
/* Appends one run: structuredContent plus the tool and its input. */
void mcp_journal_record (McpJournal *journal, const char *tool, json_t *input, json_t *structured);
/* The parts of an entry, for mcp-activity.c: the UTC time now, the input
 * as kept (long texts cut), a whole entry, and one line appended to the
 * journal file name (renamed to old_name past --journal-max). */
void mcp_journal_time (char when[64]);
json_t *mcp_journal_input (json_t *input);
json_t *mcp_journal_entry (const char *tool, json_t *input, json_t *structured);
void mcp_journal_append (McpJournal *journal, const char *name, const char *old_name,
                         json_t *entry);

/* mcp-activity.c: the live journal (live.jsonl: start, output and end of
 * each run as it happens) and the cancel requests the app leaves in
 * <journal>/cancel/<run>. */
void mcp_activity_started (McpServer *server, McpCall *call);
void mcp_activity_output (McpServer *server, McpCall *call, int stream, const char *text);
void mcp_activity_ended (McpServer *server, McpCall *call, json_t *structured);
/* The runs whose Stop the app asked for (their request files, taken):
 * run ids, NULL-terminated, or NULL for none. */
char **mcp_activity_take_cancels (McpServer *server);

/* mcp-install.c: the install_packages tool's installs (its row is in
 * mcp-tool.h); events and polling as runner-install.h asks. */
bool mcp_install_event (McpServer *server, const SpMessage *msg);
void mcp_install_poll (McpServer *server);
void mcp_install_free_all (McpServer *server);

/* mcp-scan.c: code_execution's advisory security scan (never the
 * boundary). level 0..3 is Low..Critical. */
typedef struct
{
  int level;
  json_t *warnings; /* strings */
} McpScan;
void mcp_scan_init (McpScan *scan);
void mcp_scan_clear (McpScan *scan);
const char *mcp_scan_level_name (int level);
/* The Python program that walks code given on stdin (run sandboxed). */
const char *mcp_scan_python_program (void);
/* Folds that program's stdout (or the reason it did not run) in. */
void mcp_scan_python_output (const char *stdout_text, const char *failure, McpScan *scan);
/* Bash and JavaScript line patterns; false for other languages. */
bool mcp_scan_patterns (const char *language, const char *code, McpScan *scan);

/* mcp-code-execution.c: the seed spec's code_execution tool (its row is
 * in mcp-tool.h). */
void mcp_code_execution_free (McpCodeExec *cx);
/* edit_and_execute's execution_config (code_execution's input shape) into
 * the run of the edited file, whose language is lang. */
int mcp_code_execution_config (const McpOptions *options, McpCall *call, json_t *config,
                               const char *lang, SpRun *req, SpProtoError *err);

/* mcp-install.c: an install on behalf of another call; done() gets its
 * end instead of an answer going out, free_data() the data if the
 * server stops first. */
typedef void (*McpInstallDone) (McpServer *server, void *data, RunnerInstall *inst,
                                RunnerInstallState state);
bool mcp_install_start_for (McpServer *server, char **packages, McpInstallDone done,
                            void (*free_data) (void *data), void *data, char *msg, size_t msg_len);

/* mcp-result.c */
json_t *mcp_result_tool_error (const char *fmt, ...) __attribute__ ((format (printf, 1, 2)));
json_t *mcp_result_from_run (const McpCall *call, const SpExited *exited);
/* The outputSchema of a run; with_diff adds edit_and_execute's "diff". */
json_t *mcp_result_schema (bool with_diff);
