// test-mcp-session-js.mjs: what a session call gives beyond state, through
// the official MCP TypeScript SDK client against the real sandpad-mcp
// (real engine, sandbox, node and python3); the SDK validates every
// structuredContent against the tool's outputSchema. Groups:
//   values  a JavaScript session's completion value as a display, in the
//           shape a Python session's value has; top-level await
//   stdin   a JavaScript session call reads the call's stdin
//   files   input files with session_id land in the session's directory,
//           created files come back, a planted symlink is not followed
//
//   node test-mcp-session-js.mjs SANDPAD_MCP GROUP
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, planned, failures } from './tap.mjs';

const [server, group] = process.argv.slice(2);
if (!server || !group) {
  console.error('usage: node test-mcp-session-js.mjs SANDPAD_MCP GROUP');
  process.exit(2);
}

const extraArgs = process.env.SANDPAD_TEST_SANDBOX
  ? ['--sandbox', process.env.SANDPAD_TEST_SANDBOX] : [];
const state = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-state-'));
const textOf = (result) => result.content.filter((c) => c.type === 'text')
  .map((c) => c.text).join('');
const values = (r) => (r.structuredContent?.displays ?? []).map((d) => d.data);

async function testValues(call) {
  let r = await call({ language: 'javascript', code: 'x = 4; x', session_id: 'j' });
  ok(r.isError !== true && JSON.stringify(values(r)) === '[{"text/plain":"4"}]'
    && r.structuredContent?.stdout === '',
  'a JavaScript session shows `x = 4; x` as a display of 4', r.structuredContent);
  const py = await call({ language: 'python', code: 'x = 4\nx', session_id: 'p' });
  ok(JSON.stringify(py.structuredContent?.displays)
    === JSON.stringify(r.structuredContent?.displays),
  'in the same shape as a Python session\'s value', [py.structuredContent, r.structuredContent]);
  r = await call({ language: 'javascript', code: "console.log('hi'); [x, 'a']",
    session_id: 'j' });
  ok(JSON.stringify(values(r)) === '[{"text/plain":"[ 4, \'a\' ]"}]'
    && r.structuredContent?.displays?.[0]?.stdout_offset === 3,
  'the value comes after the print, as util.inspect shows it', r.structuredContent);
  r = await call({ language: 'javascript', code: 'let y = x + 1;', session_id: 'j' });
  ok(r.isError !== true && values(r).length === 0, 'undefined is not shown', r.structuredContent);
  // Top-level await, as node's REPL and E2B's JavaScript contexts take it
  // (issue 42 item 4): its declarations stay for the next call, its last
  // expression is the value, an error names the snippet's line.
  r = await call({ language: 'javascript', session_id: 'j',
    code: 'const z = await new Promise((f) => setTimeout(() => f(y * 10), 10));\nz + 1' });
  ok(r.isError !== true && JSON.stringify(values(r)) === '[{"text/plain":"51"}]',
    'a top-level await gives its value', r.structuredContent);
  r = await call({ language: 'javascript', code: 'z', session_id: 'j' });
  ok(JSON.stringify(values(r)) === '[{"text/plain":"50"}]', 'what it declared stays', r.structuredContent);
  r = await call({ language: 'javascript', session_id: 'j',
    code: 'await null;\nundefinedName.x' });
  ok(r.structuredContent?.error?.type === 'ReferenceError' && r.structuredContent.error.line === 2,
    'an error after an await is at its own line (2)', r.structuredContent);
  // Control: a snippet that is a script already runs as sent (its own
  // `let` is the session's, as before), await in its text or not.
  r = await call({ language: 'javascript', code: 'let w = "await";\nw', session_id: 'j' });
  ok(JSON.stringify(values(r)) === '[{"text/plain":"\'await\'"}]', 'control: a script runs as sent',
    r.structuredContent);
}

async function testStdin(call) {
  const code = "console.log(JSON.stringify(require('fs').readFileSync(0, 'utf8')))";
  const cold = await call({ language: 'javascript', code, stdin: 'Ada\nGrace\n' });
  const warm = await call({ language: 'javascript', code, stdin: 'Ada\nGrace\n',
    session_id: 'j' });
  ok(warm.isError !== true && warm.structuredContent?.stdout === '"Ada\\nGrace\\n"\n'
    && warm.structuredContent?.stdout === cold.structuredContent?.stdout,
  'a JavaScript session call reads its stdin as a cold call does',
  [cold.structuredContent, warm.structuredContent]);
  const r = await call({ language: 'javascript', code, session_id: 'j' });
  ok(r.structuredContent?.stdout === '""\n', 'the next call without stdin reads EOF at once',
    r.structuredContent);
}

// Input files with session_id: written by the engine as the run starts,
// into the session's own directory, through its held fd. The session's
// code from an earlier call may have planted anything at a path (a
// symlink to a file outside, a directory, a FIFO, a hard link): the write
// refuses it with a clear error and changes nothing outside.
async function testFiles(call, text) {
  const py = (code, extra = {}) => call({ language: 'python', code, session_id: 'f', ...extra });
  const resources = (r) => r.content.filter((c) => c.type === 'resource').map((c) => c.resource);
  let r = await py('x = 1');
  ok(r.isError !== true && r.structuredContent?.session?.new === true, 'the session starts', r);

  const bin = Buffer.from([0, 1, 2, 255, 10]);
  r = await py('print(x, open("in/a.txt").read(), list(open("d.bin", "rb").read()))\n'
    + 'open("out.txt", "w").write("made ✓")\nopen("big.txt", "w").write("y" * 300000)',
  { files: [{ path: 'in/a.txt', content: 'hello' }, { path: 'd.bin', base64: bin.toString('base64') }] });
  let sc = r.structuredContent;
  ok(r.isError !== true && sc?.stdout === '1 hello [0, 1, 2, 255, 10]\n' && sc.session?.new === false,
    'input files with session_id land in the session\'s directory before the run, state kept', r);
  const out = resources(r).find((c) => c.uri.endsWith('/out.txt'));
  ok(out?.text === 'made ✓' && sc.files?.find((f) => f.path === 'out.txt')?.inline === true,
    'a file the session run created comes back as an embedded resource', r.content);
  ok(sc?.files?.some((f) => f.path === 'big.txt' && f.inline === undefined)
    && !resources(r).some((c) => c.uri.endsWith('/big.txt')),
  'one past the per-file cap is listed, not embedded', sc?.files);
  ok(!sc?.files?.some((f) => f.path === 'in/a.txt' || f.path === 'd.bin'),
    'input files the run left alone are not listed as created', sc?.files);

  r = await py('print(open("in/a.txt").read())');
  ok(r.structuredContent?.stdout === 'hello\n', 'the session\'s next run reads them too', r);
  r = await py('print(open("in/a.txt").read())', { files: [{ path: 'in/a.txt', content: 'again' }] });
  ok(r.structuredContent?.stdout === 'again\n', 'a later call replaces a file at the same path', r);
  const js = await call({ language: 'javascript', session_id: 'fj', code:
    "require('fs').readFileSync('j.txt', 'utf8')", files: [{ path: 'j.txt', content: 'js in' }] });
  ok(JSON.stringify(values(js)) === '[{"text/plain":"\'js in\'"}]',
    'a JavaScript session call gets its files as well', js.structuredContent);

  // A queued call's files land when it starts, not when it arrives: the
  // run before it sees none of them and cannot overwrite them.
  const [first, second] = await Promise.all([
    py('import os, time\ntime.sleep(1)\nprint(os.path.exists("q.txt"))\n'
      + 'open("q.txt", "w").write("from the first")'),
    py('print(open("q.txt").read())', { files: [{ path: 'q.txt', content: 'from the second' }] }),
  ]);
  ok(first.structuredContent?.stdout === 'False\n'
    && second.structuredContent?.stdout === 'from the second\n',
  'a queued session call\'s files are written as it starts', [first.structuredContent, second.structuredContent]);

  // What the session's code plants. The outside file is the test's own,
  // in a directory the run cannot see (namespaces) or write (fallback).
  const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-outside-')));
  const secret = path.join(outside, 'secret.txt');
  fs.writeFileSync(secret, 'original');
  try {
    // Control: a writer that follows symlinks changes the outside file.
    const probe = path.join(outside, 'probe-link');
    fs.symlinkSync(secret, probe);
    fs.writeFileSync(probe, 'through the link');
    ok(fs.readFileSync(secret, 'utf8') === 'through the link',
      'control: writing through such a symlink reaches the file outside');
    fs.writeFileSync(secret, 'original');

    r = await py(`import os\nos.symlink(${JSON.stringify(secret)}, "planted.txt")\n`
      + `os.symlink(${JSON.stringify(outside)}, "pdir")\nos.mkfifo("fifo")\nos.mkdir("adir")\n`
      + 'open("one", "w").write("1")\nos.link("one", "two")\nprint("planted")');
    ok(r.structuredContent?.stdout === 'planted\n', 'the session plants its traps', r);
    for (const [file, why] of [['planted.txt', /symlink/], ['pdir/new.txt', /symlink/],
      ['fifo', /FIFO|regular/], ['adir', /directory/], ['two', /hard link/]]) {
      r = await py('print("ran")', { files: [{ path: file, content: 'pwned' }] });
      ok(r.isError === true && text(r).includes(file) && why.test(text(r))
        && r.structuredContent?.stdout !== 'ran\n',
      `input file at a planted ${file} is refused clearly, nothing runs`, text(r));
    }
    ok(fs.readFileSync(secret, 'utf8') === 'original' && !fs.existsSync(path.join(outside, 'new.txt')),
      'the file outside is unchanged and nothing was made beside it');
    r = await py('print(x, open("one").read(), os.path.islink("planted.txt"))');
    ok(r.structuredContent?.stdout === '1 1 True\n', 'the session lost nothing', r.structuredContent);
  } finally {
    fs.rmSync(outside, { recursive: true, force: true });
  }

  // The disk cap (the server's --disk 1) holds for a session call's files.
  r = await py('print("ran")', { files: [{ path: 'big', base64: Buffer.alloc(1100000).toString('base64') }] });
  ok(r.isError === true && /disk/.test(text(r)), 'input files over the disk cap are refused', text(r));
}

const groups = { values: testValues, stdin: testStdin, files: testFiles };
const groupArgs = { files: ['--disk', '1'] };

async function main() {
  const transport = new StdioClientTransport({
    command: server, args: [...extraArgs, ...(groupArgs[group] ?? [])], stderr: 'inherit', env: { XDG_STATE_HOME: state },
  });
  const client = new Client({ name: 'sandpad-mcp-session-js-test', version: '1.0' });
  await client.connect(transport);
  await client.listTools(); // caches the outputSchema the SDK validates against
  const call = (args) => client.callTool({ name: 'execute_code', arguments: args });
  await groups[group](call, textOf);
  await transport.close();
}

try {
  await main();
} catch (e) {
  ok(false, 'the test threw', String(e?.stack ?? e));
}
fs.rmSync(state, { recursive: true, force: true });
console.log(`1..${planned()}`);
process.exit(failures() ? 1 : 0);
