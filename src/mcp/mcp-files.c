/* mcp-files.c: files both ways between an assistant and a run.
 *
 * In: execute_code's "files" ({path, content} or {path, base64}) are
 * checked and decoded here; the engine writes them into the run's
 * directory, or its session's, as the run starts
 * (runner-input-files.c: beneath the held directory fd, never through a
 * symlink nor over what is not plainly the program's file); the bytes
 * together stay within the run's disk cap.
 *
 * Out: files the run created or changed come back as MCP embedded
 * resources (text, or a base64 blob with its MIME type) while they fit
 * the runner's caps (return_files: SP_FILE_INLINE_MAX a file, 2 MiB of
 * base64 a run); the rest are listed, and files of the workspace, which
 * stays, get a resource_link the client can open. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mcp-server.h"
#include "sp-json.h"

static int
base64_value (unsigned char c)
{
  if (c >= 'A' && c <= 'Z')
    return c - 'A';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 26;
  if (c >= '0' && c <= '9')
    return c - '0' + 52;
  if (c == '+')
    return 62;
  if (c == '/')
    return 63;
  return -1;
}

/* Standard base64 (RFC 4648 section 4), padded, strictly: no white space,
 * no other alphabet, no bits left over; -1 otherwise. */
static int
base64_decode (const char *text, Buf *out)
{
  size_t len = strlen (text);

  if (len % 4 != 0)
    return -1;
  for (size_t i = 0; i < len; i += 4)
    {
      int v[4];
      int pad = 0;
      for (int k = 0; k < 4; k++)
        {
          v[k] = base64_value ((unsigned char) text[i + k]);
          if (text[i + k] == '=' && i + 4 == len && k >= 2)
            {
              pad++;
              v[k] = 0;
            }
          else if (v[k] < 0 || pad > 0)
            return -1;
        }
      uint32_t bits = (uint32_t) v[0] << 18 | (uint32_t) v[1] << 12 | (uint32_t) v[2] << 6
                      | (uint32_t) v[3];
      unsigned char bytes[3] = { (unsigned char) (bits >> 16), (unsigned char) (bits >> 8),
                                 (unsigned char) bits };
      /* Bits past the last byte must be zero, so one text is one value. */
      if ((pad == 1 && (bits & 0xff) != 0) || (pad == 2 && (bits & 0xffff) != 0))
        return -1;
      buf_append (out, (const char *) bytes, (size_t) (3 - pad));
    }
  return 0;
}

/* Checks every item and decodes its bytes into call->input_files; the set as
 * a whole (paths, the disk cap) by the engine's own rules, so a call is
 * refused before anything is written or queued. */
int
mcp_files_input (const McpOptions *options, McpCall *call, json_t *files, SpProtoError *err)
{
  size_t n = json_array_size (files);
  size_t i;
  json_t *item;

  if (n > RUNNER_INPUT_FILES_MAX)
    return sp_proto_set_error (err, SP_ERR_LIMIT, "field \"files\" has more than %d entries",
                               RUNNER_INPUT_FILES_MAX);
  call->input_files = xcalloc (n + 1, sizeof *call->input_files);
  json_array_foreach (files, i, item)
    {
      static const char *const allowed[] = { "path", "content", "base64", NULL };
      json_t *path = json_is_object (item) ? json_object_get (item, "path") : NULL;
      json_t *content = json_is_object (item) ? json_object_get (item, "content") : NULL;
      json_t *b64 = json_is_object (item) ? json_object_get (item, "base64") : NULL;
      Buf bytes = { 0 };

      if (!json_is_object (item) || sp_json_check_fields (item, "files[]", allowed, err) != 0
          || !json_is_string (path) || (content == NULL) == (b64 == NULL)
          || (content != NULL && !json_is_string (content))
          || (b64 != NULL && !json_is_string (b64)))
        return err->code != SP_ERR_NONE
                 ? -1
                 : sp_proto_set_error (err, SP_ERR_WRONG_TYPE,
                                       "field \"files\" item %zu must be {\"path\": string, "
                                       "\"content\": string} or {\"path\": string, "
                                       "\"base64\": string}",
                                       i);
      if (content != NULL)
        buf_append (&bytes, json_string_value (content), json_string_length (content));
      else if (base64_decode (json_string_value (b64), &bytes) != 0)
        {
          buf_clear (&bytes);
          return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                     "field \"files\" item %zu: base64 is not valid standard "
                                     "base64 (RFC 4648, padded, no spaces)",
                                     i);
        }
      call->input_files[i].path = xstrdup (json_string_value (path));
      call->input_files[i].len = bytes.len;
      call->input_files[i].data = bytes.data != NULL ? bytes.data : xstrdup ("");
      call->n_input_files = i + 1;
    }
  SpProtoError set = { 0 };
  if (runner_input_files_check (call->input_files, call->n_input_files, options->disk_limit, &set)
      != 0)
    return sp_proto_set_error (err, set.code, "field \"files\": %s", set.message);
  return 0;
}

/* ---- Out ------------------------------------------------------------ */

static bool
is_image_block (const SpFileInfo *file)
{
  return file->mime != NULL
         && (strcmp (file->mime, "image/png") == 0 || strcmp (file->mime, "image/jpeg") == 0
             || strcmp (file->mime, "image/gif") == 0);
}

/* Text a model can read as it is: valid UTF-8 without NUL. */
static bool
is_text (const Buf *bytes)
{
  json_t *probe = json_stringn (bytes->data ? bytes->data : "", bytes->len);
  bool text = probe != NULL && memchr (bytes->data ? bytes->data : "", '\0', bytes->len) == NULL;

  json_decref (probe);
  return text;
}

/* Percent-encodes a relative path for a URI (RFC 3986: unreserved and
 * "/" kept). */
static void
append_uri_path (Buf *uri, const char *path)
{
  static const char hex[] = "0123456789ABCDEF";

  for (const unsigned char *p = (const unsigned char *) path; *p != '\0'; p++)
    {
      if ((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9')
          || strchr ("-._~/", *p) != NULL)
        buf_append (uri, (const char *) p, 1);
      else
        {
          char esc[3] = { '%', hex[*p >> 4], hex[*p & 15] };
          buf_append (uri, esc, 3);
        }
    }
}

bool
mcp_files_inline (const SpFileInfo *file)
{
  return file->base64 != NULL && file->kind == SP_FILE_REGULAR && file->name == NULL
         && !file->name_left_out && !is_image_block (file);
}

void
mcp_files_resources (const McpCall *call, const SpExited *exited, json_t *content)
{
  for (size_t i = 0; i < exited->n_files; i++)
    {
      const SpFileInfo *f = &exited->files[i];
      const char *mime = f->mime != NULL && f->mime[0] != '\0' ? f->mime
                                                               : "application/octet-stream";
      Buf uri = { 0 };

      if (f->kind != SP_FILE_REGULAR || is_image_block (f) || f->name != NULL || f->name_left_out)
        continue; /* images are image blocks; names that do not spell the file stay listed */
      if (mcp_files_inline (f))
        {
          Buf bytes = { 0 };
          if (base64_decode (f->base64, &bytes) != 0)
            continue; /* the runner's encoder made it; only defence */
          buf_append (&uri, "sandpad://run/", strlen ("sandpad://run/"));
          buf_append (&uri, call->run_id, strlen (call->run_id));
          buf_append (&uri, "/", 1);
          append_uri_path (&uri, f->path);
          buf_append (&uri, "", 1);
          json_t *resource = json_pack ("{s:s, s:s}", "uri", uri.data, "mimeType", mime);
          if (is_text (&bytes))
            json_object_set_new (resource, "text",
                                 json_stringn (bytes.data ? bytes.data : "", bytes.len));
          else
            json_object_set_new (resource, "blob", json_string (f->base64));
          json_array_append_new (content, json_pack ("{s:s, s:o}", "type", "resource", "resource",
                                                     resource));
          buf_clear (&bytes);
        }
      else if (call->workspace_dir != NULL)
        {
          /* Over the caps, but the workspace stays: a link the client can
           * open itself. */
          buf_append (&uri, "file://", strlen ("file://"));
          append_uri_path (&uri, call->workspace_dir);
          buf_append (&uri, "/", 1);
          append_uri_path (&uri, f->path);
          buf_append (&uri, "", 1);
          json_array_append_new (content,
                                 json_pack ("{s:s, s:s, s:s, s:s, s:I}", "type", "resource_link",
                                            "uri", uri.data, "name", f->path, "mimeType", mime,
                                            "size", (json_int_t) f->size));
        }
      buf_clear (&uri);
    }
}
