/* mcp-edit.c: edit_and_execute's edit, applied to a workspace file.
 *
 * The workspace is writable by every run, so whatever the assistant ran
 * before may have planted symlinks or hard links in it, and sandpad-mcp
 * may be root. Files are therefore reached only beneath the workspace
 * without following any symlink (openat2 RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS), must be regular, single-linked and owned by the
 * uid runs use, and are replaced by rename, which never writes through
 * whatever the name points at. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "mcp-server.h"
#include "sp-json.h"
#include "sp-utf8.h"

#define MAX_EDIT_FILE (4 * 1024 * 1024)

static uid_t
run_uid (void)
{
  return geteuid () == 0 ? RUNNER_SANDBOX_NOBODY : geteuid ();
}

/* Reads the file as text; *mode gets its permission bits. */
static char *
read_text (int ws, const char *path, mode_t *mode, SpProtoError *err)
{
  cleanup_fd int fd = openat_beneath (ws, path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW, 0);
  struct stat st;

  if (fd < 0)
    {
      sp_proto_set_error (err, SP_ERR_IO,
                          "field \"path\": cannot open \"%.200s\" in the "
                          "workspace: %s",
                          path,
                          errno == ELOOP || errno == EXDEV
                            ? "it leads through a symlink or out of it"
                            : strerror (errno));
      return NULL;
    }
  if (fstat (fd, &st) != 0 || !S_ISREG (st.st_mode) || st.st_nlink != 1 || st.st_uid != run_uid ()
      || st.st_size > MAX_EDIT_FILE)
    {
      sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                          "field \"path\": \"%.200s\" is not a regular file of the workspace "
                          "(single link, owned by the runs' uid, at most 4 MiB)",
                          path);
      return NULL;
    }
  char *text = xmalloc ((size_t) st.st_size + 1);
  size_t got = 0;
  ssize_t n;
  while (got < (size_t) st.st_size && (n = read (fd, text + got, (size_t) st.st_size - got)) > 0)
    got += (size_t) n;
  text[got] = '\0';
  if (got != (size_t) st.st_size || !sp_utf8_valid (text, got))
    {
      free (text);
      sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"path\": \"%.200s\" is not UTF-8 text",
                          path);
      return NULL;
    }
  *mode = st.st_mode & 0777;
  return text;
}

/* One edit as Anthropic's text editor tool sends it: str_replace
 * (old_str, new_str) or insert (insert_line, new_str); create is taken
 * by mcp_edit_file, since it is about the file, not its text. */
static char *
apply_editor_command (const char *current, json_t *edit, size_t i, SpProtoError *err)
{
  const char *command = json_string_value (json_object_get (edit, "command"));
  cleanup_free char *old = NULL, *new = NULL;
  int64_t line = -1;

  if (strcmp (command, "str_replace") == 0)
    {
      static const char *const allowed[] = { "command", "old_str", "new_str", NULL };
      if (sp_json_check_fields (edit, "edits[]", allowed, err) != 0
          || sp_json_get_string (edit, "old_str", true, &old, err) != 0
          || sp_json_get_string (edit, "new_str", false, &new, err) != 0)
        return NULL;
    }
  else if (strcmp (command, "insert") == 0)
    {
      static const char *const allowed[] = { "command", "insert_line", "new_str", NULL };
      if (sp_json_check_fields (edit, "edits[]", allowed, err) != 0
          || sp_json_get_int (edit, "insert_line", true, 0, INT32_MAX, &line, err) != 0
          || sp_json_get_string (edit, "new_str", true, &new, err) != 0)
        return NULL;
    }
  else
    {
      sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"edits\" item %zu: command %s", i,
                          strcmp (command, "create") == 0
                            ? "create must be the first edit"
                            : "must be str_replace, insert or create (view and undo_edit do "
                              "not edit)");
      return NULL;
    }
  if (old != NULL)
    {
      const char *hit = old[0] ? strstr (current, old) : NULL;
      if (hit == NULL || strstr (hit + 1, old) != NULL)
        {
          sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                              "field \"edits\" item %zu: old_str %s; nothing was changed", i,
                              old[0] == '\0' ? "is empty"
                              : hit == NULL  ? "is not in the file"
                                             : "occurs more than once (add context)");
          return NULL;
        }
      return xasprintf ("%.*s%s%s", (int) (hit - current), current, new ? new : "",
                        hit + strlen (old));
    }
  /* insert: new_str becomes whole lines after line insert_line (0: at
   * the top), as the editor tool's own implementation does it. */
  const char *at = current;
  for (int64_t n = 0; n < line; n++)
    {
      const char *eol = strchr (at, '\n');
      if (eol == NULL && at[0] != '\0' && n == line - 1)
        {
          at += strlen (at);
          break;
        }
      if (eol == NULL)
        {
          sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                              "field \"edits\" item %zu: insert_line %lld is past the end of "
                              "the file; nothing was changed",
                              i, (long long) line);
          return NULL;
        }
      at = eol + 1;
    }
  size_t len = strlen (new);
  bool need_before = at > current && at[-1] != '\n';
  bool need_after = len == 0 || new[len - 1] != '\n';
  return xasprintf ("%.*s%s%s%s%s", (int) (at - current), current, need_before ? "\n" : "", new,
                    need_after ? "\n" : "", at);
}

/* Applies every edit in order, each to the result of the ones before;
 * an old_text (or old_str) that is missing or occurs twice fails the
 * whole call. */
static char *
apply_edits (const char *text, json_t *edits, size_t first, SpProtoError *err)
{
  char *current = xstrdup (text);
  size_t i;
  json_t *edit;

  json_array_foreach (edits, i, edit)
    {
      if (i < first)
        continue;
      if (json_is_object (edit) && json_is_string (json_object_get (edit, "command")))
        {
          char *next = apply_editor_command (current, edit, i, err);
          free (current);
          if (next == NULL)
            return NULL;
          current = next;
          if (strlen (current) > MAX_EDIT_FILE)
            {
              sp_proto_set_error (err, SP_ERR_LIMIT, "the edited file would pass 4 MiB");
              free (current);
              return NULL;
            }
          continue;
        }
      static const char *const allowed[] = { "old_text", "new_text", NULL };
      json_t *old_text = json_is_object (edit) ? json_object_get (edit, "old_text") : NULL;
      json_t *new_text = json_is_object (edit) ? json_object_get (edit, "new_text") : NULL;

      if (!json_is_object (edit) || sp_json_check_fields (edit, "edits[]", allowed, err) != 0
          || !json_is_string (old_text) || !json_is_string (new_text))
        {
          if (err->code == SP_ERR_NONE)
            sp_proto_set_error (err, SP_ERR_WRONG_TYPE,
                                "field \"edits\" item %zu must be "
                                "{\"old_text\": string, \"new_text\": string} or a text "
                                "editor command",
                                i);
          free (current);
          return NULL;
        }
      const char *old = json_string_value (old_text);
      const char *hit = old[0] ? strstr (current, old) : NULL;
      if (hit == NULL || strstr (hit + 1, old) != NULL)
        {
          sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                              "field \"edits\" item %zu: old_text %s; nothing was changed", i,
                              old[0] == '\0' ? "is empty"
                              : hit == NULL  ? "is not in the file"
                                             : "occurs more than once (add context)");
          free (current);
          return NULL;
        }
      const char *new = json_string_value (new_text);
      size_t before = (size_t) (hit - current), old_len = strlen (old);
      char *next = xasprintf ("%.*s%s%s", (int) before, current, new, hit + old_len);
      free (current);
      current = next;
      if (strlen (current) > MAX_EDIT_FILE)
        {
          sp_proto_set_error (err, SP_ERR_LIMIT, "the edited file would pass 4 MiB");
          free (current);
          return NULL;
        }
    }
  return current;
}

/* Writes text to a fresh file beside the target and renames it over. */
static int
replace_file (int ws, const char *path, const char *text, mode_t mode, bool create,
              SpProtoError *err)
{
  cleanup_free char *dir = xstrdup (path);
  char *slash = strrchr (dir, '/');
  const char *base = slash ? slash + 1 : path;
  if (slash)
    *slash = '\0';
  cleanup_fd int dir_fd = slash ? openat_beneath (ws, dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0)
                                : fcntl (ws, F_DUPFD_CLOEXEC, 3);
  if (dir_fd < 0)
    return sp_proto_set_error (err, SP_ERR_IO, "cannot open the directory of \"%.200s\": %s", path,
                               strerror (errno));

  cleanup_free char *tmp = xasprintf (".%.200s.sandpad-%d-%lld", base, (int) getpid (),
                                      (long long) now_ns ());
  cleanup_fd int fd = openat (dir_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                              mode & 0777);
  if (fd < 0)
    return sp_proto_set_error (err, SP_ERR_IO, "cannot write beside \"%.200s\": %s", path,
                               strerror (errno));
  /* Owned by the runs' uid, as the file it replaces was, so the next run
   * may change it. */
  if (write_all (fd, text, strlen (text)) != 0 || fchmod (fd, mode & 0777) != 0
      || (geteuid () != run_uid () && fchown (fd, run_uid (), run_uid ()) != 0) || fsync (fd) != 0
      || (create ? renameat2 (dir_fd, tmp, dir_fd, base, RENAME_NOREPLACE)
                 : renameat (dir_fd, tmp, dir_fd, base))
           != 0)
    {
      int errsv = errno;
      unlinkat (dir_fd, tmp, 0);
      return sp_proto_set_error (err, SP_ERR_IO, "cannot %s \"%.200s\": %s",
                                 create ? "create" : "replace", path,
                                 create && errsv == EEXIST ? "it exists now" : strerror (errsv));
    }
  return 0;
}

int
mcp_edit_file (const char *workspace, const char *path, json_t *edits, char **new_text, char **diff,
               SpProtoError *err)
{
  cleanup_fd int ws = open (workspace, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  mode_t mode = 0644;

  if (ws < 0)
    return sp_proto_set_error (err, SP_ERR_IO, "cannot open the workspace: %s", strerror (errno));
  if (path[0] == '/' || path[0] == '\0')
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                               "field \"path\" must be relative to the workspace");
  if (json_array_size (edits) == 0)
    return sp_proto_set_error (err, SP_ERR_INVALID_VALUE, "field \"edits\" is empty");

  /* create (the editor tool's): a new file from file_text, which later
   * edits of the same call may change; never over an existing one. */
  json_t *first = json_array_get (edits, 0);
  const char *command = json_string_value (json_object_get (first, "command"));
  bool create = command != NULL && strcmp (command, "create") == 0;
  cleanup_free char *before = NULL;
  cleanup_free char *file_text = NULL;
  if (create)
    {
      static const char *const allowed[] = { "command", "file_text", NULL };
      if (sp_json_check_fields (first, "edits[]", allowed, err) != 0
          || sp_json_get_string (first, "file_text", true, &file_text, err) != 0)
        return -1;
      struct stat st;
      cleanup_fd int probe = openat_beneath (ws, path, O_PATH | O_NOFOLLOW, 0);
      if (probe >= 0 || errno == ELOOP || errno == EXDEV)
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                   "field \"path\": create: \"%.200s\" %s; nothing was "
                                   "changed",
                                   path,
                                   probe >= 0 && fstat (probe, &st) == 0
                                     ? "already exists (use str_replace or insert)"
                                     : "leads through a symlink or out of the workspace");
      if (strlen (file_text) > MAX_EDIT_FILE || !sp_utf8_valid (file_text, strlen (file_text)))
        return sp_proto_set_error (err, SP_ERR_INVALID_VALUE,
                                   "create: file_text must be UTF-8 text of at most 4 MiB");
      before = xstrdup ("");
    }
  else if ((before = read_text (ws, path, &mode, err)) == NULL)
    return -1;
  char *after = apply_edits (create ? file_text : before, edits, create ? 1 : 0, err);
  if (after == NULL)
    return -1;
  if (replace_file (ws, path, after, mode, create, err) != 0)
    {
      free (after);
      return -1;
    }
  *diff = mcp_diff (path, before, after);
  *new_text = after;
  return 0;
}
