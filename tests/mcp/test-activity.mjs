// test-activity.mjs: the live journal (live.jsonl) and Stop by a cancel
// request file, against the real sandpad-mcp driven by the SDK client.
//
//   node test-activity.mjs SANDPAD_MCP GROUP      (GROUP: live, stop, shapes)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [server, group] = process.argv.slice(2);
let n = 0;
let failed = 0;
function ok(cond, what, detail) {
  n++;
  console.log(`${cond ? 'ok' : 'not ok'} ${n} - ${what}`);
  if (!cond) {
    failed++;
    if (detail !== undefined)
      console.log(`  # ${JSON.stringify(detail).slice(0, 2000)}`);
  }
}

const state = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-activity-state-'));
const journal = path.join(state, 'sandpad', 'journal');
const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-activity-ws-'));
// As root, runs are nobody's, and the workspace must be theirs.
if (process.getuid() === 0) fs.chownSync(workspace, 65534, 65534);
const extraArgs = process.env.SANDPAD_TEST_SANDBOX ? ['--sandbox', process.env.SANDPAD_TEST_SANDBOX] : [];

const readLines = (name) => {
  const file = path.join(journal, name);
  return fs.existsSync(file)
    ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l)) : [];
};
// The app's own decoder (src/protocol/sp-journal.c, through
// tests/protocol/journal-check) reads every line the server wrote: a key
// the writer adds or drops without the schema (docs/journal.md) fails here.
function checkJournal(kind, names) {
  const files = names.map((n) => path.join(journal, n)).filter((f) => fs.existsSync(f));
  const r = spawnSync(process.env.SANDPAD_JOURNAL_CHECK ?? 'journal-check', [kind, ...files],
    { encoding: 'utf8' });
  ok(files.length > 0 && r.status === 0, `every line of ${names.join(', ')} decodes strictly`,
    r.stderr || r.error?.message);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function waitFor(cond, ms) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const v = cond();
    if (v)
      return v;
    await sleep(50);
  }
  return cond();
}

const transport = new StdioClientTransport({
  command: server, args: [...extraArgs, '--workspace', workspace], stderr: 'inherit',
  env: { XDG_STATE_HOME: state },
});
const client = new Client({ name: 'sandpad-activity-test', version: '1.0' });
await client.connect(transport);
await client.listTools();

const groups = {};

// Start and output are in live.jsonl while the call is still going; the
// end follows; runs.jsonl still has one line per run.
groups.live = async () => {
  let answered = false;
  const call = client.callTool({ name: 'execute_code', arguments: { language: 'python',
    code: 'import sys, time\nprint("first", flush=True)\nprint("oops", file=sys.stderr, flush=True)\ntime.sleep(2)\nprint("second")' } },
  undefined, { timeout: 120000 }).then((r) => { answered = true; return r; });
  const seen = await waitFor(() => {
    const lines = readLines('live.jsonl');
    return lines.some((l) => l.event === 'output' && l.text.includes('first')) ? lines : null;
  }, 60000);
  ok(seen && !answered, 'the output is in live.jsonl before the call answers', { seen, answered });
  const start = seen?.find((l) => l.event === 'start');
  ok(start?.tool === 'execute_code' && start?.input?.code?.includes('print("first"')
    && start?.workspace === workspace && /^\d+-mcp-\d+$/.test(start?.run ?? ''),
  'the start line names the run, tool, code and workspace', start);
  ok(seen?.some((l) => l.event === 'output' && l.stream === 'stderr' && l.text.includes('oops')),
    'stderr is there too, by stream', seen);
  const result = await call;
  const lines = readLines('live.jsonl');
  const end = lines.find((l) => l.event === 'end');
  ok(end?.run === start?.run && end?.end === 'exited' && end?.exit_code === 0
    && end?.stdout === 'first\nsecond\n', 'the end line has the result under the same run', end);
  ok(result.structuredContent?.end === 'exited', 'the call answered normally', result.structuredContent);
  ok(readLines('runs.jsonl').length === 1, 'runs.jsonl still has one line per run');
  ok((fs.statSync(path.join(journal, 'live.jsonl')).mode & 0o777) === 0o600, 'live.jsonl is private');
  checkJournal('live', ['live.jsonl']);
  checkJournal('runs', ['runs.jsonl']);
};

// A cancel request file stops the run; the call answers "cancelled".
groups.stop = async () => {
  const sleepS = 120;
  const t0 = Date.now();
  const call = client.callTool({ name: 'execute_code', arguments: { language: 'python',
    code: `import time\nprint("going", flush=True)\ntime.sleep(${sleepS})`, timeout: 200 } },
  undefined, { timeout: 200000 });
  const start = await waitFor(() => readLines('live.jsonl').find((l) => l.event === 'start'), 60000);
  ok(start !== undefined, 'the run is in live.jsonl');
  await waitFor(() => readLines('live.jsonl').some((l) => l.event === 'output'), 60000);
  fs.mkdirSync(path.join(journal, 'cancel'), { recursive: true, mode: 0o700 });
  const request = path.join(journal, 'cancel', start.run);
  fs.writeFileSync(request, '');
  const result = await call;
  ok(result.structuredContent?.end === 'cancelled', 'the call answers with end "cancelled"',
    result.structuredContent);
  // Shorter than the program's own sleep, however slow the machine.
  ok(Date.now() - t0 < sleepS * 1000, 'before the program would have ended', Date.now() - t0);
  ok(!fs.existsSync(request), 'the request file is removed');
  const end = readLines('live.jsonl').find((l) => l.event === 'end');
  ok(end?.run === start.run && end?.end === 'cancelled', 'live.jsonl says it was cancelled', end);
  // A request for a run that is not (or no longer) going changes nothing.
  fs.writeFileSync(path.join(journal, 'cancel', `${start.run}x`), '');
  const after = await client.callTool({ name: 'execute_code', arguments: { language: 'bash', code: 'echo fine' } });
  ok(after.structuredContent?.end === 'exited' && after.structuredContent?.stdout === 'fine\n',
    'other runs go on');
  checkJournal('live', ['live.jsonl']);
};

// Every tool, with every input and result shape the journal can get,
// through the real server; then every line of both files must decode
// strictly (a line the app refuses is a run the Activity view never
// shows), and no input file's content, display's data, image's base64 or
// variable's value may be in the journal (it would grow without bound,
// or keep a secret).
groups.shapes = async () => {
  // The programs print it backwards: their output is journalled, and
  // must be.
  const secret = 'journal-secret-4c1d';
  const reversed = [...secret].reverse().join('');
  const payload = 'P'.repeat(200000);
  const call = async (name, args) => {
    const r = await client.callTool({ name, arguments: args }, undefined, { timeout: 240000 });
    ok(r.structuredContent !== undefined, `${name} answered`, r);
    return r.structuredContent ?? {};
  };
  let sc = await call('execute_code', { language: 'python', code: 'import os\nprint(os.environ["TOKEN"][::-1])',
    env: { TOKEN: secret }, files: [{ path: 'in.txt', content: payload },
      { path: 'in.bin', base64: Buffer.from(payload).toString('base64') }], stdin: 'x', memory_mib: 256, timeout: 60 });
  ok(sc.stdout === `${reversed}\n`, 'execute_code with env and files ran', sc);
  sc = await call('execute_code', { language: 'python', code: 'import os\nfrom PIL import Image\n'
    + 'print("before")\ndisplay(Image.frombytes("RGB", (256, 256), os.urandom(256 * 256 * 3)))\n"v" * 5000' });
  ok(sc.displays?.length === 2, 'execute_code made two displays (an image, a long value)', sc.displays?.length);
  sc = await call('execute_code', { language: 'c', code: '#include <stdio.h>\nint main (void) { puts ("hi from c"); return 3; }\n' });
  ok(sc.end !== undefined, 'execute_code in C answered', sc);
  await call('execute_code', { language: 'python', code: 'x = 1', session_id: 'jrn' });
  await call('list_sessions', {});
  await call('restart_session', { session_id: 'jrn' });
  await call('close_session', { session_id: 'jrn' });
  sc = await call('execute_command', { command: 'echo cmd', work_dir: '.', timeout: 30 });
  ok(sc.stdout === 'cmd\n', 'execute_command ran', sc);
  sc = await call('edit_and_execute', { file_path: 'e.py', args: ['a'],
    edits: [{ command: 'create', file_text: 'import os\nprint(os.environ.get("TOKEN")[::-1])\n' }],
    execution_config: { environment: { TOKEN: secret }, timeout: 30, capture_output: true } });
  ok(sc.stdout === `${reversed}\n`, 'edit_and_execute with execution_config ran', sc);
  sc = await call('code_execution', { language: 'python', timeout: 60, return_base64: true,
    capture_output: true, environment: { TOKEN: secret }, code: 'import os\nfrom PIL import Image\n'
      + 'Image.frombytes("RGB", (256, 256), os.urandom(256 * 256 * 3)).save("noise.png")\nprint(os.environ["TOKEN"][::-1])' });
  ok(typeof sc.base64_output === 'string' && sc.base64_output.length > 100000,
    'code_execution returned its image as base64', sc.base64_output?.length);
  sc = await call('code_execution', { language: 'python', code: 'print("never")', install_packages: ['numpy'] });
  ok(sc.end === 'refused', 'code_execution with a package and no environment is refused', sc);

  const names = ['live.jsonl', 'live.1.jsonl'];
  checkJournal('live', names);
  checkJournal('runs', ['runs.jsonl', 'runs.1.jsonl']);
  const all = [...names, 'runs.jsonl', 'runs.1.jsonl'].map((f) => path.join(journal, f))
    .filter((f) => fs.existsSync(f)).map((f) => fs.readFileSync(f, 'utf8')).join('');
  const longest = Math.max(...all.split('\n').map((l) => l.length));
  ok(longest < 64 * 1024, 'no journal line is over 64 KiB (no file content, display data or base64)', longest);
  ok(!all.includes(secret), 'no variable\'s value is in the journal',
    all.split('\n').filter((l) => l.includes(secret)).map((l) => l.slice(0, 600)));
  const runs = readLines('runs.jsonl');
  const tools = runs.map((l) => l.tool);
  ok(['execute_code', 'execute_command', 'edit_and_execute', 'code_execution'].every((t) => tools.includes(t))
    && tools.filter((t) => t === 'code_execution').length === 2,
  'runs.jsonl has every run, code_execution\'s refused one too', tools);
  ok(!tools.some((t) => /session/.test(t)), 'the session tools run nothing and journal nothing', tools);
};

try {
  if (!groups[group])
    throw new Error(`unknown group ${group}`);
  await groups[group]();
} catch (e) {
  ok(false, `group ${group} threw`, String(e?.stack ?? e));
}
await transport.close();
fs.rmSync(state, { recursive: true, force: true });
fs.rmSync(workspace, { recursive: true, force: true });
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
