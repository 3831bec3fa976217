// test-mcp-langs.mjs: execute_code in the compiled languages and Ruby
// (issue 27), R and Java (issue 42), through sandpad-mcp and the official MCP TypeScript SDK
// client, which validates every structuredContent against the tool's
// outputSchema.
//
//   node test-mcp-langs.mjs SANDPAD_MCP LANGUAGE
//
// Per language: the tool's enum offers it, a hello, a compile error that
// is the result's structured `error` on the snippet's line (the text says
// the program did not run), a runtime error (its line where the language
// reports one, else the signal that ended it). A toolchain missing here
// skips, with its name. For C, the compile cache's attack (issue 37): a
// client runs V with env CPATH=inc and a planted inc/stdio.h among its
// files; a second sandpad-mcp over the same cache then runs V and must
// get V's own program (control: V alone on an empty cache prints clean).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, planned, failures } from './tap.mjs';

const [server, lang] = process.argv.slice(2);

// The same snippets as tests/runner/test-compiled.py: a hello, a compile
// error and its line, a runtime error and its line (null: a signal ends
// it, with no traceback to read).
const CASES = {
  c: {
    hello: '#include <stdio.h>\nint main(void) { puts("hello from C"); return 0; }\n',
    compileError: '#include <stdio.h>\nint main(void) {\n  int x = 1;\n  return y;\n}\n',
    compileLine: 4,
    runtimeError: '#include <stdlib.h>\nint main(void) {\n  abort();\n}\n',
    runtimeLine: null,
  },
  cpp: {
    hello: '#include <iostream>\nint main() { std::cout << "hello from C++" << std::endl; }\n',
    compileError: '#include <vector>\nint main() {\n  std::vector<int> v;\n  v.push_bakc(1);\n}\n',
    compileLine: 4,
    runtimeError: '#include <stdexcept>\nint main() {\n  throw std::runtime_error("boom");\n}\n',
    runtimeLine: null,
  },
  rust: {
    hello: 'fn main() { println!("hello from Rust"); }\n',
    compileError: 'fn main() {\n    let x = 1;\n    println!("{}", y);\n}\n',
    compileLine: 3,
    runtimeError: 'fn main() {\n    let v: Vec<i32> = Vec::new();\n    println!("{}", v[3]);\n}\n',
    runtimeLine: 3,
  },
  go: {
    hello: 'package main\n\nimport "fmt"\n\nfunc main() { fmt.Println("hello from Go") }\n',
    compileError: 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println(y)\n}\n',
    compileLine: 6,
    runtimeError: 'package main\n\nfunc main() {\n\tvar a []int\n\t_ = a[5]\n}\n',
    runtimeLine: 5,
  },
  typescript: {
    hello: 'const who: string = "TypeScript";\nconsole.log(`hello from ${who}`);\n',
    compileError: 'const a: number = 1;\nconst b = a +;\n',
    compileLine: 2,
    runtimeError: 'function f(): void {\n  throw new Error("boom");\n}\nf();\n',
    runtimeLine: 2,
  },
  ruby: {
    hello: 'puts "hello from Ruby"\n',
    compileError: 'puts 1\ndef x(\n',
    compileLine: 2,
    runtimeError: 'def f\n  raise ArgumentError, "bad"\nend\nf\n',
    runtimeLine: 2,
  },
  // Issue 42: R (a parse error found before anything runs) and Java (the
  // JDK's source launcher; javac's error is found before main runs).
  r: {
    hello: 'cat("hello from R\\n")\n',
    compileError: 'x <- 1\nx y\n',
    compileLine: 2,
    runtimeError: 'f <- function() {\n  stop("boom")\n}\nf()\n',
    runtimeLine: 2,
  },
  java: {
    hello: 'public class Main {\n  public static void main(String[] a) {\n'
      + '    System.out.println("hello from Java");\n  }\n}\n',
    compileError: 'public class Main {\n  public static void main(String[] a) {\n'
      + '    int x = "s";\n  }\n}\n',
    compileLine: 3,
    runtimeError: 'public class Main {\n  static void f() {\n'
      + '    throw new IllegalStateException("boom");\n  }\n'
      + '  public static void main(String[] a) {\n    f();\n  }\n}\n',
    runtimeLine: 3,
  },
};
const CASE = CASES[lang];
if (!server || !CASE) {
  console.error('usage: node test-mcp-langs.mjs SANDPAD_MCP LANGUAGE');
  process.exit(2);
}
const compiled = !['ruby', 'r', 'java'].includes(lang);

const mode = process.env.SANDPAD_TEST_SANDBOX ?? 'namespaces';
const state = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-langs-state-'));
const textOf = (result) => result.content.filter((c) => c.type === 'text')
  .map((c) => c.text).join('');

async function connect(cache) {
  const transport = new StdioClientTransport({
    command: server, args: ['--sandbox', mode, '--strict'], stderr: 'inherit',
    env: { XDG_STATE_HOME: state, XDG_CACHE_HOME: path.join(state, cache) },
  });
  const client = new Client({ name: 'sandpad-mcp-langs-test', version: '1.0' });
  await client.connect(transport);
  return { client, transport };
}

const POISON_CODE = '#include <stdio.h>\nint main(void) { puts("clean"); return 0; }\n';

// Two clients in turn over one cache: the first plants, the second runs V.
async function poisoned() {
  const execute = (client, args) => client.callTool({ name: 'execute_code',
    arguments: { language: 'c', timeout: 120, ...args } }, undefined, { timeout: 300000 });
  let c = await connect('control-cache');
  try {
    const r = await execute(c.client, { code: POISON_CODE });
    ok(r.structuredContent?.stdout === 'clean\n',
      `${mode}: control: V on an empty cache prints clean`, r.structuredContent);
  } finally {
    await c.transport.close();
  }
  c = await connect('shared-cache');
  try {
    const r = await execute(c.client, {
      code: POISON_CODE, env: { CPATH: 'inc' },
      files: [{ path: 'inc/stdio.h',
        content: '#include_next <stdio.h>\n#define puts(s) puts("planted")\n' }] });
    console.log(`# the attack printed ${JSON.stringify(r.structuredContent?.stdout)}`);
  } finally {
    await c.transport.close();
  }
  c = await connect('shared-cache');
  try {
    const r = await execute(c.client, { code: POISON_CODE });
    ok(r.structuredContent?.stdout === 'clean\n',
      `${mode}: a second sandpad-mcp over the same cache runs V's own program`,
      r.structuredContent);
  } finally {
    await c.transport.close();
  }
}

async function main() {
  const transport = new StdioClientTransport({
    command: server, args: ['--sandbox', mode, '--strict'], stderr: 'inherit',
    // The compile cache too ($XDG_CACHE_HOME/sandpad/compiled): a first
    // compile every time, and nothing left in the home of whoever tests.
    env: { XDG_STATE_HOME: state, XDG_CACHE_HOME: path.join(state, 'cache') },
  });
  const client = new Client({ name: 'sandpad-mcp-langs-test', version: '1.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const exec = tools.find((t) => t.name === 'execute_code');
    ok(exec?.inputSchema?.properties?.language?.enum?.includes(lang),
      `execute_code's language enum offers ${lang}`, exec?.inputSchema?.properties?.language);
    // Go compiles its runtime from an empty cache in the run's /tmp: give
    // every call the longest timeout a call may have.
    const call = (code) => client.callTool({ name: 'execute_code',
      arguments: { language: lang, code, timeout: 300 } }, undefined, { timeout: 600000 });

    let r = await call(CASE.hello);
    if (r.isError && /is unavailable/.test(textOf(r))) {
      console.log(`1..0 # SKIP ${lang}'s toolchain is not installed here: ${textOf(r)}`);
      return true;
    }
    let sc = r.structuredContent;
    ok(r.isError !== true && sc?.exit_code === 0 && sc.stdout.startsWith('hello from '),
      `${mode}: a ${lang} hello runs and prints`, sc);
    ok(sc?.sandbox?.mode === mode, `in ${mode} mode`, sc?.sandbox);

    r = await call(CASE.compileError);
    sc = r.structuredContent;
    ok(r.isError !== true && sc?.exit_code !== 0 && sc?.exit_code !== undefined,
      'a compile error is a normal result that failed, not a tool error', sc);
    ok(sc?.error?.line === CASE.compileLine && sc.error.syntax === true,
      `the result's error is structured, on line ${CASE.compileLine}, found before the program ran`,
      sc?.error);
    if (compiled) {
      ok(/The compile failed \(exit code \d+\); the program did not run\./.test(textOf(r))
        && sc?.stdout === '', 'the text says the compile failed and no program ran', textOf(r));
    }

    r = await call(CASE.runtimeError);
    sc = r.structuredContent;
    ok(r.isError !== true && (sc?.exit_code !== 0 || sc?.signal !== null),
      'a runtime error fails the program', sc);
    ok(!/The compile failed/.test(textOf(r)), 'after a compile that worked', textOf(r));
    if (CASE.runtimeLine !== null) {
      ok(sc?.error?.line === CASE.runtimeLine && !sc.error.syntax,
        `its error is on line ${CASE.runtimeLine}, not a compile error`, sc?.error);
    } else {
      ok(sc?.signal === 6 && sc.exit_code === null, 'ended by SIGABRT, and says so', sc);
    }
    if (lang === 'r') {
      // As Rscript runs a file: a visible top-level value is printed.
      sc = (await call('x <- 20\nx + 1\ninvisible(x)\n')).structuredContent;
      ok(sc?.stdout === '[1] 21\n', 'R prints a visible top-level value, not an invisible one', sc);
      // An R session keeps its global environment between calls.
      const inSession = (code, extra = {}) => client.callTool({ name: 'execute_code',
        arguments: { language: 'r', code, session_id: 'rs', timeout: 60, ...extra } },
      undefined, { timeout: 120000 });
      sc = (await inSession('y <- 2\nsq <- function(n) n * n\n')).structuredContent;
      ok(sc?.exit_code === 0 && sc?.session?.new === true, 'an R session starts', sc);
      sc = (await inSession('sq(y + 1)\nSys.getenv("TAG")\n', { env: { TAG: 'one' } }))
        .structuredContent;
      ok(sc?.stdout === '[1] 9\n[1] "one"\n' && sc?.session?.new === false
        && sc?.session?.execution_count === 2,
      'the next call sees its variable and function, and its own env', sc);
      sc = (await inSession('Sys.getenv("TAG", "gone")\n')).structuredContent;
      ok(sc?.stdout === '[1] "gone"\n', "a call's env is gone after it", sc);
    }
    if (lang === 'java') {
      // A Java session is one JShell: declarations stay, values show.
      const inSession = (code) => client.callTool({ name: 'execute_code',
        arguments: { language: 'java', code, session_id: 'js', timeout: 120 } },
      undefined, { timeout: 240000 });
      sc = (await inSession('int y = 2;\nint sq(int n) { return n * n; }\n')).structuredContent;
      ok(sc?.exit_code === 0 && sc?.session?.new === true, 'a Java session starts', sc);
      sc = (await inSession('sq(y + 1)\n')).structuredContent;
      ok(/^\$[0-9]+ ==> 9\n$/.test(sc?.stdout ?? '') && sc?.session?.new === false,
        'the next call sees its variable and method, and shows the value as jshell does', sc);
    }
  } finally {
    await transport.close();
  }
  if (lang === 'c')
    await poisoned();
  return false;
}

let skipped = false;
try {
  skipped = await main();
} catch (e) {
  ok(false, 'the test threw', String(e?.stack ?? e));
}
fs.rmSync(state, { recursive: true, force: true });
if (!skipped)
  console.log(`1..${planned()}`);
process.exit(failures() ? 1 : 0);
