/* test-input-files.c: runner-input-files.c, the writer of a run's input
 * files, on a real directory: it writes beneath the directory's fd, and
 * what a session's code may have planted at a path (a symlink to a file
 * outside, a symlinked directory, a FIFO nobody reads, a directory, a
 * hard link, a file of another uid) is refused with the path and the
 * reason, the file outside unchanged; each probe with a control that
 * shows a plain open would have gone through. The set's checks too. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../protocol/tap.h"
#include "runner-base.h"
#include "runner-input-files.h"

static char *
read_text (const char *path)
{
  static char buf[256];
  int fd = open (path, O_RDONLY | O_CLOEXEC);
  ssize_t n = fd >= 0 ? read (fd, buf, sizeof buf - 1) : -1;

  if (fd >= 0)
    close (fd);
  buf[n > 0 ? n : 0] = '\0';
  return buf;
}

static void
put_text (const char *path, const char *text)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

  if (fd >= 0)
    {
      (void) !write (fd, text, strlen (text));
      close (fd);
    }
}

/* Writes one file at path with "pwned"; the message, or "" when it went. */
static const char *
write_one (int dir_fd, const char *path, uid_t owner)
{
  static SpProtoError err;
  RunnerInputFile file = { .path = (char *) path, .data = (char *) "pwned", .len = 5 };

  err = (SpProtoError){ 0 };
  if (runner_input_files_write (dir_fd, &file, 1, owner, &err) == 0)
    return "";
  return err.message;
}

int
main (void)
{
  char root[] = "/tmp/sandpad-input-files-XXXXXX";
  uid_t me = geteuid ();

  plan (19);
  if (mkdtemp (root) == NULL)
    return 1;
  char *dir = xasprintf ("%s/dir", root);
  char *outside = xasprintf ("%s/outside", root);
  char *secret = xasprintf ("%s/secret.txt", outside);
  mkdir (dir, 0755);
  mkdir (outside, 0755);
  put_text (secret, "original");
  int dir_fd = open (dir, O_PATH | O_DIRECTORY | O_CLOEXEC);

  /* Lands, parents made; a file of the owner already there is replaced. */
  RunnerInputFile files[] = { { (char *) "a/b/c.txt", (char *) "hello", 5 },
                              { (char *) "top.bin", (char *) "x\0y", 3 } };
  SpProtoError err = { 0 };
  char *path = xasprintf ("%s/a/b/c.txt", dir);
  ok (runner_input_files_write (dir_fd, files, 2, me, &err) == 0
        && strcmp (read_text (path), "hello") == 0,
      "files land beneath the directory, parents made: %s", err.message);
  put_text (path, "a much longer text than hello");
  ok (strcmp (write_one (dir_fd, "a/b/c.txt", me), "") == 0
        && strcmp (read_text (path), "pwned") == 0,
      "an existing regular file of the owner is replaced, truncated");
  free (path);

  /* A symlink at the path, to a file outside. */
  char *planted = xasprintf ("%s/planted.txt", dir);
  symlink (secret, planted);
  put_text (planted, "control");
  ok (strcmp (read_text (secret), "control") == 0,
      "control: a plain open writes through the planted symlink");
  put_text (secret, "original");
  const char *msg = write_one (dir_fd, "planted.txt", me);
  ok (strstr (msg, "planted.txt") != NULL && strstr (msg, "symlink") != NULL,
      "a symlink at the path is refused, named: %s", msg);
  ok (strcmp (read_text (secret), "original") == 0, "the file outside is unchanged");

  /* A symlinked directory on the way. */
  char *dlink = xasprintf ("%s/pdir", dir);
  symlink (outside, dlink);
  msg = write_one (dir_fd, "pdir/new.txt", me);
  char *made_outside = xasprintf ("%s/new.txt", outside);
  ok (strstr (msg, "symlink") != NULL && access (made_outside, F_OK) != 0,
      "a symlinked directory on the way is refused, nothing made outside: %s", msg);

  /* A FIFO nobody reads: a blocking open would wait forever. */
  char *fifo = xasprintf ("%s/fifo", dir);
  mkfifo (fifo, 0644);
  msg = write_one (dir_fd, "fifo", me);
  ok (strstr (msg, "FIFO") != NULL, "a FIFO without a reader is refused at once: %s", msg);
  /* One with a reader opens: the type check refuses it. */
  int reader = open (fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  msg = write_one (dir_fd, "fifo", me);
  ok (reader >= 0 && strstr (msg, "not a regular file") != NULL,
      "a FIFO with a reader is refused as not a regular file: %s", msg);
  if (reader >= 0)
    close (reader);

  /* A directory, a hard link, a file of another uid. */
  char *sub = xasprintf ("%s/adir", dir);
  mkdir (sub, 0755);
  msg = write_one (dir_fd, "adir", me);
  ok (strstr (msg, "directory") != NULL, "a directory at the path is refused: %s", msg);
  char *one = xasprintf ("%s/one", dir), *two = xasprintf ("%s/two", dir);
  put_text (one, "1");
  ok (link (one, two) == 0, "control: a hard link can be made");
  msg = write_one (dir_fd, "two", me);
  ok (strstr (msg, "hard link") != NULL && strcmp (read_text (one), "1") == 0,
      "a hard link is refused, its other name unchanged: %s", msg);
  char *theirs = xasprintf ("%s/theirs", dir);
  put_text (theirs, "theirs");
  msg = write_one (dir_fd, "theirs", me + 1);
  ok (strstr (msg, "another user") != NULL && strcmp (read_text (theirs), "theirs") == 0,
      "a file of another uid than the run's is refused: %s", msg);

  /* The set's checks. */
  static const struct
  {
    const char *a, *b;
    const char *why;
  } bad[] = {
    { "../x", NULL, "relative" }, { "/etc/x", NULL, "relative" }, { "a/./b", NULL, "relative" },
    { "a//b", NULL, "relative" }, { "x", "x", "given twice" },    { "x", "x/y", "directory" },
  };
  for (size_t i = 0; i < N_ELEMENTS (bad); i++)
    {
      RunnerInputFile set[2] = { { (char *) bad[i].a, (char *) "", 0 },
                                 { (char *) bad[i].b, (char *) "", 0 } };
      err = (SpProtoError){ 0 };
      ok (runner_input_files_check (set, bad[i].b ? 2 : 1, 0, &err) != 0
            && strstr (err.message, bad[i].why) != NULL,
          "refused: %s%s%s: %s", bad[i].a, bad[i].b ? " and " : "", bad[i].b ? bad[i].b : "",
          err.message);
    }
  RunnerInputFile big = { (char *) "big", (char *) "0123456789", 10 };
  err = (SpProtoError){ 0 };
  ok (runner_input_files_check (&big, 1, 9, &err) != 0 && err.code == SP_ERR_LIMIT
        && runner_input_files_check (&big, 1, 10, &err) == 0,
      "the disk cap holds for the bytes in all, exactly");

  close (dir_fd);
  remove_tree (root);
  free (dir);
  free (outside);
  free (secret);
  free (planted);
  free (dlink);
  free (made_outside);
  free (fifo);
  free (sub);
  free (one);
  free (two);
  free (theirs);
  return done_testing ();
}
