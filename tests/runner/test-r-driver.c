/* test-r-driver.c: the R driver a cold run hands Rscript as -e fits what R
 * reads of it (issue 42). R takes at most 10,000 bytes of -e, counted after
 * Rscript writes each space as "~+~" and each newline as "~n~"; past that
 * it drops the expression and reads commands from stdin, so a run's input
 * became code. The driver's comments alone once took it past. */
#include <stdlib.h>
#include <string.h>

#include "../protocol/tap.h"
#include "runner-langs.h"

int
main (void)
{
  char *expression = runner_r_driver_expression ();
  size_t encoded = 0, comments = 0;

  plan (3);
  for (const char *c = expression; *c != '\0'; c++)
    encoded += (*c == ' ' || *c == '\n') ? 3 : 1;
  for (const char *line = expression; line != NULL && *line != '\0';
       line = strchr (line, '\n') ? strchr (line, '\n') + 1 : NULL)
    comments += line[0] == '#';
  ok (encoded < 10000, "the driver as Rscript passes -e is %zu bytes, under R's 10,000", encoded);
  ok (comments == 0, "no comment line is passed (%zu)", comments);
  ok (strstr (expression, "run_file <- function (f)") != NULL
        || strstr (expression, "run_file <- function(f)") != NULL,
      "the code itself is there");
  free (expression);
  return done_testing ();
}
