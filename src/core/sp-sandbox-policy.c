/* sp-sandbox-policy.c: layer names to sentences. */
#include "config.h"

#include <glib/gi18n.h>
#include <unistd.h>

#include "sp-sandbox-policy.h"

struct _SpSandboxPolicy
{
  gatomicrefcount ref_count;
  gboolean reduced;
  char *title;
  GStrv warnings;
  GStrv facts;
};

G_DEFINE_BOXED_TYPE (SpSandboxPolicy, sp_sandbox_policy, sp_sandbox_policy_ref,
                     sp_sandbox_policy_unref)

/* The layers, as read from the list. */
typedef struct
{
  gboolean namespaces;
  gboolean private_root;
  gboolean landlock;
  gboolean seccomp;
  gboolean caps_dropped;
  gboolean no_new_privs;
  gboolean rlimits;
  gboolean clean_env;
  gboolean network_on;
  long uid;
  const char *memory; /* after "memory:", or NULL */
  GPtrArray *unknown;
} Layers;

static gboolean
is_layer (const char *layer, const char *name)
{
  gsize len = strlen (name);

  /* "seccomp" and "seccomp:allowlist", never "seccompx". */
  return strncmp (layer, name, len) == 0 && (layer[len] == '\0' || layer[len] == ':');
}

static void
read_layers (Layers *l, const char *const *layers)
{
  l->uid = -1;
  l->unknown = g_ptr_array_new ();
  for (guint i = 0; layers != NULL && layers[i] != NULL; i++)
    {
      const char *layer = layers[i];

      if (is_layer (layer, "namespaces"))
        l->namespaces = TRUE;
      else if (is_layer (layer, "private-root"))
        l->private_root = TRUE;
      else if (is_layer (layer, "landlock"))
        l->landlock = TRUE;
      else if (is_layer (layer, "seccomp"))
        l->seccomp = TRUE;
      else if (is_layer (layer, "caps-dropped"))
        l->caps_dropped = TRUE;
      else if (is_layer (layer, "no-new-privs"))
        l->no_new_privs = TRUE;
      else if (is_layer (layer, "rlimits"))
        l->rlimits = TRUE;
      else if (is_layer (layer, "clean-env"))
        l->clean_env = TRUE;
      else if (is_layer (layer, "memory"))
        l->memory = layer[strlen ("memory")] == ':' ? layer + strlen ("memory:") : "";
      else if (g_str_has_prefix (layer, "uid:"))
        l->uid = strtol (layer + strlen ("uid:"), NULL, 10);
      else if (g_str_equal (layer, "network:on"))
        l->network_on = TRUE;
      else if (g_str_equal (layer, "network:off") || is_layer (layer, "subreaper"))
        ; /* network is on the card's first line; the subreaper is bookkeeping */
      else
        g_ptr_array_add (l->unknown, (gpointer) layer);
    }
}

static void
add_filesystem (const Layers *l, gboolean fallback, GStrvBuilder *warn, GStrvBuilder *facts)
{
  if (l->private_root)
    g_strv_builder_add (facts, _ ("Files: sees only system programs and libraries, its code and "
                                  "its own folder; none of your files."));
  else if (l->landlock)
    g_strv_builder_add (facts, _ ("Files: can read system files; writes only its own folder and "
                                  "a temporary folder."));
  if (!l->private_root && !l->landlock)
    g_strv_builder_add (warn, _ ("No file boundary (Landlock is missing): the program can read "
                                 "and change every file your user account can."));
  else if (fallback && !l->landlock)
    g_strv_builder_add (warn, _ ("No Landlock: the program's file access is not limited."));
}

static void
add_kernel (const Layers *l, GStrvBuilder *warn, GStrvBuilder *facts)
{
  if (l->seccomp)
    g_strv_builder_add (facts, _ ("Risky kernel interfaces are blocked (seccomp)."));
  else
    g_strv_builder_add (warn, _ ("No system call filter (seccomp is missing): the program can use "
                                 "every kernel interface, including ones known for escapes."));
  if (l->caps_dropped && l->no_new_privs)
    g_strv_builder_add (facts, _ ("Cannot gain privileges (no capabilities, no setuid)."));
  else
    g_strv_builder_add (warn, _ ("Privileges are not locked: the program might gain rights "
                                 "through setuid programs or leftover capabilities."));
}

static void
add_resources (const Layers *l, GStrvBuilder *warn, GStrvBuilder *facts)
{
  if (l->memory != NULL && strstr (l->memory, "cgroup-v2") != NULL)
    g_strv_builder_add (facts, _ ("Memory is capped for the whole run, kernel buffers included "
                                  "(cgroup v2)."));
  else if (l->memory != NULL && strstr (l->memory, "cgroup") != NULL)
    g_strv_builder_add (facts, _ ("Memory is capped for the whole run (cgroup)."));
  else if (l->memory != NULL && strstr (l->memory, "pipe-queues") != NULL)
    g_strv_builder_add (facts, _ ("Memory is capped for the whole run: its processes and what "
                                  "its sockets and pipes hold, sampled; other kernel memory is "
                                  "not counted."));
  /* A runner from before pipes were counted. */
  else if (l->memory != NULL && strstr (l->memory, "socket-queues") != NULL)
    g_strv_builder_add (facts, _ ("Memory is capped for the whole run: its processes and what "
                                  "its sockets hold, sampled; other kernel memory (pipes) is "
                                  "not counted."));
  else if (l->memory != NULL)
    g_strv_builder_add (facts, _ ("Memory is capped per process (rlimits); the run's processes "
                                  "together may use more."));
  if (l->rlimits)
    g_strv_builder_add (facts, _ ("Limited in CPU time, processes, open files and file size."));
  else
    g_strv_builder_add (warn, _ ("No resource limits: the program can exhaust memory, CPU and "
                                 "processes."));
  if (l->clean_env)
    g_strv_builder_add (facts, _ ("Gets a clean environment: none of your variables or "
                                  "secrets."));
  else
    g_strv_builder_add (warn, _ ("The program may see your environment variables."));
}

static void
add_identity (const Layers *l, gboolean fallback, GStrvBuilder *warn, GStrvBuilder *facts)
{
  if (l->namespaces)
    g_strv_builder_add (facts, _ ("Own view of processes, network and IPC: cannot see or signal "
                                  "your other programs."));
  if (fallback)
    g_strv_builder_add (warn, _ ("Without namespaces the program can see your other processes, "
                                 "this computer's name and its network connections."));
  if (fallback && l->uid >= 0 && (uid_t) l->uid == getuid ())
    g_strv_builder_add (facts, _ ("Runs as your user account, held in only by the layers "
                                  "above."));
  else if (l->uid == 0)
    g_strv_builder_add (warn, _ ("The program runs as root."));
  else if (l->uid > 0)
    {
      g_autofree char *text = g_strdup_printf (_ ("Runs as an unprivileged user (uid %ld), never "
                                                  "as root."),
                                               l->uid);
      g_strv_builder_add (facts, text);
    }
  if (l->network_on)
    g_strv_builder_add (warn, _ ("Network is on: the program can reach the internet and services "
                                 "on this computer."));
}

SpSandboxPolicy *
sp_sandbox_policy_new (const char *mode, const char *const *layers)
{
  SpSandboxPolicy *self = g_new0 (SpSandboxPolicy, 1);
  g_autoptr (GStrvBuilder) warn = g_strv_builder_new ();
  g_autoptr (GStrvBuilder) facts = g_strv_builder_new ();
  gboolean namespaces = g_strcmp0 (mode, "namespaces") == 0;
  gboolean fallback = g_strcmp0 (mode, "fallback") == 0;
  Layers l = { 0 };

  g_atomic_ref_count_init (&self->ref_count);
  read_layers (&l, layers);
  if (!namespaces && !fallback)
    g_strv_builder_add (warn, _ ("The runner reported no sandbox mode this version knows."));
  add_filesystem (&l, fallback, warn, facts);
  add_kernel (&l, warn, facts);
  add_resources (&l, warn, facts);
  add_identity (&l, fallback, warn, facts);
  if (l.unknown->len > 0)
    {
      g_ptr_array_add (l.unknown, NULL);
      g_autofree char *names = g_strjoinv (", ", (char **) l.unknown->pdata);
      g_autofree char *text = g_strdup_printf (_ ("Other layers: %s."), names);
      g_strv_builder_add (facts, text);
    }
  g_ptr_array_unref (l.unknown);

  self->warnings = g_strv_builder_end (warn);
  self->facts = g_strv_builder_end (facts);
  /* Network on is the user's choice, not a missing layer. */
  self->reduced = fallback || g_strv_length (self->warnings) > (l.network_on ? 1u : 0u);
  if (fallback)
    self->title = g_strdup (_ ("Reduced isolation: fallback sandbox, no namespaces"));
  else if (self->reduced)
    self->title = g_strdup (_ ("Reduced isolation: protections are missing"));
  else
    self->title = g_strdup (_ ("Strong isolation: namespaces, private files, seccomp"));
  return self;
}

SpSandboxPolicy *
sp_sandbox_policy_ref (SpSandboxPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  g_atomic_ref_count_inc (&self->ref_count);
  return self;
}

void
sp_sandbox_policy_unref (SpSandboxPolicy *self)
{
  g_return_if_fail (self != NULL);
  if (!g_atomic_ref_count_dec (&self->ref_count))
    return;
  g_free (self->title);
  g_strfreev (self->warnings);
  g_strfreev (self->facts);
  g_free (self);
}

gboolean
sp_sandbox_policy_is_reduced (SpSandboxPolicy *self)
{
  g_return_val_if_fail (self != NULL, TRUE);
  return self->reduced;
}

const char *
sp_sandbox_policy_get_title (SpSandboxPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return self->title;
}

const char *const *
sp_sandbox_policy_get_warnings (SpSandboxPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return (const char *const *) self->warnings;
}

const char *const *
sp_sandbox_policy_get_facts (SpSandboxPolicy *self)
{
  g_return_val_if_fail (self != NULL, NULL);
  return (const char *const *) self->facts;
}
