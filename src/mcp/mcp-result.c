/* mcp-result.c: one run's exited event as an MCP tool result.
 *
 * Two readers: structuredContent for programs (it matches the tools'
 * outputSchema), content blocks for a model (one text block with the
 * output and what was cut, one image block per plot). */
#include <stdio.h>
#include <string.h>

#include "mcp-server.h"

/* The outputSchema of every tool that runs something: what
 * mcp_result_from_run() builds, field for field. */
static const char result_schema[]
  = "{\"type\":\"object\",\"properties\":{"
    "\"end\":{\"type\":\"string\",\"enum\":[\"exited\",\"timeout\",\"memory\",\"output_limit\","
    "\"disk\",\"processes\",\"cancelled\",\"failed\"],"
    "\"description\":\"how the run ended: exited (see exit_code or signal), a limit that stopped "
    "it, cancelled, or failed (it could not run; see failure)\"},"
    "\"exit_code\":{\"type\":[\"integer\",\"null\"],\"description\":\"the program's exit status; "
    "null when a signal ended it or it never ran\"},"
    "\"signal\":{\"type\":[\"integer\",\"null\"]},"
    "\"failure\":{\"type\":\"string\",\"description\":\"why the run could not happen\"},"
    "\"stdout\":{\"type\":\"string\"},\"stderr\":{\"type\":\"string\"},"
    "\"stdout_bytes\":{\"type\":\"integer\"},\"stderr_bytes\":{\"type\":\"integer\"},"
    "\"stdout_truncated\":{\"type\":\"boolean\",\"description\":\"stdout is not all the program "
    "wrote: the middle was left out (past the output limit the program runs on and its start "
    "and end are kept)\"},"
    "\"stderr_truncated\":{\"type\":\"boolean\"},"
    "\"stdout_file\":{\"type\":\"string\",\"description\":\"past the output limit, the file "
    "with all the program wrote on stdout: in the workspace, its path; else its name among the "
    "run's files\"},"
    "\"stderr_file\":{\"type\":\"string\"},"
    "\"duration_ms\":{\"type\":\"integer\"},\"cpu_ms\":{\"type\":\"integer\"},"
    "\"peak_memory_bytes\":{\"type\":\"integer\"},"
    "\"files\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"path\":{\"type\":\"string\"},\"size\":{\"type\":\"integer\"},\"mime\":{\"type\":\"string\"},"
    "\"created\":{\"type\":\"boolean\"},\"width\":{\"type\":\"integer\"},"
    "\"height\":{\"type\":\"integer\"},\"kind\":{\"type\":\"string\"},"
    "\"inline\":{\"type\":\"boolean\",\"description\":\"true: its bytes are in content, an "
    "embedded resource (text or blob); images are image blocks instead\"}},"
    "\"required\":[\"path\",\"size\",\"mime\",\"created\"]}},"
    "\"files_truncated\":{\"type\":\"boolean\"},"
    "\"installed_packages\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},"
    "\"description\":\"name==version installed before the run for the dependencies its "
    "inline script metadata (PEP 723) declared\"},"
    "\"displays\":{\"type\":\"array\",\"description\":\"rich results in the order shown (a "
    "Python snippet's last expression, a JavaScript session's completion value, display()): data "
    "maps MIME types to values (text/plain "
    "always; image/png base64; text/html; application/vnd.dataresource+json for a table; "
    "application/vnd.sandpad.chart+json for a matplotlib chart as data beside its plot file: "
    "type, title, axis labels and scales, elements); "
    "stdout_offset is how many bytes of stdout came before it\",\"items\":{\"type\":\"object\","
    "\"properties\":{\"data\":{\"type\":\"object\"},\"stdout_offset\":{\"type\":\"integer\"}},"
    "\"required\":[\"data\",\"stdout_offset\"]}},"
    "\"displays_truncated\":{\"type\":\"boolean\",\"description\":\"more displays came than "
    "are kept\"},"
    "\"error\":{\"type\":\"object\",\"description\":\"the error the program reported when it "
    "failed, read by the runner from its stderr: line (and column) in the snippet, 0 when no frame "
    "is in it; frames outermost first\",\"properties\":{"
    "\"type\":{\"type\":\"string\"},\"message\":{\"type\":\"string\"},"
    "\"line\":{\"type\":\"integer\"},\"column\":{\"type\":\"integer\"},"
    "\"syntax\":{\"type\":\"boolean\"},"
    "\"frames\":{\"type\":\"array\",\"items\":{\"type\":\"object\",\"properties\":{"
    "\"file\":{\"type\":\"string\"},\"line\":{\"type\":\"integer\"},"
    "\"column\":{\"type\":\"integer\"},\"function\":{\"type\":\"string\"}},"
    "\"required\":[\"file\",\"line\"]}}},"
    "\"required\":[\"type\",\"message\",\"line\",\"frames\"]},"
    "\"sandbox\":{\"type\":\"object\",\"properties\":{\"mode\":{\"type\":\"string\"},"
    "\"layers\":{\"type\":\"array\",\"items\":{\"type\":\"string\"}},"
    "\"waived\":{\"type\":\"array\",\"items\":{\"type\":\"string\"},\"description\":"
    "\"layers this host lacks, each 'layer: why'; absent when none is\"},"
    "\"warm\":{\"type\":\"boolean\",\"description\":\"the run started from a warm "
    "interpreter (same layers, faster start)\"}},"
    "\"required\":[\"mode\",\"layers\",\"warm\"]},"
    "\"session\":{\"type\":\"object\",\"description\":\"execute_code with session_id: "
    "new is true when this call started the session afresh (its earlier state is gone); ended "
    "names why the session ended with this call (exited: the interpreter crashed or exited; "
    "timeout, cancelled, limit, closed), null while it lives on\",\"properties\":{"
    "\"id\":{\"type\":\"string\"},\"new\":{\"type\":\"boolean\"},"
    "\"ended\":{\"type\":[\"string\",\"null\"]},"
    "\"execution_count\":{\"type\":\"integer\",\"description\":\"this call's number in the "
    "session's interpreter, from 1 (Jupyter's In [n]); 1 again in a new one\"}},"
    "\"required\":[\"id\",\"new\",\"ended\",\"execution_count\"]}},"
    "\"required\":[\"end\",\"exit_code\",\"signal\",\"stdout\",\"stderr\",\"stdout_bytes\","
    "\"stderr_bytes\",\"stdout_truncated\",\"stderr_truncated\",\"duration_ms\",\"cpu_ms\","
    "\"peak_memory_bytes\",\"files\",\"files_truncated\"]}";

json_t *
mcp_result_schema (bool with_diff)
{
  json_t *schema = json_loads (result_schema, 0, NULL);

  if (schema == NULL)
    abort (); /* a typo in the literal above */
  if (with_diff)
    {
      json_object_set_new (json_object_get (schema, "properties"), "diff",
                           json_pack ("{s:s, s:s}", "type", "string", "description",
                                      "the edit as a unified diff"));
      json_array_append_new (json_object_get (schema, "required"), json_string ("diff"));
    }
  return schema;
}

json_t *
mcp_result_tool_error (const char *fmt, ...)
{
  char message[1024];
  va_list args;

  va_start (args, fmt);
  vsnprintf (message, sizeof message, fmt, args);
  va_end (args);
  json_t *text = json_string (message);
  if (text == NULL)
    text = json_string ("the tool call was refused");
  return json_pack ("{s:[{s:s, s:o}], s:b}", "content", "type", "text", "text", text, "isError", 1);
}

static const char *
end_name (const SpExited *exited)
{
  if (exited->cancelled != SP_CANCEL_NONE)
    return "cancelled";
  switch (exited->limit)
    {
    case SP_LIMIT_TIME:
    case SP_LIMIT_CPU:
    case SP_LIMIT_INPUT_IDLE: /* never met: an assistant's runs have no open stdin */
    case SP_LIMIT_COMPILE_TIME:
      return "timeout";
    case SP_LIMIT_MEMORY:
      return "memory";
    case SP_LIMIT_OUTPUT:
      return "output_limit";
    case SP_LIMIT_DISK:
      return "disk";
    case SP_LIMIT_PROCESSES:
      return "processes";
    case SP_LIMIT_NONE:
    case SP_LIMIT_LAST:
    default:
      break;
    }
  return exited->end == SP_END_FAILED ? "failed" : "exited";
}

static bool
inline_image (const SpFileInfo *file)
{
  /* The runner types these three by magic bytes and bounded headers. */
  return file->base64 != NULL && file->kind == SP_FILE_REGULAR
         && (strcmp (file->mime, "image/png") == 0 || strcmp (file->mime, "image/jpeg") == 0
             || strcmp (file->mime, "image/gif") == 0);
}

static json_t *
files_json (const SpExited *exited)
{
  json_t *files = json_array ();

  for (size_t i = 0; i < exited->n_files; i++)
    {
      const SpFileInfo *f = &exited->files[i];
      json_t *entry = json_pack ("{s:s, s:I, s:s, s:b}", "path", f->path, "size",
                                 (json_int_t) f->size, "mime", f->mime ? f->mime : "", "created",
                                 f->created);
      if (entry == NULL)
        continue; /* the runner escapes paths; this is only defence */
      if (f->width > 0 && f->height > 0)
        {
          json_object_set_new (entry, "width", json_integer (f->width));
          json_object_set_new (entry, "height", json_integer (f->height));
        }
      if (f->kind != SP_FILE_REGULAR && f->kind < SP_FILE_KIND_LAST)
        json_object_set_new (entry, "kind", json_string (sp_file_kind_names[f->kind]));
      if (mcp_files_inline (f))
        json_object_set_new (entry, "inline", json_true ());
      json_array_append_new (files, entry);
    }
  return files;
}

static json_t *
strv_json (char *const *strv)
{
  json_t *array = json_array ();

  for (size_t i = 0; strv != NULL && strv[i] != NULL; i++)
    json_array_append_new (array, json_string (strv[i]));
  return array;
}

/* The runner's program_error as it is on the wire (the same object
 * sandpad-run --json prints), for structuredContent's "error". */
static json_t *
program_error_json (const SpProgramError *error)
{
  json_t *frames = json_array ();

  for (size_t i = 0; i < error->n_frames; i++)
    {
      const SpProgramFrame *f = &error->frames[i];
      json_t *frame = json_pack ("{s:s, s:I}", "file", f->file, "line", (json_int_t) f->line);

      if (f->column > 0)
        json_object_set_new (frame, "column", json_integer (f->column));
      if (f->function != NULL)
        json_object_set_new (frame, "function", json_string (f->function));
      json_array_append_new (frames, frame);
    }
  json_t *obj = json_pack ("{s:s, s:s, s:I, s:o}", "type", error->type, "message", error->message,
                           "line", (json_int_t) error->line, "frames", frames);
  if (error->column > 0)
    json_object_set_new (obj, "column", json_integer (error->column));
  if (error->syntax)
    json_object_set_new (obj, "syntax", json_true ());
  return obj;
}

/* The first line of the text block: how it ended, in words. */
static void
describe_end (Buf *text, const McpCall *call, const SpExited *exited, const char *end)
{
  char line[512];

  if (exited->end == SP_END_FAILED && exited->cancelled == SP_CANCEL_NONE)
    snprintf (line, sizeof line, "The run could not happen: %s\n",
              exited->error ? exited->error : "unknown error");
  else if (strcmp (end, "cancelled") == 0)
    snprintf (line, sizeof line, "Cancelled after %lld ms.\n", (long long) exited->wall_ms);
  else if (exited->limit == SP_LIMIT_COMPILE_TIME)
    snprintf (line, sizeof line,
              "Stopped by the compile step's own time limit after %lld ms; "
              "the program did not run.\n",
              (long long) exited->compile_wall_ms);
  else if (exited->compile_failed && strcmp (end, "exited") == 0)
    snprintf (line, sizeof line,
              "The compile failed (exit code %lld); the program did not "
              "run.\n",
              (long long) exited->exit_code);
  else if (strcmp (end, "timeout") == 0)
    snprintf (line, sizeof line, "Stopped by the time limit of %.10g s.\n",
              call->timeout_ms / 1000.0);
  else if (strcmp (end, "memory") == 0)
    snprintf (line, sizeof line, "Stopped by the memory limit of %lld MiB.\n",
              (long long) call->memory_mib);
  else if (strcmp (end, "exited") != 0)
    snprintf (line, sizeof line, "Stopped by the %s limit.\n", end);
  else if (exited->end == SP_END_SIGNALED)
    snprintf (line, sizeof line, "Killed by signal %lld after %lld ms.\n",
              (long long) exited->signal, (long long) exited->wall_ms);
  else
    snprintf (line, sizeof line,
              "Exit code %lld after %lld ms (CPU %lld ms, peak memory %lld KiB).\n",
              (long long) exited->exit_code, (long long) exited->wall_ms,
              (long long) exited->cpu_ms, (long long) exited->peak_memory_bytes / 1024);
  buf_append (text, line, strlen (line));
}

/* A line naming the error and where, so a model need not read the
 * traceback to find it. */
static void
describe_error (Buf *text, const SpProgramError *error)
{
  if (error == NULL)
    return;
  char *line = error->line > 0 ? xasprintf ("Error: %s in line %lld: %s\n", error->type,
                                            (long long) error->line, error->message)
                               : xasprintf ("Error: %s: %s\n", error->type, error->message);
  buf_append (text, line, strlen (line));
  free (line);
}

/* Where the whole stream is: a path that stays (the workspace's), else
 * the run's file as its files list names it. */
static char *
whole_output_path (const McpCall *call, const McpCapture *cap)
{
  if (cap->file[0] == '\0')
    return NULL;
  if (call->workspace_dir != NULL)
    return xasprintf ("%s/%s", call->workspace_dir, cap->file);
  return xstrdup (cap->file);
}

static void
describe_stream (Buf *text, const McpCall *call, int s, const char *kept, int64_t cut,
                 int64_t written, bool runner_cut, int64_t limit)
{
  const char *name = s == 0 ? "stdout" : "stderr";
  const McpCapture *cap = &call->out[s];

  if (kept[0] == '\0' && !runner_cut)
    return;
  char *head = xasprintf ("--- %s ---\n", name);
  buf_append (text, head, strlen (head));
  free (head);
  buf_append (text, kept, strlen (kept));
  if (kept[0] != '\0' && kept[strlen (kept) - 1] != '\n')
    buf_append (text, "\n", 1);
  if (cap->omitted > 0)
    {
      /* The runner kept the start and the end of a stream past the output
       * limit: the program ran on, and all it wrote is in a file. */
      char *path = whole_output_path (call, cap);
      char *where = path == NULL ? xstrdup ("the whole output was not kept")
                    : cap->file_cut
                      ? xasprintf ("the start of the whole output is in %s (it stopped at half "
                                   "the disk limit)",
                                   path)
                      : xasprintf ("the whole output is in %s", path);
      char *line = xasprintf ("[%s: %lld of %lld bytes shown; the middle was left out (output "
                              "limit %lld bytes); %s]\n",
                              name, (long long) (written - cut), (long long) written,
                              (long long) limit, where);
      buf_append (text, line, strlen (line));
      free (line);
      free (where);
      free (path);
    }
  else if (runner_cut)
    {
      char *line = xasprintf ("[%s: the program wrote %lld bytes; output past the limit of "
                              "%lld bytes was dropped]\n",
                              name, (long long) written, (long long) limit);
      buf_append (text, line, strlen (line));
      free (line);
    }
  else if (cut > 0)
    {
      char *line = xasprintf ("[%s: %lld of %lld bytes shown; the middle was left out]\n", name,
                              (long long) (written - cut), (long long) written);
      buf_append (text, line, strlen (line));
      free (line);
    }
}

static void
describe_files (Buf *text, const SpExited *exited)
{
  for (size_t i = 0; i < exited->n_files; i++)
    {
      const SpFileInfo *f = &exited->files[i];
      char *line;

      if (f->width > 0)
        line = xasprintf ("file %s: %s, %lldx%lld, %lld bytes%s\n", f->path, f->mime,
                          (long long) f->width, (long long) f->height, (long long) f->size,
                          f->mime != NULL && strncmp (f->mime, "image/", 6) == 0
                              && !inline_image (f)
                            ? " (not shown: over the size for inline images)"
                            : "");
      else
        line = xasprintf ("file %s: %s, %lld bytes%s%s\n", f->path, f->mime ? f->mime : "?",
                          (long long) f->size, f->created ? "" : " (changed)",
                          mcp_files_inline (f) ? " (its content follows as a resource)"
                          : f->kind == SP_FILE_REGULAR && f->size > 0
                            ? " (content not included: over 256 KiB a file or 2 MiB of base64 "
                              "a run)"
                            : "");
      buf_append (text, line, strlen (line));
      free (line);
    }
  if (exited->files_truncated)
    buf_append (text, "[more files changed than are listed]\n",
                strlen ("[more files changed than are listed]\n"));
}

/* How much of a run's displays a result keeps: a plot or a table each,
 * not a loop's thousand. */
#define MAX_DISPLAYS 32
#define MAX_DISPLAY_BYTES (8 * 1024 * 1024)

void
mcp_result_add_display (McpCall *call, const SpDisplay *display)
{
  int64_t size = 0;

  for (size_t i = 0; i < display->n_items; i++)
    size += (int64_t) strlen (display->items[i].text);
  if (call->displays == NULL)
    call->displays = json_array ();
  if (json_array_size (call->displays) >= MAX_DISPLAYS
      || call->displays_bytes + size > MAX_DISPLAY_BYTES)
    {
      call->displays_truncated = true;
      return;
    }
  json_t *data = json_object ();
  for (size_t i = 0; i < display->n_items; i++)
    {
      const SpDisplayItem *item = &display->items[i];
      json_t *value = item->is_json ? json_loads (item->text, JSON_DECODE_ANY, NULL)
                                    : json_string (item->text);
      if (value != NULL)
        json_object_set_new (data, item->mime, value);
    }
  call->displays_bytes += size;
  json_array_append_new (call->displays, json_pack ("{s:o, s:I}", "data", data, "stdout_offset",
                                                    (json_int_t) call->out[0].seen));
}

/* The displays for a model: their text in the text block, images as
 * image blocks. */
static void
describe_displays (Buf *text, json_t *content, const McpCall *call)
{
  size_t i;
  json_t *entry;

  json_array_foreach (call->displays, i, entry)
    {
      json_t *data = json_object_get (entry, "data");
      const char *plain = json_string_value (json_object_get (data, "text/plain"));
      char *head = xasprintf ("--- result %zu ---\n", i + 1);
      buf_append (text, head, strlen (head));
      free (head);
      if (plain != NULL)
        {
          buf_append (text, plain, strlen (plain));
          if (plain[0] == '\0' || plain[strlen (plain) - 1] != '\n')
            buf_append (text, "\n", 1);
        }
      /* One image block per result, PNG first: a bundle may hold the same
       * picture twice (Debian 13's Pillow 11 gives a PIL image as PNG and
       * JPEG both). */
      static const char *const images[] = { "image/png", "image/jpeg", NULL };
      for (size_t k = 0; images[k] != NULL; k++)
        if (json_is_string (json_object_get (data, images[k])))
          {
            json_array_append_new (content, json_pack ("{s:s, s:O, s:s}", "type", "image", "data",
                                                       json_object_get (data, images[k]),
                                                       "mimeType", images[k]));
            break;
          }
    }
  if (call->displays_truncated)
    buf_append (text, "[more results were shown than are kept]\n",
                strlen ("[more results were shown than are kept]\n"));
}

json_t *
mcp_result_from_run (const McpCall *call, const SpExited *exited)
{
  const char *end = end_name (exited);
  int64_t cut[2];
  char *kept[2] = { mcp_capture_text (&call->out[0], &cut[0]),
                    mcp_capture_text (&call->out[1], &cut[1]) };
  bool truncated[2] = { exited->stdout_truncated || cut[0] > 0,
                        exited->stderr_truncated || cut[1] > 0 };
  bool failed = exited->end == SP_END_FAILED && exited->cancelled == SP_CANCEL_NONE;

  json_t *structured = json_pack (
    "{s:s, s:o, s:o, s:s, s:s, s:I, s:I, s:b, s:b, s:I, s:I, s:I, s:o, s:b}", "end", end,
    "exit_code", exited->end == SP_END_EXITED ? json_integer (exited->exit_code) : json_null (),
    "signal", exited->end == SP_END_SIGNALED ? json_integer (exited->signal) : json_null (),
    "stdout", kept[0], "stderr", kept[1], "stdout_bytes", (json_int_t) exited->stdout_bytes,
    "stderr_bytes", (json_int_t) exited->stderr_bytes, "stdout_truncated", truncated[0],
    "stderr_truncated", truncated[1], "duration_ms", (json_int_t) exited->wall_ms, "cpu_ms",
    (json_int_t) exited->cpu_ms, "peak_memory_bytes", (json_int_t) exited->peak_memory_bytes,
    "files", files_json (exited), "files_truncated", exited->files_truncated);
  if (structured == NULL)
    abort (); /* only invalid UTF-8 could get here, and the engine sanitizes */
  if (failed)
    json_object_set_new (structured, "failure",
                         json_string (exited->error ? exited->error : "unknown error"));
  if (exited->program_error != NULL)
    json_object_set_new (structured, "error", program_error_json (exited->program_error));
  if (call->sandbox.mode != NULL)
    {
      json_t *sandbox = json_pack ("{s:s, s:o, s:b}", "mode", call->sandbox.mode, "layers",
                                   strv_json (call->sandbox.layers), "warm", exited->warm);
      if (call->sandbox.waived != NULL && call->sandbox.waived[0] != NULL)
        json_object_set_new (sandbox, "waived", strv_json (call->sandbox.waived));
      json_object_set_new (structured, "sandbox", sandbox);
    }

  Buf text = { 0 };
  if (call->session[0] != '\0')
    {
      bool ended = exited->session_ended != SP_SESSION_END_NONE;
      json_object_set_new (
        structured, "session",
        json_pack ("{s:s, s:b, s:o, s:I}", "id", call->session, "new", call->session_new, "ended",
                   ended ? json_string (sp_session_end_to_string (exited->session_ended))
                         : json_null (),
                   "execution_count", (json_int_t) call->execution_count));
      char *line = NULL;
      if (ended)
        line = xasprintf ("Session %s ended (%s): its state is gone; the next call with it "
                          "starts a new one.\n",
                          call->session, sp_session_end_to_string (exited->session_ended));
      else if (call->session_new)
        line = xasprintf ("Session %s: a new interpreter (no state from earlier calls).\n",
                          call->session);
      if (line != NULL)
        buf_append (&text, line, strlen (line));
      free (line);
    }
  if (call->installed != NULL)
    {
      json_object_set (structured, "installed_packages", call->installed);
      buf_append (&text, "Installed for the script's metadata (PEP 723):",
                  strlen ("Installed for the script's metadata (PEP 723):"));
      size_t i;
      json_t *spec;
      json_array_foreach (call->installed, i, spec)
        {
          buf_append (&text, " ", 1);
          buf_append (&text, json_string_value (spec), strlen (json_string_value (spec)));
        }
      if (json_array_size (call->installed) == 0)
        buf_append (&text, " nothing new", strlen (" nothing new"));
      buf_append (&text, "\n", 1);
    }
  if (call->diff != NULL)
    {
      json_object_set_new (structured, "diff", json_string (call->diff));
      buf_append (&text, "The edit:\n", strlen ("The edit:\n"));
      buf_append (&text, call->diff, strlen (call->diff));
    }
  describe_end (&text, call, exited, end);
  describe_error (&text, exited->program_error);
  describe_stream (&text, call, 0, kept[0], cut[0], exited->stdout_bytes, exited->stdout_truncated,
                   call->output_limit);
  describe_stream (&text, call, 1, kept[1], cut[1], exited->stderr_bytes, exited->stderr_truncated,
                   call->output_limit);
  for (int s = 0; s < 2; s++)
    {
      char *path = whole_output_path (call, &call->out[s]);
      if (path != NULL)
        json_object_set_new (structured, s == 0 ? "stdout_file" : "stderr_file",
                             json_string (path));
      free (path);
    }
  json_t *images = json_array ();
  describe_displays (&text, images, call);
  if (call->displays != NULL && json_array_size (call->displays) > 0)
    json_object_set (structured, "displays", call->displays);
  if (call->displays_truncated)
    json_object_set_new (structured, "displays_truncated", json_true ());
  describe_files (&text, exited);
  buf_append (&text, "", 1);

  json_t *content = json_array ();
  json_array_append_new (content, json_pack ("{s:s, s:s}", "type", "text", "text", text.data));
  json_array_extend (content, images);
  json_decref (images);
  for (size_t i = 0; i < exited->n_files; i++)
    if (inline_image (&exited->files[i]))
      json_array_append_new (content, json_pack ("{s:s, s:s, s:s}", "type", "image", "data",
                                                 exited->files[i].base64, "mimeType",
                                                 exited->files[i].mime));
  mcp_files_resources (call, exited, content);
  buf_clear (&text);
  free (kept[0]);
  free (kept[1]);
  return json_pack ("{s:o, s:o, s:b}", "content", content, "structuredContent", structured,
                    "isError", failed);
}
