// Sandpad's Java session driver (issue 42): one JVM that runs snippet
// after snippet in one JShell (the JDK's jdk.jshell, executing in this
// same process), so variables, methods, classes and imports stay between
// runs, as in the jshell tool. It is the child of the runner's session
// relay (engine/runner-session-node.py), in the session's one sandbox; the
// JDK's source launcher compiles it when the session starts. It adds no
// way in or out: a snippet runs what a cold Java run could.
//
//   java FLAGS runner-java-session.java --session CMD RESULT
//
// The relay tells it of each run on the FIFO CMD: one line of
// percent-encoded fields separated by spaces (the snippet's path, the
// number of arguments, the arguments, then the run's variables as name
// and value pairs), and it answers on the FIFO RESULT with one JSON line:
// {"exit":N} or {"signal":2}, and "cpu_ns". A JVM cannot change its own
// environment nor take an argv per snippet, so a run's arguments and
// variables do not reach it (the session's first run's variables are the
// JVM's), and its stdin is /dev/null.
//
// The file is read as jshell reads a script: line after line until
// JShell's analysis says a snippet is complete (an expression needs no
// semicolon at the end of its line). An expression's value is shown as
// jshell shows it ("$1 ==> 42"). A snippet that does not compile is
// reported as javac reports one ("FILE:LINE: error: MESSAGE"), an
// exception as the JVM reports one ("Exception in thread "main" TYPE:
// MESSAGE" and "\tat METHOD(FILE:LINE)" lines), the lines the file's, so
// the runner reads both back as it does a cold run's; the run ends there
// with exit code 1. SIGINT (the runner's interrupt) stops the snippet.
import java.io.BufferedReader;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

import jdk.jshell.Diag;
import jdk.jshell.EvalException;
import jdk.jshell.JShell;
import jdk.jshell.JShellException;
import jdk.jshell.Snippet;
import jdk.jshell.SnippetEvent;
import jdk.jshell.SourceCodeAnalysis;
import jdk.jshell.UnresolvedReferenceException;

public class SandpadJavaSession {
  private static JShell shell;
  private static volatile boolean interrupted;
  // Each snippet's first line in the file it came from.
  private static final Map<String, Integer> snippetLines = new HashMap<>();

  public static void main(String[] args) throws Exception {
    shell = JShell.builder().executionEngine("local").build();
    onInterrupt();
    var cmd = new BufferedReader(new InputStreamReader(new FileInputStream(args[1]),
                                                       StandardCharsets.UTF_8));
    OutputStream result = new FileOutputStream(args[2]);
    var cpu = ManagementFactory.getThreadMXBean();
    String line;
    while ((line = cmd.readLine()) != null) {
      String[] fields = line.split(" ");
      String file = URLDecoder.decode(fields[0], StandardCharsets.UTF_8);
      long before = cpu.getCurrentThreadCpuTime();
      interrupted = false;
      int status = runFile(file);
      System.out.flush();
      System.err.flush();
      long used = Math.max(0, cpu.getCurrentThreadCpuTime() - before);
      String answer = interrupted ? "{\"signal\":2" : "{\"exit\":" + status;
      result.write((answer + ",\"cpu_ns\":" + used + "}\n").getBytes(StandardCharsets.UTF_8));
      result.flush();
    }
    System.exit(0);
  }

  // SIGINT stops the snippet that runs (JShell.stop); between runs it is
  // nothing. Through reflection: sun.misc.Signal is the JDK's own, and
  // naming it would make the launcher's compile warn on every start.
  private static void onInterrupt() {
    try {
      Class<?> signal = Class.forName("sun.misc.Signal");
      Class<?> handler = Class.forName("sun.misc.SignalHandler");
      Object proxy = java.lang.reflect.Proxy.newProxyInstance(
          handler.getClassLoader(), new Class<?>[] {handler}, (p, m, a) -> {
            if (m.getName().equals("handle")) {
              interrupted = true;
              try {
                shell.stop();
              } catch (RuntimeException e) {
                // a JDK whose local execution cannot stop a thread: the
                // runner's escalation ends the session
              }
            }
            return null;
          });
      signal.getMethod("handle", signal, handler)
          .invoke(null, signal.getConstructor(String.class).newInstance("INT"), proxy);
    } catch (ReflectiveOperationException | RuntimeException e) {
      // no way to catch SIGINT here: it ends the JVM, and the session
    }
  }

  private static int runFile(String file) throws Exception {
    List<String> lines = Files.readAllLines(Path.of(file), StandardCharsets.UTF_8);
    SourceCodeAnalysis analysis = shell.sourceCodeAnalysis();
    StringBuilder pending = new StringBuilder();
    int start = 1;
    for (int i = 0; i < lines.size() && !interrupted; i++) {
      if (pending.toString().isBlank()) {
        pending.setLength(0);
        start = i + 1;
      }
      pending.append(lines.get(i)).append('\n');
      while (!pending.toString().isBlank()) {
        SourceCodeAnalysis.CompletionInfo info = analysis.analyzeCompletion(pending.toString());
        if (!info.completeness().isComplete())
          break;
        String source = info.source();
        // Blank lines before the snippet move its first line down.
        String before = pending.substring(0, pending.indexOf(source.strip()));
        int first = start + (int) before.chars().filter(c -> c == '\n').count();
        if (!eval(source.strip(), file, first))
          return 1;
        String rest = info.remaining();
        start = first + (int) source.strip().chars().filter(c -> c == '\n').count()
                + (int) leadingNewlines(pending.substring(pending.indexOf(source.strip())
                                                          + source.strip().length()), rest);
        pending.setLength(0);
        pending.append(rest);
      }
    }
    if (!pending.toString().isBlank() && !interrupted)
      return eval(pending.toString().strip(), file, start) ? 0 : 1;
    return interrupted ? 1 : 0;
  }

  // The newlines between a snippet's end and what remains after it.
  private static long leadingNewlines(String after, String rest) {
    int gap = Math.max(0, after.length() - rest.length());
    return after.substring(0, gap).chars().filter(c -> c == '\n').count();
  }

  private static boolean eval(String source, String file, int first) {
    for (SnippetEvent event : shell.eval(source)) {
      Snippet snippet = event.snippet();
      if (snippet == null)
        continue;
      snippetLines.put(snippet.id(), first);
      if (event.status() == Snippet.Status.REJECTED) {
        for (Diag diag : (Iterable<Diag>) shell.diagnostics(snippet)::iterator) {
          if (!diag.isError())
            continue;
          long at = Math.max(0, Math.min(diag.getStartPosition(), source.length()));
          int line = first + (int) source.substring(0, (int) at).chars()
                                  .filter(c -> c == '\n').count();
          System.err.println(file + ":" + line + ": error: " + diag.getMessage(Locale.ROOT));
          return false;
        }
        System.err.println(file + ":" + first + ": error: this snippet does not compile");
        return false;
      }
      JShellException exception = event.exception();
      if (exception != null) {
        report(exception, file);
        return false;
      }
      // An expression's value ("$1 ==> 42", "l ==> [1, 2]"), not a
      // declaration's nor a statement's.
      if (event.status() == Snippet.Status.VALID && event.value() != null) {
        if (snippet.subKind() == Snippet.SubKind.TEMP_VAR_EXPRESSION_SUBKIND)
          System.out.println(((jdk.jshell.VarSnippet) snippet).name() + " ==> " + event.value());
        else if (snippet.kind() == Snippet.Kind.EXPRESSION)
          System.out.println(((jdk.jshell.ExpressionSnippet) snippet).name() + " ==> "
                             + event.value());
      }
    }
    return true;
  }

  private static void report(JShellException exception, String file) {
    String type = exception instanceof EvalException eval ? eval.getExceptionClassName()
                  : exception instanceof UnresolvedReferenceException
                      ? "UnresolvedReferenceException" : exception.getClass().getName();
    String message = exception.getMessage();
    System.err.println("Exception in thread \"main\" " + type
                       + (message != null ? ": " + message : ""));
    for (StackTraceElement frame : exception.getStackTrace()) {
      String name = frame.getFileName();
      Integer first = name != null && name.startsWith("#") ? snippetLines.get(name.substring(1))
                                                          : null;
      String where = first != null && frame.getLineNumber() > 0
                         ? file + ":" + (first + frame.getLineNumber() - 1)
                         : (name != null ? name : "Unknown Source")
                               + (frame.getLineNumber() > 0 ? ":" + frame.getLineNumber() : "");
      System.err.println("\tat " + frame.getMethodName() + "(" + where + ")");
    }
  }
}
