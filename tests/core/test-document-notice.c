/* test-document-notice.c: what a window tells the person when its text
 * could not be written, without a display: a file changed on disk since
 * is a question (Overwrite), a file or folder that may not be written
 * offers Save As, any other failure is only said with its cause; the
 * unsaved text's copy that fails or is not kept offers Save As with the
 * reason, and a copy written again ends the failure said before, not the
 * "not kept" notice. */
#include "config.h"

#include <string.h>

#include "sp-document-notice.h"

static SpDocumentNotice *
save_failure (GQuark domain, int code, const char *message)
{
  g_autoptr (GFile) file = g_file_new_for_path ("/tmp/some folder/snippet.py");
  g_autoptr (GError) error = g_error_new_literal (domain, code, message);

  return sp_document_notice_for_save (file, error);
}

static void
test_save_changed_on_disk (void)
{
  g_autoptr (SpDocumentNotice) notice = save_failure (G_IO_ERROR, G_IO_ERROR_WRONG_ETAG,
                                                      "The file was changed");

  g_assert_cmpint (notice->offer, ==, SP_DOCUMENT_OFFER_OVERWRITE);
  g_assert_cmpstr (notice->kind, ==, "changed-on-disk");
  g_assert_nonnull (notice->title);
  /* The file is named, so the person knows which. */
  g_assert_nonnull (strstr (notice->message, "snippet.py"));
  g_assert_null (notice->clears);
}

static void
test_save_not_writable (void)
{
  const int codes[] = { G_IO_ERROR_PERMISSION_DENIED, G_IO_ERROR_READ_ONLY };

  for (guint i = 0; i < G_N_ELEMENTS (codes); i++)
    {
      g_autoptr (SpDocumentNotice) notice = save_failure (G_IO_ERROR, codes[i],
                                                          "Permission denied (the folder)");

      g_assert_cmpint (notice->offer, ==, SP_DOCUMENT_OFFER_SAVE_AS);
      g_assert_cmpstr (notice->kind, ==, "save-failed");
      g_assert_null (notice->title);
      g_assert_nonnull (strstr (notice->message, "Permission denied (the folder)"));
    }
}

static void
test_save_other_failure (void)
{
  const struct
  {
    GQuark domain;
    int code;
  } errors[] = {
    { G_IO_ERROR, G_IO_ERROR_NO_SPACE },
    { G_IO_ERROR, G_IO_ERROR_FAILED },
    { G_IO_ERROR, G_IO_ERROR_NOT_FOUND },
    /* A file error of the same name is not the GIO one the save gives. */
    { G_FILE_ERROR, G_FILE_ERROR_ACCES },
  };

  for (guint i = 0; i < G_N_ELEMENTS (errors); i++)
    {
      g_autoptr (SpDocumentNotice) notice = save_failure (errors[i].domain, errors[i].code,
                                                          "No space left on device");

      g_assert_cmpint (notice->offer, ==, SP_DOCUMENT_OFFER_NOTHING);
      g_assert_cmpstr (notice->kind, ==, "save-failed");
      g_assert_nonnull (strstr (notice->message, "No space left on device"));
    }
}

static void
test_autosave (void)
{
  g_autoptr (SpDocumentNotice) ok = sp_document_notice_for_autosave (SP_DOCUMENT_AUTOSAVE_OK, NULL,
                                                                     NULL);
  g_autoptr (SpDocumentNotice) failed
    = sp_document_notice_for_autosave (SP_DOCUMENT_AUTOSAVE_FAILED, "Disk quota exceeded", NULL);
  g_autoptr (SpDocumentNotice) off = sp_document_notice_for_autosave (SP_DOCUMENT_AUTOSAVE_OFF,
                                                                      NULL, "pid 4242 holds it");
  g_autoptr (SpDocumentNotice) off_unknown
    = sp_document_notice_for_autosave (SP_DOCUMENT_AUTOSAVE_OFF, NULL, NULL);

  /* Written again: nothing to say, and the failure said before is over,
   * but not the notice that no copy is kept. */
  g_assert_null (ok->kind);
  g_assert_null (ok->message);
  g_assert_cmpint (ok->offer, ==, SP_DOCUMENT_OFFER_NOTHING);
  g_assert_cmpstr (ok->clears, ==, "autosave-failed");

  g_assert_cmpstr (failed->kind, ==, "autosave-failed");
  g_assert_cmpint (failed->offer, ==, SP_DOCUMENT_OFFER_SAVE_AS);
  g_assert_nonnull (strstr (failed->message, "Disk quota exceeded"));
  g_assert_null (failed->clears);

  g_assert_cmpstr (off->kind, ==, "autosave-off");
  g_assert_cmpint (off->offer, ==, SP_DOCUMENT_OFFER_SAVE_AS);
  g_assert_nonnull (strstr (off->message, "pid 4242 holds it"));
  g_assert_null (off->clears);
  /* Without the reason, still a reason. */
  g_assert_cmpstr (off_unknown->kind, ==, "autosave-off");
  g_assert_nonnull (strstr (off_unknown->message, "another Sandpad"));
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/document-notice/save-changed-on-disk", test_save_changed_on_disk);
  g_test_add_func ("/document-notice/save-not-writable", test_save_not_writable);
  g_test_add_func ("/document-notice/save-other-failure", test_save_other_failure);
  g_test_add_func ("/document-notice/autosave", test_autosave);
  return g_test_run ();
}
