/* sp-proto.h: the Sandpad runner protocol, shared by both ends of the pipe.
 *
 * One compact JSON object per line ("frame"). Every object carries
 * "v" (SP_PROTO_VERSION) and "type"; everything that belongs to a run
 * carries the client-chosen "id". docs/protocol.md is the reference.
 *
 * This module is plain C + jansson so that the runner (no GLib) and the
 * GLib core can both link it. Decoding is strict: unknown fields, wrong
 * types and out-of-range values are errors with a code and a message,
 * never a crash and never silently ignored.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SP_PROTO_VERSION 1

/* Longest frame accepted, excluding the newline. Big enough for a
 * generous snippet (the code travels inside "run"), small enough that a
 * hostile or broken peer cannot make either side buffer without bound. */
#define SP_PROTO_MAX_FRAME (4 * 1024 * 1024)

/* Run ids are short client-chosen labels, echoed on every event. */
#define SP_PROTO_MAX_ID 64

typedef enum
{
  SP_ERR_NONE = 0,
  SP_ERR_INVALID_JSON,
  SP_ERR_NOT_OBJECT,
  SP_ERR_BAD_VERSION,
  SP_ERR_UNKNOWN_TYPE,
  SP_ERR_MISSING_FIELD,
  SP_ERR_WRONG_TYPE,
  SP_ERR_INVALID_VALUE,
  SP_ERR_UNKNOWN_FIELD,
  SP_ERR_FRAME_TOO_LARGE,
  SP_ERR_NUL_BYTE,
  SP_ERR_UNKNOWN_RUN,
  SP_ERR_DUPLICATE_RUN,
  SP_ERR_RUN_STATE,
  SP_ERR_UNSUPPORTED_LANGUAGE,
  SP_ERR_LIMIT,
  SP_ERR_IO,
  SP_ERR_INTERNAL,
  SP_ERR_UNKNOWN_SESSION, /* session_close/session_restart of no such session */
  SP_ERR_LAST
} SpProtoErrorCode;

typedef struct
{
  SpProtoErrorCode code;
  char message[256];
} SpProtoError;

/* The wire name of a code ("invalid_json"), and back. */
const char *sp_proto_error_code_to_string (SpProtoErrorCode code);
SpProtoErrorCode sp_proto_error_code_from_string (const char *name);

/* Sets *err (when non-NULL) and returns -1, so callers can
 * `return sp_proto_set_error (err, ...)`. */
int sp_proto_set_error (SpProtoError *err, SpProtoErrorCode code, const char *fmt, ...)
  __attribute__ ((format (printf, 3, 4)));

typedef enum
{
  SP_MSG_INVALID = 0,
  /* client → runner */
  SP_MSG_HELLO,
  SP_MSG_RUN,
  SP_MSG_CANCEL,
  SP_MSG_STDIN,
  SP_MSG_RELEASE,
  /* runner → client */
  SP_MSG_READY,
  SP_MSG_QUEUED,
  SP_MSG_STARTED,
  SP_MSG_OUTPUT,
  SP_MSG_EXITED,
  SP_MSG_RELEASED,
  SP_MSG_ERROR,
  /* sessions (persistent interpreters); requests, then an event */
  SP_MSG_SESSION_CLOSE,
  SP_MSG_SESSION_RESTART,
  SP_MSG_SESSION_ENDED,
  /* runner → client: the program waits on its stdin, or no longer does */
  SP_MSG_INPUT_WAIT,
  /* a program's rich result (runner → client) */
  SP_MSG_DISPLAY,
  /* runner → client: a compiled language's run enters its compile step,
   * or its program step after one */
  SP_MSG_PHASE,
  /* runner → client: the middle of a stream past its output limit was left
   * out; the stream's last bytes follow as output events */
  SP_MSG_OUTPUT_OMITTED,
  SP_MSG_LAST
} SpMessageType;

/* Whether a client sends this type (the rest are events). */
bool sp_message_type_is_request (SpMessageType type);

typedef enum
{
  SP_DIR_REQUEST, /* what a client sends */
  SP_DIR_EVENT,   /* what the runner sends */
} SpDirection;

const char *sp_message_type_to_string (SpMessageType type);

typedef enum
{
  SP_STREAM_STDOUT = 0,
  SP_STREAM_STDERR = 1,
} SpStream;

/* Which limit ended a run, if any. */
typedef enum
{
  SP_LIMIT_NONE = 0,
  SP_LIMIT_TIME,
  SP_LIMIT_CPU,
  SP_LIMIT_MEMORY,
  SP_LIMIT_OUTPUT,
  SP_LIMIT_PROCESSES,
  SP_LIMIT_DISK,         /* writable space (workdir, /tmp) or one file past the disk cap */
  SP_LIMIT_INPUT_IDLE,   /* waited on its stdin past the runner's input idle cap */
  SP_LIMIT_COMPILE_TIME, /* the compile step's own time limit (compiled languages) */
  SP_LIMIT_LAST
} SpLimit;

const char *sp_limit_to_string (SpLimit limit);

/* How a run ended. */
typedef enum
{
  SP_END_EXITED = 0, /* the program exited with exit_code */
  SP_END_SIGNALED,   /* a signal killed it */
  SP_END_FAILED,     /* it never ran: see error */
  SP_END_LAST
} SpEnd;

/* Which step of cancel (interrupt → terminate → kill) ended the run. */
typedef enum
{
  SP_CANCEL_NONE = 0,
  SP_CANCEL_INTERRUPT,
  SP_CANCEL_TERMINATE,
  SP_CANCEL_KILL,
  SP_CANCEL_LAST
} SpCancelStage;

/* Why a session's interpreter ended ("session_ended"). */
typedef enum
{
  SP_SESSION_END_NONE = 0,
  SP_SESSION_END_EXITED,    /* it ended by itself: a crash, os._exit, a signal */
  SP_SESSION_END_TIMEOUT,   /* a run passed its time and ignored the interrupt */
  SP_SESSION_END_CANCELLED, /* a cancel went past the interrupt */
  SP_SESSION_END_LIMIT,     /* memory, output or disk stopped it */
  SP_SESSION_END_CLOSED,    /* session_close */
  SP_SESSION_END_RESTART,   /* session_restart */
  SP_SESSION_END_IDLE,      /* unused for longer than the runner keeps sessions */
  SP_SESSION_END_FAILED,    /* it could not be started */
  SP_SESSION_END_LAST
} SpSessionEnd;

const char *sp_session_end_to_string (SpSessionEnd reason);
SpSessionEnd sp_session_end_from_string (const char *name);

/* ---- client → runner ---- */

typedef struct
{
  char *client; /* optional free-form name of the client */
} SpHello;

typedef struct
{
  char *id;
  char *language; /* "python", "javascript", "bash", ... */
  char *code;     /* exactly one of code and path */
  char *path;     /* a file the runner reads at submit time */
  char *name;     /* optional file name shown in tracebacks */
  char **args;    /* NULL-terminated, may be NULL */
  char *stdin_data;
  bool stdin_open;      /* keep stdin open after stdin_data for "stdin" */
  char **env;           /* NULL-terminated "KEY=VALUE", may be NULL */
  int64_t timeout_ms;   /* 0: the runner's default */
  int64_t memory_mib;   /* 0: default */
  int64_t output_limit; /* bytes per stream, 0: default */
  char *cwd;            /* NULL: a fresh private directory */
  bool network;
  bool return_base64; /* images in "exited" carry their bytes, up to a cap */
  bool return_files;  /* so do other regular files of at most
                       * SP_FILE_INLINE_MAX bytes (with return_base64) */
  char *environment;  /* NULL: none; a Python venv or a node_modules directory,
                       * absolute (checked by the runner, see runner-venv.h) */
  char *session;      /* NULL: a fresh interpreter; else the session to run in */
} SpRun;

/* A file that is not an image travels inline (return_files) only up to
 * this size: a result is for reading, the directory for keeping. */
#define SP_FILE_INLINE_MAX (256 * 1024)

/* session_close, session_restart (reason unused) and session_ended. */
typedef struct
{
  char *session;
  SpSessionEnd reason;
} SpSessionRef;

typedef struct
{
  char *id;
} SpRunRef; /* cancel, release, released */

typedef struct
{
  char *id;
  char *data; /* may be empty */
  bool eof;   /* close the program's stdin after data */
} SpStdin;

/* ---- runner → client ---- */

typedef struct
{
  char *name;
  char *path;
  char *version;
  char **extensions; /* NULL-terminated */
} SpLanguage;

typedef struct
{
  int64_t default_value;
  int64_t max_value;
} SpLimitRange;

typedef struct
{
  char *mode;    /* "none" until the sandbox lands, then "namespaces"/"fallback" */
  char **layers; /* NULL-terminated names of the layers actually applied */
  char **waived; /* NULL, or "layer: why" for each layer the runs go
                  * without on this host (outside strict mode) */
} SpSandboxInfo;

typedef struct
{
  char *runner_version;
  int64_t protocol;
  SpLanguage *languages;
  size_t n_languages;
  char **unavailable; /* languages the runner knows whose toolchain is missing; may be NULL */
  SpLimitRange timeout_ms;
  SpLimitRange memory_mib;
  SpLimitRange output_limit;
  int64_t max_concurrent;
  int64_t max_frame;
  SpSandboxInfo sandbox;
} SpReady;

typedef struct
{
  char *id;
  int64_t position; /* runs ahead of this one */
} SpQueued;

typedef struct
{
  char *id;
  char *cwd;
  int64_t t_ms; /* runner clock: ms since the runner started */
  int64_t timeout_ms;
  int64_t memory_mib;
  int64_t output_limit;
  bool network;
  SpSandboxInfo sandbox;
  char *environment;       /* NULL: none; the environment in use (read-only) */
  char *session;           /* the run's session, NULL for an ordinary run */
  bool session_new;        /* this run started the session's interpreter afresh */
  int64_t execution_count; /* a session's run: its number among the runs of the
                            * session's interpreter, from 1 (Jupyter's In [n]);
                            * 0: not a session's run (or an older runner) */
  bool warm;               /* forked from a warm interpreter; false: a cold start */
} SpStarted;

typedef struct
{
  char *id;
  SpStream stream;
  char *data; /* valid UTF-8, no NUL */
  /* When the runner read it, on its clock (as started's t_ms), so a client
   * can place the run's files among the output; -1: not sent (older
   * runners). Writers that zero a message set it themselves. */
  int64_t t_ms;
} SpOutput;

/* What a reported entry is. Regular files are the usual case and carry
 * no "kind" on the wire; the rest are reported so that nothing a run
 * plants in a directory goes unmentioned. */
typedef enum
{
  SP_FILE_REGULAR = 0,
  SP_FILE_SYMLINK,
  SP_FILE_FIFO,
  SP_FILE_SOCKET,
  SP_FILE_DEVICE,
  SP_FILE_OTHER,
  SP_FILE_KIND_LAST
} SpFileKind;

/* Wire names of the kinds, indexed by SpFileKind ("regular" is never sent). */
extern const char *const sp_file_kind_names[SP_FILE_KIND_LAST + 1];

/* The longest name (a path's bytes on disk) an entry carries as
 * "path_hex", in bytes: the exited event's budget holds 200 of them. */
#define SP_FILE_MAX_NAME 512

typedef struct
{
  char *path; /* relative to the run's working directory, valid UTF-8; shown, and
               * the name only when name is NULL and name_left_out false */
  int64_t size;
  char *mime;
  bool created;  /* false: it existed before and was modified */
  int64_t width; /* images: pixel size; 0 when unknown or not an image */
  int64_t height;
  char *base64; /* the bytes, when the run asked for them and they fit */
  SpFileKind kind;
  char *target; /* SP_FILE_SYMLINK: where it points (valid UTF-8, capped) */
  int64_t t_ms; /* last modified, on the runner's clock; -1: not sent */
  /* The path's bytes as on disk ("path_hex"), present only when path does
   * not spell them (a byte escaped, or shortened): a client opens this,
   * never a name made from path. No NUL, relative, no "." or ".." part. */
  char *name;
  bool name_left_out; /* path does not spell the name, which is too long to carry */
} SpFileInfo;

/* A frame of the program's error, outermost first (Python's order). */
typedef struct
{
  char *file;     /* as the interpreter named it, valid UTF-8, capped */
  char *function; /* NULL when the interpreter does not say */
  int64_t line;
  int64_t column; /* 0 when unknown */
} SpProgramFrame;

/* The error a failed program reported, read by the runner from the tail
 * of its stderr (runner-error.c): "program_error" in exited. Every string
 * is valid UTF-8 and capped, at most SP_PROGRAM_ERROR_MAX_FRAMES frames. */
#define SP_PROGRAM_ERROR_MAX_FRAMES 32
#define SP_PROGRAM_ERROR_MAX_TEXT 512 /* bytes of type, message, file, function */
/* Largest line or column number the decoder accepts (lines from 0,
 * columns from 1). */
#define SP_PROGRAM_ERROR_MAX_LINE INT32_MAX
typedef struct
{
  char *type;
  char *message;
  int64_t line;   /* in the snippet, 1-based; 0 when no frame is in it */
  int64_t column; /* of the error itself, 0 when unknown */
  bool syntax;
  SpProgramFrame *frames;
  size_t n_frames;
} SpProgramError;

void sp_program_error_free (SpProgramError *error);

typedef struct
{
  char *id;
  SpEnd end;
  int64_t exit_code; /* SP_END_EXITED */
  int64_t signal;    /* SP_END_SIGNALED */
  char *error;       /* SP_END_FAILED */
  SpLimit limit;
  SpCancelStage cancelled;
  int64_t t_ms;
  int64_t wall_ms;
  int64_t cpu_ms;
  int64_t peak_memory_bytes;
  int64_t stdout_bytes;
  int64_t stderr_bytes;
  bool stdout_truncated;
  bool stderr_truncated;
  SpFileInfo *files;
  size_t n_files;
  bool files_truncated;
  SpProgramError *program_error; /* NULL unless the program failed with one */
  SpSessionEnd session_ended;    /* a session run whose interpreter ended with it */
  bool warm;                     /* as started's */
  /* A Python run that started cold because the runner's warm runs are off
   * after a failure of their own: why (NULL otherwise). */
  char *cold_reason;
  /* A compiled language's compile step ("compile"): present, whether the
   * output came from the runner's cache, whether it failed (then the run
   * ended there: exit_code is the compiler's, program_error its first
   * diagnostic), its own wall and CPU time. */
  bool compiled;
  bool compile_cached;
  bool compile_failed;
  int64_t compile_wall_ms;
  int64_t compile_cpu_ms;
} SpExited;

/* A "display" event: one rich result of the program (a value, an image,
 * a table), as a MIME bundle in its place among the run's output. */
#define SP_DISPLAY_MAX_ITEMS 16
#define SP_DISPLAY_MAX_MIME 127
/* Beside an image/png drawn at a size of its own (Python's LaTeX): a JSON
 * integer, how many of its pixels make one logical pixel (1 to 8), so a
 * view shows it at that size, as text, not fitted to its width. */
#define SP_DISPLAY_PNG_SCALE_MIME "application/vnd.sandpad.png-scale+json"
/* A matplotlib chart as data (its kind, title, axes and elements: bars,
 * lines, points, slices, boxes), beside the picture a plot-N.png file
 * already shows, for a reader without vision (docs/protocol.md). A view
 * that shows the file shows nothing more for it. */
#define SP_DISPLAY_CHART_MIME "application/vnd.sandpad.chart+json"
typedef struct
{
  char *mime;   /* "type/subtype", sp_display_mime_valid() */
  char *text;   /* the value: text, or for a JSON type its compact JSON */
  bool is_json; /* sp_display_mime_is_json (mime) */
} SpDisplayItem;

typedef struct
{
  char *id;
  int64_t t_ms; /* read, on the runner's clock (as output's) */
  SpDisplayItem *items;
  size_t n_items;
} SpDisplay;

bool sp_display_mime_valid (const char *mime);
/* application/json or a "+json" type: its value is any JSON. */
bool sp_display_mime_is_json (const char *mime);
/* Frees the items (not the id) and zeroes them. */
void sp_display_clear (SpDisplay *display);

typedef struct
{
  char *id; /* NULL when the error is not about a run */
  SpProtoErrorCode code;
  char *message;
} SpErrorMsg;

/* The run's program is blocked reading its stdin with nothing to read
 * (waiting true), or has stopped waiting (false: it was given input, or
 * went on without it). While it waits its time limit stands still. */
typedef struct
{
  char *id;
  bool waiting;
  int64_t t_ms; /* runner clock, as started's */
} SpInputWait;

/* The step of a compiled language's run now under way. */
typedef enum
{
  SP_PHASE_COMPILE, /* the compiler runs, under the compile step's own limit */
  SP_PHASE_RUN,     /* the program runs, under the run's limit */
  SP_PHASE_LAST
} SpPhaseKind;

const char *sp_phase_to_string (SpPhaseKind phase);
/* The phases' wire names, in SpPhaseKind's order, NULL-terminated. */
extern const char *const sp_phase_names[SP_PHASE_LAST + 1];

/* A compiled language's run starts its compile step, or its program step
 * after the compile step ran (none is sent for a run whose program came
 * from the cache: it only has the program step). */
typedef struct
{
  char *id;
  SpPhaseKind phase;
  int64_t timeout_ms; /* this step's time limit */
  int64_t t_ms;       /* runner clock, as started's */
} SpPhase;
/* A stream passed its output limit: the program ran on, the runner kept
 * the start (the output events before this one) and sends the end (the
 * output events after it); this says what was left out between them.
 * More than one can come for a stream: the runner sends what it held
 * when the program waits for input, then leaves out again. */
typedef struct
{
  char *id;
  SpStream stream;
  int64_t bytes; /* left out, >= 1 */
  int64_t lines; /* newlines among them */
  int64_t t_ms;  /* runner clock, as started's */
  /* The stream's whole output, as the program wrote it, in this file of
   * the run's working directory (a name, no '/'); NULL: not kept (the
   * name was taken, or the disk refused). file_cut: the file stopped at
   * its share of the run's disk limit, so it holds only the start. */
  char *file;
  bool file_cut;
} SpOutputOmitted;

typedef struct
{
  int64_t version;
  SpMessageType type;
  union
  {
    SpHello hello;
    SpRun run;
    SpRunRef ref; /* cancel, release, released */
    SpStdin stdin_;
    SpReady ready;
    SpQueued queued;
    SpStarted started;
    SpOutput output;
    SpExited exited;
    SpErrorMsg error;
    SpSessionRef session; /* session_close, session_restart, session_ended */
    SpInputWait input_wait;
    SpDisplay display;
    SpPhase phase;
    SpOutputOmitted omitted;
  } u;
} SpMessage;

/* Frees every string and array the message owns and zeroes it. */
void sp_message_clear (SpMessage *msg);

/* The run an event is about (queued, started, output, exited, released,
 * error); NULL for the others and for an error about no run. */
const char *sp_message_run_id (const SpMessage *msg);
void sp_sandbox_info_clear (SpSandboxInfo *info);
void sp_sandbox_info_copy (SpSandboxInfo *dst, const SpSandboxInfo *src);

/* Decodes one frame (without its newline). On failure returns -1, fills
 * *err and, when the frame had a usable "id", copies it into id_out
 * (SP_PROTO_MAX_ID + 1 bytes, may be NULL) so the answer can name the run. */
int sp_message_decode (const char *frame, size_t len, SpDirection dir, SpMessage *out,
                       SpProtoError *err, char *id_out);

/* Encodes a message as one compact JSON line ending in '\n'. Returns a
 * malloc'd string (length in *len_out) or NULL on an invalid message. */
char *sp_message_encode (const SpMessage *msg, size_t *len_out);

/* Strict string helpers shared by both directions. */
bool sp_proto_id_valid (const char *id);
/* output_omitted's "file": a plain name in the run's working directory,
 * printable ASCII, no '/', not "." or "..", at most 255 bytes; a client
 * joins it to started's cwd and never looks further. */
bool sp_proto_output_file_valid (const char *name);
/* An "env" name: [A-Za-z_][A-Za-z0-9_]*, the first len bytes of name. */
bool sp_proto_env_name_valid (const char *name, size_t len);
char **sp_strv_copy (char *const *strv);
void sp_strv_free (char **strv);
size_t sp_strv_length (char *const *strv);
