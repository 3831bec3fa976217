/* mcp-scan.c: code_execution's security_validation, an advisory scan.
 *
 * The seed's CodeExecutionResult carries a risk level and warnings. They
 * are advice for the person or the model reading the result, never the
 * boundary: a High or Critical program still runs, in the same kernel
 * sandbox as any other (docs/mcp.md). So the scan may miss things and
 * says only what it saw.
 *
 * Python is read by its own parser: the walk below runs with the system
 * python3 as a sandboxed run of the engine (the code under scan is data
 * to ast.parse, but a parser is still code we would rather not run
 * outside the sandbox). Bash and JavaScript get line patterns here. */
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "mcp-server.h"

/* Reads the code on stdin, prints {"warnings": [[level, text], ...]}
 * with levels 0 Low .. 3 Critical. Names are resolved through the
 * module's imports (import subprocess as sp; from os import system). */
static const char python_scanner[]
  = "import ast, json, sys\n"
    "src = sys.stdin.read()\n"
    "out = []\n"
    "def add(level, node, text):\n"
    "    item = [level, 'line %d: %s' % (getattr(node, 'lineno', 0), text)]\n"
    "    if item not in out and len(out) < 50:\n"
    "        out.append(item)\n"
    "try:\n"
    "    tree = ast.parse(src)\n"
    "except (SyntaxError, ValueError) as e:\n"
    "    print(json.dumps({'warnings': [[0, 'the code does not parse: %s' % e]]}))\n"
    "    sys.exit(0)\n"
    "alias = {}\n"
    "for node in ast.walk(tree):\n"
    "    if isinstance(node, ast.Import):\n"
    "        for a in node.names:\n"
    "            alias[a.asname or a.name.split('.')[0]] = a.name if a.asname else "
    "a.name.split('.')[0]\n"
    "    elif isinstance(node, ast.ImportFrom) and node.module:\n"
    "        for a in node.names:\n"
    "            alias[a.asname or a.name] = node.module + '.' + a.name\n"
    "def dotted(f):\n"
    "    parts = []\n"
    "    while isinstance(f, ast.Attribute):\n"
    "        parts.append(f.attr)\n"
    "        f = f.value\n"
    "    if not isinstance(f, ast.Name):\n"
    "        return ''\n"
    "    parts.append(alias.get(f.id, f.id))\n"
    "    return '.'.join(reversed(parts))\n"
    "NET = ('socket', 'urllib', 'http', 'requests', 'httpx', 'aiohttp', 'ftplib', 'smtplib',\n"
    "       'telnetlib', 'paramiko', 'websocket', 'ssl')\n"
    "NATIVE = ('ctypes', 'cffi')\n"
    "def is_shell(name):\n"
    "    return name in ('os.system', 'os.popen', 'pty.spawn') or name.startswith(\n"
    "        ('subprocess.', 'os.exec', 'os.spawn', 'os.posix_spawn'))\n"
    "DESTRUCTIVE = ('rm -rf /', 'rm -fr /', 'mkfs', 'dd if=', ':(){', '> /dev/sd')\n"
    "CHANGE = ('os.remove', 'os.unlink', 'os.rmdir', 'os.rename', 'os.replace', 'os.chmod',\n"
    "          'os.chown', 'shutil.rmtree', 'shutil.move', 'shutil.copy', 'os.makedirs', "
    "'os.mkdir')\n"
    "def texts(call):\n"
    "    for a in list(call.args) + [k.value for k in call.keywords]:\n"
    "        for n in ast.walk(a):\n"
    "            if isinstance(n, ast.Constant) and isinstance(n.value, str):\n"
    "                yield n.value\n"
    "def outside(p):\n"
    "    return p.startswith('/') or p.startswith('~') or p == '..' or p.startswith('../') or "
    "'/../' in p\n"
    "def reads_input(node):\n"
    "    for n in ast.walk(node):\n"
    "        if isinstance(n, ast.Call) and dotted(n.func) in ('input', 'sys.stdin.read', "
    "'sys.stdin.readline'):\n"
    "            return True\n"
    "        if isinstance(n, ast.Attribute) and dotted(n) in ('sys.stdin', 'sys.argv'):\n"
    "            return True\n"
    "    return False\n"
    "def visit(node, loops):\n"
    "    if isinstance(node, (ast.Import, ast.ImportFrom)):\n"
    "        names = [a.name for a in node.names] if isinstance(node, ast.Import) else "
    "[node.module or '']\n"
    "        for name in names:\n"
    "            top = name.split('.')[0]\n"
    "            if top in NATIVE:\n"
    "                add(2, node, 'imports %s: calls native code directly' % name)\n"
    "            elif top in NET:\n"
    "                add(1, node, 'imports %s: network use' % name)\n"
    "    if isinstance(node, ast.Call):\n"
    "        name = dotted(node.func)\n"
    "        strs = list(texts(node))\n"
    "        if is_shell(name):\n"
    "            bad = [s for s in strs if any(d in s for d in DESTRUCTIVE)]\n"
    "            if bad:\n"
    "                add(3, node, '%s runs a destructive command: %r' % (name, bad[0][:80]))\n"
    "            else:\n"
    "                add(2, node, '%s runs another program' % name)\n"
    "        elif name in ('eval', 'exec', 'compile', 'builtins.eval', 'builtins.exec'):\n"
    "            arg = node.args[0] if node.args else None\n"
    "            if arg is not None and reads_input(arg):\n"
    "                add(2, node, '%s of input' % name)\n"
    "            elif arg is not None and not isinstance(arg, ast.Constant):\n"
    "                add(1, node, '%s of computed text' % name)\n"
    "        elif name in ('__import__', 'importlib.import_module') and node.args and not "
    "isinstance(node.args[0], ast.Constant):\n"
    "            add(1, node, '%s of a computed name' % name)\n"
    "        elif name in ('os.fork', 'os.forkpty'):\n"
    "            if loops:\n"
    "                add(3, node, '%s in a loop (a fork bomb stops at the process limit)' % name)\n"
    "            else:\n"
    "                add(1, node, '%s starts a process' % name)\n"
    "        elif name in ('open', 'io.open', 'builtins.open', 'os.open'):\n"
    "            mode = ''\n"
    "            if len(node.args) > 1 and isinstance(node.args[1], ast.Constant):\n"
    "                mode = str(node.args[1].value)\n"
    "            for k in node.keywords:\n"
    "                if k.arg in ('mode', 'flags') and isinstance(k.value, ast.Constant):\n"
    "                    mode = str(k.value.value)\n"
    "            first = node.args[0] if node.args else None\n"
    "            if isinstance(first, ast.Constant) and isinstance(first.value, str) and "
    "outside(first.value):\n"
    "                if any(c in mode for c in 'wax+') or name == 'os.open':\n"
    "                    add(1, node, 'writes outside the working directory: %s' % "
    "first.value[:80])\n"
    "        elif name in CHANGE:\n"
    "            far = [s for s in strs if outside(s)]\n"
    "            if far:\n"
    "                add(1, node, '%s outside the working directory: %s' % (name, far[0][:80]))\n"

    "    inner = loops + (1 if isinstance(node, (ast.For, ast.While, ast.AsyncFor)) else 0)\n"
    "    for child in ast.iter_child_nodes(node):\n"
    "        visit(child, inner)\n"
    "sys.setrecursionlimit(10000)\n"
    "try:\n"
    "    visit(tree, 0)\n"
    "except RecursionError:\n"
    "    add(0, tree, 'nested too deeply to scan whole')\n"
    "print(json.dumps({'warnings': out}))\n";

const char *
mcp_scan_python_program (void)
{
  return python_scanner;
}

static const char *const level_names[] = { "Low", "Medium", "High", "Critical" };

const char *
mcp_scan_level_name (int level)
{
  return level_names[level < 0 ? 0 : level > 3 ? 3 : level];
}

typedef struct
{
  int level;
  const char *pattern; /* POSIX extended, matched per line */
  const char *text;
} ScanRule;

static const ScanRule shell_rules[] = {
  { 3, "rm[[:space:]]+-[a-zA-Z]*[rR][a-zA-Z]*[[:space:]]+(-[^ ]+[[:space:]]+)*/([[:space:]*]|$)",
    "removes everything from /" },
  { 3, ":[[:space:]]*\\(\\)[[:space:]]*\\{.*:[[:space:]]*\\|[[:space:]]*:", "a fork bomb" },
  { 3, "(^|[^a-z])(mkfs|mkswap)", "formats a file system" },
  { 3, "dd[[:space:]].*of=/dev/", "writes to a device" },
  { 2, "(^|[^a-z])(sudo|su|doas|pkexec)[[:space:]]", "asks for root" },
  { 2, "chmod[[:space:]]+(-R[[:space:]]+)?[0-7]*777[[:space:]]+/", "opens up files outside" },
  { 1, "(^|[^a-z])(curl|wget|nc|ncat|ssh|scp|telnet|ftp)[[:space:]]", "network use" },
  { 1, "/dev/(tcp|udp)/", "network use" },
  { 1, "(^|[^a-z])eval[[:space:]]", "eval of computed text" },
  { 1, ">[[:space:]]*/(etc|usr|bin|boot|dev/sd)", "writes outside the working directory" },
};

static const ScanRule javascript_rules[] = {
  { 2, "child_process", "runs another program" },
  { 2, "process\\.binding|ffi-napi|require\\(['\"]ffi", "calls native code directly" },
  { 1, "(^|[^a-zA-Z_.])eval[[:space:]]*\\(|new[[:space:]]+Function[[:space:]]*\\(",
    "eval of computed text" },
  { 1, "require\\(['\"](node:)?(net|http|https|dgram|tls|dns)['\"]\\)|(^|[^a-zA-Z_.])fetch\\(",
    "network use" },
  { 1, "(writeFile|appendFile|unlink|rm|rmdir|rename)(Sync)?\\([[:space:]]*['\"`](/|\\.\\./|~)",
    "changes files outside the working directory" },
  { 3, "while[[:space:]]*\\([[:space:]]*(true|1)[[:space:]]*\\).*fork\\(", "a fork loop" },
};

/* Line patterns: one warning per rule and line, at most 50. */
static void
scan_lines (const char *code, const ScanRule *rules, size_t n_rules, McpScan *scan)
{
  regex_t *compiled = xcalloc (n_rules, sizeof *compiled);
  bool *ok = xcalloc (n_rules, sizeof *ok);

  for (size_t r = 0; r < n_rules; r++)
    ok[r] = regcomp (&compiled[r], rules[r].pattern, REG_EXTENDED | REG_NOSUB) == 0;
  long line_no = 1;
  for (const char *line = code; *line != '\0' && json_array_size (scan->warnings) < 50; line_no++)
    {
      size_t len = strcspn (line, "\n");
      char *text = xasprintf ("%.*s", (int) len, line);
      for (size_t r = 0; r < n_rules; r++)
        if (ok[r] && regexec (&compiled[r], text, 0, NULL, 0) == 0)
          {
            char *warning = xasprintf ("line %ld: %s", line_no, rules[r].text);
            json_array_append_new (scan->warnings, json_string (warning));
            free (warning);
            if (rules[r].level > scan->level)
              scan->level = rules[r].level;
          }
      free (text);
      line += len + (line[len] == '\n');
    }
  for (size_t r = 0; r < n_rules; r++)
    if (ok[r])
      regfree (&compiled[r]);
  free (compiled);
  free (ok);
}

void
mcp_scan_init (McpScan *scan)
{
  scan->level = 0;
  scan->warnings = json_array ();
}

void
mcp_scan_clear (McpScan *scan)
{
  json_decref (scan->warnings);
  scan->warnings = NULL;
}

bool
mcp_scan_patterns (const char *language, const char *code, McpScan *scan)
{
  if (strcmp (language, "bash") == 0)
    scan_lines (code, shell_rules, sizeof shell_rules / sizeof *shell_rules, scan);
  else if (strcmp (language, "javascript") == 0)
    scan_lines (code, javascript_rules, sizeof javascript_rules / sizeof *javascript_rules, scan);
  else
    return false;
  return true;
}

void
mcp_scan_python_output (const char *stdout_text, const char *failure, McpScan *scan)
{
  json_t *parsed = failure == NULL ? json_loads (stdout_text, 0, NULL) : NULL;
  json_t *items = json_object_get (parsed, "warnings");
  size_t i;
  json_t *item;

  if (!json_is_array (items))
    {
      /* Advice that could not be had is said, not guessed. */
      char *warning = xasprintf ("the advisory scan could not run: %s",
                                 failure != NULL ? failure : "its output was not understood");
      json_array_append_new (scan->warnings, json_string (warning));
      free (warning);
      json_decref (parsed);
      return;
    }
  json_array_foreach (items, i, item)
    {
      json_t *level = json_array_get (item, 0);
      json_t *text = json_array_get (item, 1);
      if (!json_is_integer (level) || !json_is_string (text))
        continue;
      json_array_append (scan->warnings, text);
      int l = (int) json_integer_value (level);
      if (l > scan->level && l <= 3)
        scan->level = l;
    }
  json_decref (parsed);
}
