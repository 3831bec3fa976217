/* sp-document-notice.h: what a window tells the person when its
 * document's text could not be written, decided apart from how it is
 * shown, so the decisions are tested without a display.
 *
 * A save that fails leaves the file as it was and the text unsaved in the
 * editor; what the person can do next depends on why: a file changed on
 * disk since is theirs to overwrite or not; a file or folder they may not
 * write wants another place (Save As); anything else (a full disk) is only
 * said. The unsaved text's copy (SpDocument's autosave) that cannot be
 * written, or is not kept at all, is said with Save As too: saving is the
 * way to keep the text then. */
#pragma once

#include <gio/gio.h>

#include "sp-document.h"

G_BEGIN_DECLS

typedef enum
{
  SP_DOCUMENT_OFFER_NOTHING,   /* only say it */
  SP_DOCUMENT_OFFER_SAVE_AS,   /* the text is not on disk: Save As elsewhere */
  SP_DOCUMENT_OFFER_OVERWRITE, /* the file changed since: ask before replacing it */
} SpDocumentOffer;

typedef struct
{
  /* What is said: "autosave-failed", "autosave-off", "save-failed" or
   * "changed-on-disk"; NULL when there is nothing to say. */
  char *kind;
  char *title; /* a question's heading ("changed-on-disk"), else NULL */
  char *message;
  SpDocumentOffer offer;
  /* The kind of a notice said before that is over now (a copy written
   * again after a failure), or NULL. */
  char *clears;
} SpDocumentNotice;

/* What SpDocument's "autosave-status" means to the person. error: the
 * failure's message (SP_DOCUMENT_AUTOSAVE_FAILED); why_off: which process
 * has the autosave folder (SP_DOCUMENT_AUTOSAVE_OFF), NULL when unknown. */
SpDocumentNotice *sp_document_notice_for_autosave (SpDocumentAutosaveStatus status,
                                                   const char *error, const char *why_off);
/* What a failed sp_document_save_async() to file means to the person. */
SpDocumentNotice *sp_document_notice_for_save (GFile *file, const GError *error);

void sp_document_notice_free (SpDocumentNotice *notice);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (SpDocumentNotice, sp_document_notice_free)

G_END_DECLS
