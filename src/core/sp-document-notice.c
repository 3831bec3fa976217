/* sp-document-notice.c: the words and the way out for a text that could
 * not be written (see the header). */
#define G_LOG_DOMAIN "sp-document"

#include "config.h"

#include <glib/gi18n.h>

#include "sp-document-notice.h"

static SpDocumentNotice *
notice_new (const char *kind, char *message, SpDocumentOffer offer)
{
  SpDocumentNotice *notice = g_new0 (SpDocumentNotice, 1);

  notice->kind = g_strdup (kind);
  notice->message = message;
  notice->offer = offer;
  return notice;
}

SpDocumentNotice *
sp_document_notice_for_autosave (SpDocumentAutosaveStatus status, const char *error,
                                 const char *why_off)
{
  SpDocumentNotice *notice;

  switch (status)
    {
    case SP_DOCUMENT_AUTOSAVE_OK:
      /* Written again: a failure said before is over; "off" is not. */
      notice = notice_new (NULL, NULL, SP_DOCUMENT_OFFER_NOTHING);
      notice->clears = g_strdup ("autosave-failed");
      return notice;
    case SP_DOCUMENT_AUTOSAVE_FAILED:
      return notice_new ("autosave-failed",
                         g_strdup_printf (_ ("Could not keep a copy of the unsaved text: %s. The "
                                             "text is still here; save it to keep it."),
                                          error != NULL ? error : "?"),
                         SP_DOCUMENT_OFFER_SAVE_AS);
    case SP_DOCUMENT_AUTOSAVE_OFF:
      /* TRANSLATORS: %s says which process has the folder */
      return notice_new ("autosave-off",
                         g_strdup_printf (_ ("Unsaved text in this window is not kept after a "
                                             "crash: %s. Save it to keep it."),
                                          why_off != NULL
                                            ? why_off
                                            : _ ("another Sandpad has the autosave folder")),
                         SP_DOCUMENT_OFFER_SAVE_AS);
    default:
      g_return_val_if_reached (notice_new (NULL, NULL, SP_DOCUMENT_OFFER_NOTHING));
    }
}

SpDocumentNotice *
sp_document_notice_for_save (GFile *file, const GError *error)
{
  SpDocumentNotice *notice;

  g_return_val_if_fail (G_IS_FILE (file), NULL);
  g_return_val_if_fail (error != NULL, NULL);

  /* sp_safe_save's check: someone else wrote the file since we read or
   * saved it. Theirs to overwrite or not. */
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_WRONG_ETAG))
    {
      g_autofree char *name = g_file_get_basename (file);

      notice = notice_new ("changed-on-disk",
                           g_strdup_printf (_ ("“%s” changed on disk since it was opened or "
                                               "saved here. Overwrite replaces those changes "
                                               "with the editor's text."),
                                            name),
                           SP_DOCUMENT_OFFER_OVERWRITE);
      notice->title = g_strdup (_ ("File Changed on Disk"));
      return notice;
    }
  /* Where the folder or file cannot be written, somewhere else can. */
  return notice_new ("save-failed", g_strdup_printf (_ ("Not saved: %s"), error->message),
                     g_error_matches (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED)
                         || g_error_matches (error, G_IO_ERROR, G_IO_ERROR_READ_ONLY)
                       ? SP_DOCUMENT_OFFER_SAVE_AS
                       : SP_DOCUMENT_OFFER_NOTHING);
}

void
sp_document_notice_free (SpDocumentNotice *notice)
{
  if (notice == NULL)
    return;
  g_free (notice->kind);
  g_free (notice->title);
  g_free (notice->message);
  g_free (notice->clears);
  g_free (notice);
}
