/* journal-check.c: decodes every line of journal files strictly, for the
 * tests of the writer (sandpad-mcp): what it writes must be what the
 * app's reader takes, line for line.
 *
 * usage: journal-check live|runs FILE...
 *
 * Prints each refused line's file, number and reason on stderr; exits 1
 * if any line was refused (or a file is missing), else 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp-journal.h"

static int
check_file (const char *path, SpJournalFile kind)
{
  FILE *file = fopen (path, "rb");
  char *data = NULL;
  size_t cap = 0;
  ssize_t n;
  int bad = 0;

  if (file == NULL)
    {
      perror (path);
      return 1;
    }
  for (long number = 1; (n = getline (&data, &cap, file)) > 0; number++)
    {
      SpJournalLine line;
      SpProtoError err = { 0 };
      bool ended = data[n - 1] == '\n';

      if (!ended)
        {
          fprintf (stderr, "%s:%ld: the last line has no newline\n", path, number);
          bad = 1;
          continue;
        }
      if (sp_journal_decode (data, (size_t) n - 1, kind, &line, &err) != 0)
        {
          fprintf (stderr, "%s:%ld: %s: %s\n", path, number,
                   sp_proto_error_code_to_string (err.code), err.message);
          bad = 1;
        }
      sp_journal_line_clear (&line);
    }
  free (data);
  fclose (file);
  return bad;
}

int
main (int argc, char **argv)
{
  int bad = 0;

  if (argc < 3 || (strcmp (argv[1], "live") != 0 && strcmp (argv[1], "runs") != 0))
    {
      fprintf (stderr, "usage: %s live|runs FILE...\n", argv[0]);
      return 2;
    }
  for (int i = 2; i < argc; i++)
    bad |= check_file (argv[i], strcmp (argv[1], "live") == 0 ? SP_JOURNAL_LIVE : SP_JOURNAL_RUNS);
  return bad;
}
