/* test-seccomp-prebuilt.c: the seccomp filters the runner takes from the
 * table built with it (runner-seccomp-prebuilt.c) are, byte for byte, the
 * filters libseccomp builds now from the same rules, for every policy. A
 * stale table, or one built from other rules, fails here; so does a table
 * that is missing, since runner_seccomp_prebuilt() must then answer -1.
 * Control: the policies' filters differ from each other, so the
 * comparison can tell two filters apart.
 *
 * Prints TAP. */
#include <stdbool.h>
#include <string.h>

#include "runner-seccomp.h"
#include "tap.h"

static bool
same_program (const struct sock_fprog *a, const struct sock_fprog *b)
{
  return a->len == b->len && a->len > 0
         && memcmp (a->filter, b->filter, a->len * sizeof *a->filter) == 0;
}

int
main (void)
{
  RunnerSeccompFilter now[4], table[4];

  plan (4 * 3 + 2);
  for (int i = 0; i < 4; i++)
    {
      RunnerSeccompPolicy policy = { .fallback = i & 1, .network = (i & 2) != 0 };
      const char *name = policy.fallback ? (policy.network ? "fallback, network" : "fallback")
                                         : (policy.network ? "namespaces, network" : "namespaces");

      ok (runner_seccomp_prebuilt (&policy, &table[i]) == 0, "%s: the table has the filters", name);
      ok (runner_seccomp_compile_now (&policy, &now[i]) == 0, "%s: libseccomp builds them", name);
      ok (same_program (&table[i].allow, &now[i].allow)
            && same_program (&table[i].rules, &now[i].rules),
          "%s: the table's allow list and rules are libseccomp's, byte for byte", name);
    }
  /* Controls: fallback adds rules, network removes some. */
  ok (!same_program (&now[0].rules, &now[1].rules), "control: namespace and fallback rules differ");
  ok (!same_program (&now[0].rules, &now[2].rules), "control: network on and off rules differ");
  for (int i = 0; i < 4; i++)
    {
      runner_seccomp_clear (&now[i]);
      runner_seccomp_clear (&table[i]);
    }
  return done_testing ();
}
