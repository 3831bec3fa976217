// test-activity.mjs: the live journal (live.jsonl) and Stop by a cancel
// request file, against the real sandpad-mcp driven by the SDK client.
//
//   node test-activity.mjs SANDPAD_MCP GROUP      (GROUP: live, stop)
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
  const t0 = Date.now();
  const call = client.callTool({ name: 'execute_code', arguments: { language: 'python',
    code: 'import time\nprint("going", flush=True)\ntime.sleep(120)', timeout: 200 } },
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
  ok(Date.now() - t0 < 100000, 'long before the program would have ended', Date.now() - t0);
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
