/* test-program-error.c: exited's "program_error" object survives an
 * encode/decode round trip field for field, is left out when there is
 * none, and is decoded as strictly as the rest of the event. */
#include "tap.h"
#include "test-common.h"

#include "sp-proto.h"

static SpProgramError *
sample (void)
{
  SpProgramError *e = calloc (1, sizeof *e);

  e->type = xstrdup ("ZeroDivisionError");
  e->message = xstrdup ("division by zero \"é\"\n");
  e->line = 2;
  e->column = 7;
  e->syntax = true;
  e->n_frames = 2;
  e->frames = calloc (2, sizeof *e->frames);
  e->frames[0] = (SpProgramFrame){ xstrdup ("/code/main.py"), xstrdup ("<module>"), 4, 0 };
  e->frames[1] = (SpProgramFrame){ xstrdup ("/code/main.py"), NULL, 2, 9 };
  return e;
}

static void
fill (SpMessage *m, SpProgramError *error)
{
  *m = (SpMessage){ .type = SP_MSG_EXITED };
  m->u.exited.id = xstrdup ("x");
  m->u.exited.end = SP_END_EXITED;
  m->u.exited.exit_code = 1;
  m->u.exited.program_error = error;
}

static int
decode (const char *line, SpMessage *out, SpProtoError *err)
{
  return sp_message_decode (line, strlen (line) - 1, SP_DIR_EVENT, out, err, NULL);
}

static void
round_trip (void)
{
  SpMessage m, got = { 0 };
  SpProtoError err = { 0 };
  size_t len = 0;

  fill (&m, sample ());
  char *line = sp_message_encode (&m, &len);
  ok (line != NULL, "an exited with program_error encodes");
  if (!ok (line != NULL && decode (line, &got, &err) == 0, "and decodes (%s)", err.message))
    {
      for (int i = 0; i < 11; i++)
        ok (false, "skipped");
      free (line);
      return;
    }
  const SpProgramError *g = got.u.exited.program_error;
  ok (g != NULL, "program_error is there");
  is_str (g->type, "ZeroDivisionError", "type");
  is_str (g->message, "division by zero \"é\"\n", "message");
  is_int (g->line, 2, "line");
  is_int (g->column, 7, "column");
  is_int (g->syntax, 1, "syntax");
  is_int ((long long) g->n_frames, 2, "two frames");
  is_str (g->frames[0].function, "<module>", "frame 0 function");
  ok (g->frames[1].function == NULL, "frame 1 has no function");
  is_int (g->frames[1].column, 9, "frame 1 column");
  is_int (g->frames[0].line, 4, "frame 0 line");
  sp_message_clear (&got);
  sp_message_clear (&m);
  free (line);
}

static void
absent (void)
{
  SpMessage m;
  size_t len = 0;

  fill (&m, NULL);
  char *line = sp_message_encode (&m, &len);
  ok (line != NULL && strstr (line, "program_error") == NULL, "no program_error, no field");
  sp_message_clear (&m);
  free (line);
}

static void
strict (void)
{
  static const char *const bad[] = {
    /* unknown field in the object, and in a frame */
    "{\"type\":\"E\",\"message\":\"\",\"line\":0,\"frames\":[],\"extra\":1}",
    "{\"type\":\"E\",\"message\":\"\",\"line\":0,\"frames\":[{\"file\":\"f\",\"line\":1,\"x\":1}]}",
    /* missing frames, wrong type */
    "{\"type\":\"E\",\"message\":\"\",\"line\":0}",
    "\"E\"",
    /* negative line */
    "{\"type\":\"E\",\"message\":\"\",\"line\":-1,\"frames\":[]}",
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
    {
      char line[1024];
      SpMessage got = { 0 };
      SpProtoError err = { 0 };

      snprintf (line, sizeof line,
                "{\"v\":1,\"type\":\"exited\",\"id\":\"x\",\"end\":\"exited\",\"exit_code\":1,"
                "\"t_ms\":0,\"wall_ms\":0,\"cpu_ms\":0,\"peak_memory_bytes\":0,"
                "\"stdout_bytes\":0,\"stderr_bytes\":0,\"stdout_truncated\":false,"
                "\"stderr_truncated\":false,\"files\":[],\"files_truncated\":false,"
                "\"program_error\":%s}\n",
                bad[i]);
      ok (decode (line, &got, &err) != 0, "refused: %s", bad[i]);
      sp_message_clear (&got);
    }

  /* More frames than the cap: the encoder refuses to build it. */
  SpMessage m;
  SpProgramError *e = sample ();
  size_t len = 0;
  e->frames = realloc (e->frames, (SP_PROGRAM_ERROR_MAX_FRAMES + 1) * sizeof *e->frames);
  for (size_t i = 2; i <= SP_PROGRAM_ERROR_MAX_FRAMES; i++)
    e->frames[i] = (SpProgramFrame){ xstrdup ("f"), NULL, 1, 0 };
  e->n_frames = SP_PROGRAM_ERROR_MAX_FRAMES + 1;
  fill (&m, e);
  char *line = sp_message_encode (&m, &len);
  ok (line == NULL, "more than %d frames do not encode", SP_PROGRAM_ERROR_MAX_FRAMES);
  free (line);
  sp_message_clear (&m);
}

int
main (void)
{
  plan (13 + 1 + 6);
  round_trip ();
  absent ();
  strict ();
  return done_testing ();
}
