/* test-sandbox-policy.c: the policy card's words for the layers a runner
 * reports: the full set says so, every missing layer is named, unknown and
 * suffixed names are handled. */
#include "config.h"

#include "sp-sandbox-policy.h"

static gboolean
any_contains (const char *const *lines, const char *needle)
{
  for (guint i = 0; lines != NULL && lines[i] != NULL; i++)
    if (strstr (lines[i], needle) != NULL)
      return TRUE;
  return FALSE;
}

static void
test_full_namespaces (void)
{
  const char *layers[] = { "namespaces:user,pid,mount,net,ipc,uts,cgroup",
                           "private-root",
                           "uid:1000",
                           "rlimits",
                           "clean-env",
                           "caps-dropped",
                           "no-new-privs",
                           "landlock:7",
                           "seccomp",
                           "network:off",
                           NULL };
  g_autoptr (SpSandboxPolicy) p = sp_sandbox_policy_new ("namespaces", layers);

  g_assert_false (sp_sandbox_policy_is_reduced (p));
  g_assert_cmpuint (g_strv_length ((char **) sp_sandbox_policy_get_warnings (p)), ==, 0);
  g_assert_true (g_str_has_prefix (sp_sandbox_policy_get_title (p), "Strong isolation"));
  g_assert_true (any_contains (sp_sandbox_policy_get_facts (p), "none of your files"));
  g_assert_true (any_contains (sp_sandbox_policy_get_facts (p), "uid 1000"));
}

/* Fallback without Landlock and seccomp: the worst a runner without
 * --strict may run with, and the card must say what it means. */
static void
test_fallback_degraded (void)
{
  const char *layers[] = { "uid:65534",    "subreaper",    "rlimits",     "clean-env",
                           "caps-dropped", "no-new-privs", "network:off", NULL };
  g_autoptr (SpSandboxPolicy) p = sp_sandbox_policy_new ("fallback", layers);
  const char *const *warnings = sp_sandbox_policy_get_warnings (p);

  g_assert_true (sp_sandbox_policy_is_reduced (p));
  g_assert_true (g_str_has_prefix (sp_sandbox_policy_get_title (p), "Reduced isolation"));
  g_assert_true (any_contains (warnings, "every file your user account can"));
  g_assert_true (any_contains (warnings, "seccomp is missing"));
  g_assert_true (any_contains (warnings, "other processes"));
  g_assert_false (any_contains (sp_sandbox_policy_get_facts (p), "own folder"));
}

static void
test_fallback_with_landlock (void)
{
  const char *layers[] = { "uid:65534",         "rlimits",
                           "clean-env",         "caps-dropped",
                           "no-new-privs",      "landlock:6",
                           "seccomp:allowlist", "memory:rlimit-data,tree-watch",
                           "network:off",       NULL };
  g_autoptr (SpSandboxPolicy) p = sp_sandbox_policy_new ("fallback", layers);
  const char *const *warnings = sp_sandbox_policy_get_warnings (p);

  g_assert_true (sp_sandbox_policy_is_reduced (p));
  g_assert_false (any_contains (warnings, "Landlock"));
  /* A suffix on seccomp still counts as seccomp. */
  g_assert_false (any_contains (warnings, "seccomp"));
  g_assert_true (any_contains (sp_sandbox_policy_get_facts (p), "writes only its own folder"));
  g_assert_true (any_contains (sp_sandbox_policy_get_facts (p), "per process"));
}

/* Without a cgroup, the tree watch's socket count is named as such. */
static void
test_memory_socket_queues (void)
{
  const char *layers[] = { "uid:65534",         "rlimits",
                           "clean-env",         "caps-dropped",
                           "no-new-privs",      "landlock:6",
                           "seccomp:allowlist", "memory:rlimit-data,tree-watch,socket-queues",
                           "network:off",       NULL };
  g_autoptr (SpSandboxPolicy) p = sp_sandbox_policy_new ("fallback", layers);
  const char *const *facts = sp_sandbox_policy_get_facts (p);

  g_assert_true (any_contains (facts, "what its sockets hold"));
  g_assert_false (any_contains (facts, "per process"));
  g_assert_false (any_contains (facts, "(cgroup)"));
}

/* With pipes counted too, the card says so, and no longer that they are
 * left out. */
static void
test_memory_pipe_queues (void)
{
  const char *layers[]
    = { "uid:65534",         "rlimits",
        "clean-env",         "caps-dropped",
        "no-new-privs",      "landlock:6",
        "seccomp:allowlist", "memory:rlimit-data,tree-watch,socket-queues,pipe-queues",
        "network:off",       NULL };
  g_autoptr (SpSandboxPolicy) p = sp_sandbox_policy_new ("fallback", layers);
  const char *const *facts = sp_sandbox_policy_get_facts (p);

  g_assert_true (any_contains (facts, "its sockets and pipes hold"));
  g_assert_false (any_contains (facts, "(pipes) is not counted"));
  g_assert_false (any_contains (facts, "per process"));
}

/* A cgroup v2 run's card says which cgroup holds its memory. */
static void
test_memory_cgroup_v2 (void)
{
  const char *layers[] = { "uid:1000",     "rlimits",
                           "clean-env",    "caps-dropped",
                           "no-new-privs", "landlock:6",
                           "seccomp",      "memory:rlimit-data,tree-watch,cgroup-v2",
                           "network:off",  NULL };
  g_autoptr (SpSandboxPolicy) p = sp_sandbox_policy_new ("fallback", layers);
  const char *const *facts = sp_sandbox_policy_get_facts (p);

  g_assert_true (any_contains (facts, "(cgroup v2)"));
  g_assert_true (any_contains (facts, "kernel buffers included"));
  g_assert_false (any_contains (facts, "what its sockets hold"));
}

/* Namespaces but no seccomp: reduced, and it says which. */
static void
test_namespaces_without_seccomp (void)
{
  const char *layers[]
    = { "namespaces:user,pid", "private-root", "uid:1000",      "rlimits",     "clean-env",
        "caps-dropped",        "no-new-privs", "memory:cgroup", "network:off", NULL };
  g_autoptr (SpSandboxPolicy) p = sp_sandbox_policy_new ("namespaces", layers);

  g_assert_true (sp_sandbox_policy_is_reduced (p));
  g_assert_cmpuint (g_strv_length ((char **) sp_sandbox_policy_get_warnings (p)), ==, 1);
  g_assert_true (any_contains (sp_sandbox_policy_get_warnings (p), "seccomp"));
  g_assert_true (any_contains (sp_sandbox_policy_get_facts (p), "whole run"));
}

/* Names this version does not know are shown, not dropped; a prefix alone
 * is not a match. */
static void
test_unknown_layers (void)
{
  const char *layers[]
    = { "namespaces:user", "private-root", "rlimits",    "clean-env",        "caps-dropped",
        "no-new-privs",    "seccomp",      "seccompish", "quantum-shield:2", NULL };
  g_autoptr (SpSandboxPolicy) p = sp_sandbox_policy_new ("namespaces", layers);

  g_assert_true (any_contains (sp_sandbox_policy_get_facts (p), "quantum-shield:2"));
  g_assert_true (any_contains (sp_sandbox_policy_get_facts (p), "seccompish"));
  g_assert_false (sp_sandbox_policy_is_reduced (p));
}

static void
test_nothing_reported (void)
{
  g_autoptr (SpSandboxPolicy) p = sp_sandbox_policy_new (NULL, NULL);

  g_assert_true (sp_sandbox_policy_is_reduced (p));
  g_assert_true (any_contains (sp_sandbox_policy_get_warnings (p), "no sandbox mode"));
  g_assert_true (any_contains (sp_sandbox_policy_get_warnings (p), "every file"));
}

static void
test_network_on (void)
{
  const char *layers[]
    = { "namespaces:user", "private-root", "uid:1000", "rlimits",    "clean-env", "caps-dropped",
        "no-new-privs",    "landlock:7",   "seccomp",  "network:on", NULL };
  g_autoptr (SpSandboxPolicy) p = sp_sandbox_policy_new ("namespaces", layers);

  /* The user's choice: said plainly, but not a missing layer. */
  g_assert_false (sp_sandbox_policy_is_reduced (p));
  g_assert_true (any_contains (sp_sandbox_policy_get_warnings (p), "Network is on"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/sandbox-policy/full-namespaces", test_full_namespaces);
  g_test_add_func ("/sandbox-policy/fallback-degraded", test_fallback_degraded);
  g_test_add_func ("/sandbox-policy/fallback-with-landlock", test_fallback_with_landlock);
  g_test_add_func ("/sandbox-policy/memory-socket-queues", test_memory_socket_queues);
  g_test_add_func ("/sandbox-policy/memory-pipe-queues", test_memory_pipe_queues);
  g_test_add_func ("/sandbox-policy/memory-cgroup-v2", test_memory_cgroup_v2);
  g_test_add_func ("/sandbox-policy/namespaces-without-seccomp", test_namespaces_without_seccomp);
  g_test_add_func ("/sandbox-policy/unknown-layers", test_unknown_layers);
  g_test_add_func ("/sandbox-policy/nothing-reported", test_nothing_reported);
  g_test_add_func ("/sandbox-policy/network-on", test_network_on);
  return g_test_run ();
}
