/* sp-recent-menu.c: Open Recent, a menu filled from GtkRecentManager. */
#define G_LOG_DOMAIN "sp-recent-menu"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-recent-menu.h"

#define RECENT_MAX 10

struct _SpRecentMenu
{
  GObject parent_instance;

  GMenu *menu;
  GtkRecentManager *manager;
};

G_DEFINE_FINAL_TYPE (SpRecentMenu, sp_recent_menu, G_TYPE_OBJECT)

static int
by_newest (gconstpointer a, gconstpointer b)
{
  GtkRecentInfo *ia = (GtkRecentInfo *) a, *ib = (GtkRecentInfo *) b;

  return g_date_time_compare (gtk_recent_info_get_modified (ib), gtk_recent_info_get_modified (ia));
}

/* Sandpad's own recent files that still exist, newest first. */
static void
update (SpRecentMenu *self)
{
  GList *items = gtk_recent_manager_get_items (self->manager);
  guint shown = 0;

  g_menu_remove_all (self->menu);
  items = g_list_sort (items, by_newest);
  for (GList *l = items; l != NULL && shown < RECENT_MAX; l = l->next)
    {
      GtkRecentInfo *info = l->data;
      g_autoptr (GMenuItem) item = NULL;
      g_autoptr (GString) label = NULL;

      if (!gtk_recent_info_has_application (info, g_get_application_name ())
          || !gtk_recent_info_is_local (info) || !gtk_recent_info_exists (info))
        continue;
      /* A menu label's underscores are mnemonics: doubled, they show. */
      label = g_string_new (gtk_recent_info_get_display_name (info));
      g_string_replace (label, "_", "__", 0);
      item = g_menu_item_new (label->str, NULL);
      g_menu_item_set_action_and_target_value (item, "win.open-recent",
                                               g_variant_new_string (
                                                 gtk_recent_info_get_uri (info)));
      g_menu_append_item (self->menu, item);
      shown++;
    }
  g_list_free_full (items, (GDestroyNotify) gtk_recent_info_unref);
  if (shown == 0)
    g_menu_append (self->menu, _ ("No Recent Files"), "win.no-recent");
}

static void
sp_recent_menu_dispose (GObject *object)
{
  SpRecentMenu *self = SP_RECENT_MENU (object);

  if (self->manager != NULL)
    g_signal_handlers_disconnect_by_data (self->manager, self);
  g_clear_object (&self->manager);
  g_clear_object (&self->menu);
  G_OBJECT_CLASS (sp_recent_menu_parent_class)->dispose (object);
}

static void
sp_recent_menu_class_init (SpRecentMenuClass *klass)
{
  G_OBJECT_CLASS (klass)->dispose = sp_recent_menu_dispose;
}

static void
sp_recent_menu_init (SpRecentMenu *self)
{
}

SpRecentMenu *
sp_recent_menu_new (GMenu *menu, GtkRecentManager *manager)
{
  SpRecentMenu *self;

  g_return_val_if_fail (G_IS_MENU (menu), NULL);
  g_return_val_if_fail (GTK_IS_RECENT_MANAGER (manager), NULL);

  self = g_object_new (SP_TYPE_RECENT_MENU, NULL);
  self->menu = g_object_ref (menu);
  self->manager = g_object_ref (manager);
  g_signal_connect_swapped (manager, "changed", G_CALLBACK (update), self);
  update (self);
  return self;
}
