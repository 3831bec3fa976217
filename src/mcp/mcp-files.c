/* mcp-files.c: files both ways between an assistant and a run.
 *
 * In: execute_code's "files" ({path, content} or {path, base64}) land in
 * a fresh directory of ours before the run starts. The paths come from
 * the model, so each is a relative path of plain parts, made beneath
 * that directory one part at a time through directory fds, never
 * following a symlink; the bytes together stay within the run's disk cap.
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

#define MAX_INPUT_FILES 64

/* A relative path of plain components: no "..", no ".", no empty part,
 * nothing absolute, so a file can only land inside the call's directory. */
static bool
input_path_valid (const char *path)
{
  size_t len = strlen (path);

  if (len == 0 || len > 1024 || path[0] == '/' || path[len - 1] == '/')
    return false;
  for (const char *part = path; *part != '\0';)
    {
      size_t n = strcspn (part, "/");
      if (n == 0 || n > 255 || (n == 1 && part[0] == '.')
          || (n == 2 && part[0] == '.' && part[1] == '.'))
        return false;
      part += n + (part[n] == '/');
    }
  return true;
}

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

/* Writes one input file below dir_fd, making its parent directories one
 * part at a time: each directory is opened by the fd of the one above,
 * O_NOFOLLOW, so no symlink is ever followed, and the file is new
 * (O_EXCL). */
static int
write_input_file (int dir_fd, const char *path, const Buf *content, uid_t owner, SpProtoError *err)
{
  cleanup_free char *copy = xstrdup (path);
  cleanup_fd int fd = fcntl (dir_fd, F_DUPFD_CLOEXEC, 3);
  char *part = copy;

  for (char *slash; (slash = strchr (part, '/')) != NULL; part = slash + 1)
    {
      *slash = '\0';
      if (mkdirat (fd, part, 0755) != 0 && errno != EEXIST)
        return sp_proto_set_error (err, SP_ERR_IO, "cannot create the directory of \"%.200s\": %s",
                                   path, strerror (errno));
      int sub = openat (fd, part, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0)
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "\"%.200s\": %s", path,
                                   errno == ENOTDIR ? "a part of it is given as a file"
                                                    : strerror (errno));
      if (owner != geteuid ())
        (void) fchown (sub, owner, owner);
      close (fd);
      fd = sub;
    }
  cleanup_fd int file = openat (fd, part, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                0644);
  if (file < 0)
    return sp_proto_set_error (err, errno == EEXIST ? SP_ERR_INVALID_VALUE : SP_ERR_IO,
                               "cannot create \"%.200s\": %s", path,
                               errno == EEXIST ? "given twice" : strerror (errno));
  if (content->len > 0 && write_all (file, content->data, content->len) != 0)
    return sp_proto_set_error (err, SP_ERR_IO, "cannot write \"%.200s\": %s", path,
                               strerror (errno));
  /* The program runs as its own uid and may change what it was given. */
  if (owner != geteuid () && fchown (file, owner, owner) != 0)
    return sp_proto_set_error (err, SP_ERR_IO, "cannot hand over \"%.200s\": %s", path,
                               strerror (errno));
  return 0;
}

/* Checks every item and decodes its bytes into contents[i]; nothing is
 * written until all of them are good. */
static int
check_input_files (json_t *files, int64_t disk_limit, Buf *contents, SpProtoError *err)
{
  size_t i;
  json_t *item;
  int64_t total = 0;

  json_array_foreach (files, i, item)
    {
      static const char *const allowed[] = { "path", "content", "base64", NULL };
      json_t *path = json_is_object (item) ? json_object_get (item, "path") : NULL;
      json_t *content = json_is_object (item) ? json_object_get (item, "content") : NULL;
      json_t *b64 = json_is_object (item) ? json_object_get (item, "base64") : NULL;

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
      if (!input_path_valid (json_string_value (path)))
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                   "field \"files\" item %zu: path must be relative, without "
                                   "\".\" or \"..\" parts",
                                   i);
      if (content != NULL)
        buf_append (&contents[i], json_string_value (content), json_string_length (content));
      else if (base64_decode (json_string_value (b64), &contents[i]) != 0)
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                   "field \"files\" item %zu: base64 is not valid standard "
                                   "base64 (RFC 4648, padded, no spaces)",
                                   i);
      total += (int64_t) contents[i].len;
      if (disk_limit > 0 && total > disk_limit)
        return sp_proto_set_error (err, SP_ERR_LIMIT,
                                   "field \"files\": %lld bytes or more, over the run's disk "
                                   "cap of %lld bytes (input files count toward it)",
                                   (long long) total, (long long) disk_limit);
    }
  return 0;
}

/* Makes the call's directory, handed to the uid that runs programs, and
 * writes the checked files in it. */
static int
write_scratch (McpServer *server, McpCall *call, json_t *files, const Buf *contents,
               SpProtoError *err)
{
  uid_t owner = geteuid () == 0 ? RUNNER_SANDBOX_NOBODY : geteuid ();

  call->scratch = xasprintf ("%s/%s", server->options->scratch_root, call->run_id);
  if (mkdir (call->scratch, 0700) != 0)
    return sp_proto_set_error (err, SP_ERR_IO, "cannot create the run's directory: %s",
                               strerror (errno));
  /* The engine insists that a cwd belongs to the uid the program runs as,
   * so it is never a directory someone else relies on. */
  if (owner != geteuid () && chown (call->scratch, owner, owner) != 0)
    return sp_proto_set_error (err, SP_ERR_IO, "cannot hand over the run's directory: %s",
                               strerror (errno));
  cleanup_fd int dir_fd = open (call->scratch, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (dir_fd < 0)
    return sp_proto_set_error (err, SP_ERR_IO, "cannot open the run's directory: %s",
                               strerror (errno));
  for (size_t i = 0; i < json_array_size (files); i++)
    if (write_input_file (dir_fd,
                          json_string_value (json_object_get (json_array_get (files, i), "path")),
                          &contents[i], owner, err)
        != 0)
      return -1;
  return 0;
}

int
mcp_files_make_scratch (McpServer *server, McpCall *call, json_t *files, SpProtoError *err)
{
  size_t n = json_array_size (files);

  if (n > MAX_INPUT_FILES)
    return sp_proto_set_error (err, SP_ERR_LIMIT, "field \"files\" has more than %d entries",
                               MAX_INPUT_FILES);
  Buf *contents = xcalloc (n + 1, sizeof *contents);
  int rc = check_input_files (files, server->options->disk_limit, contents, err);
  if (rc == 0)
    rc = write_scratch (server, call, files, contents, err);
  for (size_t i = 0; i < n; i++)
    buf_clear (&contents[i]);
  free (contents);
  return rc;
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
