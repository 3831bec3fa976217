/* main.c: sandpad, the desktop app. */
#include "config.h"

#include <glib/gi18n.h>
#include <gtksourceview/gtksource.h>
#include <locale.h>

#include "sp-application.h"

int
main (int argc, char **argv)
{
  g_autoptr (SpApplication) app = NULL;
  int ret;

  setlocale (LC_ALL, "");
  bindtextdomain (GETTEXT_PACKAGE, SANDPAD_LOCALEDIR);
  bind_textdomain_codeset (GETTEXT_PACKAGE, "UTF-8");
  textdomain (GETTEXT_PACKAGE);

  gtk_source_init ();
  app = sp_application_new ();
  ret = g_application_run (G_APPLICATION (app), argc, argv);
  g_clear_object (&app);
  gtk_source_finalize ();
  return ret;
}
