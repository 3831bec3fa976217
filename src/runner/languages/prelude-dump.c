/* prelude-dump.c: writes the Python prelude (runner-prelude.py) to a file
 * while the runner is built, for prelude-pyc.py to compile. Not
 * installed. */
#include <stdio.h>
#include <string.h>

#include "runner-prelude.h"

int
main (int argc, char **argv)
{
  FILE *out = argc == 2 ? fopen (argv[1], "w") : NULL;

  if (out == NULL)
    {
      fputs ("usage: prelude-dump OUTPUT.py\n", stderr);
      return 1;
    }
  fwrite (runner_python_prelude, 1, strlen (runner_python_prelude), out);
  return fclose (out) == 0 ? 0 : 1;
}
