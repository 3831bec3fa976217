/* sp-policy-card.c: what a run may do, said from what the runner
 * reported; see sp-policy-card.h.
 *
 * The card says what the sandbox really holds, from the layers the runner
 * reported: those of the run shown while it has started, else those every
 * run gets (the ready event). Never a fixed promise. */
#define G_LOG_DOMAIN "sp-policy-card"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-policy-card.h"
#include "sp-sandbox-policy.h"

struct _SpPolicyCard
{
  AdwBin parent_instance;

  /* template */
  GtkWidget *card;
  GtkLabel *title;
  GtkLabel *warnings;
  GtkLabel *limits;
  GtkExpander *details;
  GtkLabel *facts;

  SpRunnerSupervisor *supervisor;
  SpRunController *runs;
  SpDocument *document;
  GSettings *settings;
};

G_DEFINE_FINAL_TYPE (SpPolicyCard, sp_policy_card, ADW_TYPE_BIN)

static char *
join_lines (const char *const *lines, const char *bullet)
{
  g_autoptr (GString) text = g_string_new (NULL);

  for (guint i = 0; lines != NULL && lines[i] != NULL; i++)
    g_string_append_printf (text, "%s%s%s", i > 0 ? "\n" : "", bullet, lines[i]);
  return g_string_free (g_steal_pointer (&text), FALSE);
}

/* policy NULL shows only limits, as the title (while the runner starts). */
static void
show (SpPolicyCard *self, const char *limits, SpSandboxPolicy *policy)
{
  g_autofree char *warnings = NULL;
  g_autofree char *facts = NULL;

  if (policy == NULL)
    {
      gtk_label_set_text (self->title, limits ? limits : "");
      gtk_widget_set_visible (GTK_WIDGET (self->warnings), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->limits), FALSE);
      gtk_widget_set_visible (GTK_WIDGET (self->details), FALSE);
      gtk_widget_remove_css_class (self->card, "reduced");
      return;
    }
  warnings = join_lines (sp_sandbox_policy_get_warnings (policy), "⚠ ");
  facts = join_lines (sp_sandbox_policy_get_facts (policy), "• ");
  gtk_label_set_text (self->title, sp_sandbox_policy_get_title (policy));
  /* What is missing comes before what holds. */
  gtk_label_set_text (self->warnings, warnings);
  gtk_widget_set_visible (GTK_WIDGET (self->warnings), warnings[0] != '\0');
  gtk_label_set_text (self->limits, limits ? limits : "");
  gtk_widget_set_visible (GTK_WIDGET (self->limits), limits != NULL);
  /* What holds is one click away; what is missing never is. */
  gtk_label_set_text (self->facts, facts);
  gtk_widget_set_visible (GTK_WIDGET (self->details), facts[0] != '\0');
  if (sp_sandbox_policy_is_reduced (policy))
    gtk_widget_add_css_class (self->card, "reduced");
  else
    gtk_widget_remove_css_class (self->card, "reduced");
  gtk_accessible_update_property (GTK_ACCESSIBLE (self->card), GTK_ACCESSIBLE_PROPERTY_DESCRIPTION,
                                  sp_sandbox_policy_get_title (policy), -1);
}

static void
update (SpPolicyCard *self)
{
  g_autoptr (SpSandboxPolicy) policy = NULL;
  g_autofree char *limits = NULL;
  g_autofree char *environment = NULL;
  gboolean network = g_settings_get_boolean (self->settings, "network-allowed");
  const char *mode = NULL;
  const char *const *layers = NULL;
  const char *run_id;

  if (!sp_runner_supervisor_is_ready (self->supervisor))
    {
      SpRunnerState state = sp_runner_supervisor_get_state (self->supervisor);
      /* Failed is not "starting": the banner above says why and offers
       * Retry. */
      show (self,
            state == SP_RUNNER_STATE_FAILED || state == SP_RUNNER_STATE_STOPPED
              ? _ ("No sandboxed runner: runs are unavailable")
              : _ ("Starting the sandboxed runner…"),
            NULL);
      return;
    }
  run_id = sp_run_controller_get_run_id (self->runs);
  if (run_id == NULL
      || !sp_runner_supervisor_get_run_sandbox (self->supervisor, run_id, &mode, &layers))
    {
      mode = sp_runner_supervisor_get_sandbox_mode (self->supervisor);
      layers = sp_runner_supervisor_get_sandbox_layers (self->supervisor);
    }
  policy = sp_sandbox_policy_new (mode, layers);
  /* TRANSLATORS: network on/off · time limit · memory limit */
  limits = g_strdup_printf (_ ("Network %s · %u s · %u MiB"), network ? _ ("on") : _ ("off"),
                            g_settings_get_uint (self->settings, "run-timeout-seconds"),
                            g_settings_get_uint (self->settings, "memory-limit-mib"));
  if (sp_run_controller_get_keep_state (self->runs))
    {
      /* The runs keep their state: say so where the limits are. */
      char *with_session = g_strdup_printf ("%s · %s", limits, _ ("session"));
      g_free (limits);
      limits = with_session;
    }
  if (sp_run_controller_get_run_start (self->runs) != NULL)
    {
      /* TRANSLATORS: the limits line, then how the last run started */
      char *with_start = g_strdup_printf (_ ("%s · %s"), limits,
                                          sp_run_controller_get_run_start (self->runs));
      g_free (limits);
      limits = with_start;
    }
  environment = sp_document_dup_environment (self->document);
  if (environment != NULL)
    {
      /* TRANSLATORS: the limits line, then the environment's path */
      char *with_env = g_strdup_printf (_ ("%s · environment %s (read-only)"), limits, environment);
      g_free (limits);
      limits = with_env;
    }
  show (self, limits, policy);
}

void
sp_policy_card_bind (SpPolicyCard *self, SpRunnerSupervisor *supervisor, SpRunController *runs,
                     SpDocument *document, GSettings *settings)
{
  g_return_if_fail (SP_IS_POLICY_CARD (self));
  g_return_if_fail (self->supervisor == NULL);

  self->supervisor = g_object_ref (supervisor);
  self->runs = g_object_ref (runs);
  self->document = g_object_ref (document);
  self->settings = g_object_ref (settings);
  /* A run's own layers once it started; the last run's start once it
   * ended. */
  g_signal_connect_object (runs, "started", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (runs, "exited", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  g_signal_connect_object (supervisor, "notify::state", G_CALLBACK (update), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (settings, "changed", G_CALLBACK (update), self, G_CONNECT_SWAPPED);
  /* The card says what the next run gets: its session, its environment. */
  g_signal_connect_object (runs, "notify::keep-state", G_CALLBACK (update), self,
                           G_CONNECT_SWAPPED);
  g_signal_connect_object (document, "environment-changed", G_CALLBACK (update), self,
                           G_CONNECT_SWAPPED);
  update (self);
}

gboolean
sp_policy_card_get_reduced (SpPolicyCard *self)
{
  g_return_val_if_fail (SP_IS_POLICY_CARD (self), FALSE);
  return gtk_widget_has_css_class (self->card, "reduced");
}

char *
sp_policy_card_get_text (SpPolicyCard *self)
{
  g_return_val_if_fail (SP_IS_POLICY_CARD (self), NULL);
  return g_strjoin ("\n", gtk_label_get_text (self->title),
                    gtk_widget_get_visible (GTK_WIDGET (self->warnings))
                      ? gtk_label_get_text (self->warnings)
                      : "",
                    gtk_label_get_text (self->limits), gtk_label_get_text (self->facts), NULL);
}

static void
sp_policy_card_dispose (GObject *object)
{
  SpPolicyCard *self = SP_POLICY_CARD (object);

  /* The template's one child is AdwBin's, which unparents it. */
  g_clear_object (&self->supervisor);
  g_clear_object (&self->runs);
  g_clear_object (&self->document);
  g_clear_object (&self->settings);
  G_OBJECT_CLASS (sp_policy_card_parent_class)->dispose (object);
}

static void
sp_policy_card_class_init (SpPolicyCardClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = sp_policy_card_dispose;
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/io/github/sandpad/Sandpad/sp-policy-card.ui");
  gtk_widget_class_bind_template_child (widget_class, SpPolicyCard, card);
  gtk_widget_class_bind_template_child (widget_class, SpPolicyCard, title);
  gtk_widget_class_bind_template_child (widget_class, SpPolicyCard, warnings);
  gtk_widget_class_bind_template_child (widget_class, SpPolicyCard, limits);
  gtk_widget_class_bind_template_child (widget_class, SpPolicyCard, details);
  gtk_widget_class_bind_template_child (widget_class, SpPolicyCard, facts);
}

static void
sp_policy_card_init (SpPolicyCard *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
}
