/* sp-input-focus.c: whether a program's wait for input may take the
 * keyboard from the editor.
 *
 * When a program waits (the runner's input_wait: the kernel's word, never
 * a guess from a prompt), Thonny puts the caret in its shell and Jupyter
 * focuses its box, and a person who pressed Run and waits for the prompt
 * expects to type the answer. Before, the input line only lit up and the
 * answer went into the code (issue 38). But a person typing code while the
 * program runs must keep the keyboard: taking it sent the rest of their
 * line to the program on Enter (issue 29). What tells the two apart is
 * whether the person used the editor since Run: a key pressed there or a
 * click in it. */
#define G_LOG_DOMAIN "sp-input-focus"

#include "config.h"

#include "sp-input-focus.h"

struct _SpInputFocus
{
  GObject parent_instance;

  GtkWidget *editor;
  GtkWidget *input;
  GtkEventController *keys;  /* on the editor, removed in dispose */
  GtkEventController *click; /* likewise */
  gboolean editor_used;      /* since Run */
};

G_DEFINE_FINAL_TYPE (SpInputFocus, sp_input_focus, G_TYPE_OBJECT)

/* Capture phase: the key counts before the editor acts on it, whatever it
 * does with it. A shortcut the window ran (Run, Save) never gets here. */
static gboolean
on_key_pressed (GtkEventControllerKey *controller, guint keyval, guint keycode,
                GdkModifierType state, SpInputFocus *self)
{
  GdkEvent *event = gtk_event_controller_get_current_event (GTK_EVENT_CONTROLLER (controller));

  /* Shift or Control alone is no work in the editor: it may be the start
   * of a shortcut, and its release follows Ctrl+Return's Run. */
  if (event == NULL || !gdk_key_event_is_modifier (event))
    self->editor_used = TRUE;
  return GDK_EVENT_PROPAGATE;
}

static void
on_pressed (GtkGestureClick *gesture, int n_press, double x, double y, SpInputFocus *self)
{
  self->editor_used = TRUE;
}

static void
sp_input_focus_dispose (GObject *object)
{
  SpInputFocus *self = SP_INPUT_FOCUS (object);

  if (self->editor != NULL)
    {
      gtk_widget_remove_controller (self->editor, self->keys);
      gtk_widget_remove_controller (self->editor, self->click);
    }
  self->keys = NULL;
  self->click = NULL;
  g_clear_object (&self->editor);
  g_clear_object (&self->input);
  G_OBJECT_CLASS (sp_input_focus_parent_class)->dispose (object);
}

static void
sp_input_focus_class_init (SpInputFocusClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sp_input_focus_dispose;
}

static void
sp_input_focus_init (SpInputFocus *self)
{
}

SpInputFocus *
sp_input_focus_new (GtkWidget *editor, GtkWidget *input)
{
  SpInputFocus *self;

  g_return_val_if_fail (GTK_IS_WIDGET (editor), NULL);
  g_return_val_if_fail (GTK_IS_WIDGET (input), NULL);

  self = g_object_new (SP_TYPE_INPUT_FOCUS, NULL);
  self->editor = g_object_ref (editor);
  self->input = g_object_ref (input);
  self->keys = gtk_event_controller_key_new ();
  gtk_event_controller_set_propagation_phase (self->keys, GTK_PHASE_CAPTURE);
  g_signal_connect_object (self->keys, "key-pressed", G_CALLBACK (on_key_pressed), self, 0);
  gtk_widget_add_controller (editor, self->keys);
  /* Any button; never claimed, so the editor's own click still places
   * the caret or starts a selection. */
  self->click = GTK_EVENT_CONTROLLER (gtk_gesture_click_new ());
  gtk_gesture_single_set_button (GTK_GESTURE_SINGLE (self->click), 0);
  gtk_event_controller_set_propagation_phase (self->click, GTK_PHASE_CAPTURE);
  g_signal_connect_object (self->click, "pressed", G_CALLBACK (on_pressed), self, 0);
  gtk_widget_add_controller (editor, self->click);
  return self;
}

void
sp_input_focus_run_started (SpInputFocus *self)
{
  g_return_if_fail (SP_IS_INPUT_FOCUS (self));
  self->editor_used = FALSE;
}

gboolean
sp_input_focus_get_editor_used (SpInputFocus *self)
{
  g_return_val_if_fail (SP_IS_INPUT_FOCUS (self), FALSE);
  return self->editor_used;
}

gboolean
sp_input_focus_offer (SpInputFocus *self)
{
  GtkRoot *root;
  GtkWidget *focus;

  g_return_val_if_fail (SP_IS_INPUT_FOCUS (self), FALSE);

  if (!self->editor_used && gtk_widget_get_mapped (self->input))
    gtk_widget_grab_focus (self->input);
  /* The window's focus, whether or not the window is active now: it is
   * where the keys go when the person comes back to it. */
  root = gtk_widget_get_root (self->input);
  focus = root != NULL ? gtk_root_get_focus (root) : NULL;
  return focus != NULL && (focus == self->input || gtk_widget_is_ancestor (focus, self->input));
}
