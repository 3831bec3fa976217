/* mcp-tool.h: a tool of sandpad-mcp as one row of a table.
 *
 * Each tool is defined beside its code as an McpTool: its name, whether a
 * server offers it, its tools/list entry (schemas included), and how a
 * call becomes an answer. A tool that is one run gives parse (arguments
 * into the run's request) and on_exited (the run's exited event into the
 * result); mcp-tools.c does the rest for all of them (the snippet's
 * declared dependencies, the engine, the answer). A tool with a pipeline
 * of its own (code_execution: scan, install, run) or no run at all
 * (install_packages, the sessions' tools) gives answer, which answers
 * through the reply it is handed. mcp-tools.c lists and dispatches by the
 * table, so a new tool is one row there and one file here. */
#pragma once

#include "mcp-server.h"

/* What parsing a call may read of the server: its fixed settings and the
 * languages it knows. */
typedef struct
{
  const McpOptions *options;
  RunnerLanguages *langs;
} McpToolEnv;

typedef struct
{
  const char *name;
  bool (*offered) (const McpOptions *options);
  /* Its tools/list entry: name, title, description, inputSchema,
   * outputSchema, annotations. */
  json_t *(*describe) (const McpOptions *options);

  /* A tool that is one run: its arguments into the run's request and how
   * the engine runs it; -1 with *err (the model's to read) when refused. */
  int (*parse) (const McpToolEnv *env, McpCall *call, json_t *args, SpRun *req,
                RunnerRunOptions *run_options, SpProtoError *err);
  /* The run's exited event into the call's result. */
  json_t *(*on_exited) (const McpReply *reply, McpCall *call, const SpExited *exited);
  /* A Python snippet's declared dependencies (PEP 723) are installed
   * before it runs. */
  bool installs_declared;
  /* The argument that named the run's directory, for the engine's
   * refusal of it ("work_dir", "path"); NULL: the request's own "cwd". */
  const char *directory_field;

  /* A tool that answers by itself, once, through reply. */
  void (*answer) (const McpReply *reply, const char *name, json_t *args);
} McpTool;

/* The "language" property of a tool's input schema (execute_code's and
 * code_execution's), as a fragment of a JSON literal with its comma: the
 * languages a run may name, said once. */
#define MCP_TOOL_LANGUAGE_SCHEMA                                                                   \
  "\"language\":{\"type\":\"string\",\"enum\":[\"python\",\"javascript\",\"bash\",\"c\",\"cpp\","  \
  "\"rust\",\"go\",\"typescript\",\"ruby\",\"r\",\"java\"],"                                       \
  "\"description\":\"python (python3 with numpy and matplotlib), javascript (node), bash, c "      \
  "(gcc), cpp (g++), rust (rustc), go, typescript (esbuild, then node), ruby, r (Rscript; a "      \
  "top-level value is printed) or java (the JDK's source launcher: the file's first class's "      \
  "main); compiled languages compile in the sandbox first, and a compile error is the "            \
  "result's error\"},"

/* The rows, each beside its code. */
extern const McpTool mcp_execute_code_tool;     /* mcp-execute-code.c */
extern const McpTool mcp_execute_command_tool;  /* mcp-execute-command.c */
extern const McpTool mcp_edit_and_execute_tool; /* mcp-edit-and-execute.c */
extern const McpTool mcp_code_execution_tool;   /* mcp-code-execution.c */
extern const McpTool mcp_install_tool;          /* mcp-install.c */
extern const McpTool mcp_list_sessions_tool;    /* mcp-sessions.c */
extern const McpTool mcp_restart_session_tool;
extern const McpTool mcp_close_session_tool;

/* mcp-tool.c, what the rows share: the result of a tool that is one run
 * (mcp-result.c's), for their on_exited. */
json_t *mcp_tool_run_result (const McpReply *reply, McpCall *call, const SpExited *exited);
/* The rows' offered: always, with a workspace, with an environment. */
bool mcp_tool_always (const McpOptions *options);
bool mcp_tool_with_workspace (const McpOptions *options);
bool mcp_tool_with_environment (const McpOptions *options);
/* A tool's arguments' "timeout" in seconds (fractions allowed) into
 * milliseconds, checked. */
int mcp_tool_get_timeout (json_t *args, int64_t *timeout_ms, SpProtoError *err);
/* A tool's working_directory, relative to the workspace or absolute
 * inside it, as the path the engine gets; NULL with *why (allocated) when
 * there is no workspace or it lies outside. The engine then resolves it
 * beneath the workspace (fd-based, the same check as execute_command's
 * work_dir) and refuses anything else. */
char *mcp_working_directory (const McpOptions *options, const char *dir, char **why);
/* A literal schema of a tool's file, parsed (abort on a typo). */
json_t *mcp_tool_literal (const char *text);
