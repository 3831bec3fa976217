// test-mcp-resident.mjs: a session continued by another client (issue 42,
// E2B's reconnect), through the official MCP TypeScript SDK client against
// the real sandpad-mcp and the real resident runner it starts.
//
//   node test-mcp-resident.mjs SANDPAD_MCP
//
// With --resident-sessions, client A's execute_code session lives in the
// user's resident runner: A's server exits, and client B, a new
// sandpad-mcp of the same user, continues it by its session_id (state,
// execution count). Controls: a server without the option starts that id
// afresh; close_session through B ends it for everyone. A call's files
// with a resident session are refused, saying why. The resident runner is
// this build's, in a runtime directory of the test's own, told to exit
// when idle and stopped at the end.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, planned, failures } from './tap.mjs';

const [server] = process.argv.slice(2);
if (!server) {
  console.error('usage: node test-mcp-resident.mjs SANDPAD_MCP');
  process.exit(2);
}

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-resident-'));
const runtime = path.join(scratch, 'runtime');
fs.mkdirSync(runtime, { mode: 0o700 });
const textOf = (result) => result.content.filter((c) => c.type === 'text')
  .map((c) => c.text).join('');

async function connect(name, resident) {
  const transport = new StdioClientTransport({
    command: server, args: resident ? ['--resident-sessions'] : [], stderr: 'inherit',
    env: {
      PATH: process.env.PATH, HOME: scratch,
      XDG_STATE_HOME: path.join(scratch, `state-${name}`),
      XDG_CACHE_HOME: path.join(scratch, 'cache'),
      XDG_RUNTIME_DIR: runtime,
      SANDPAD_RUNNER_IDLE_EXIT: '5',
    },
  });
  const client = new Client({ name: `sandpad-mcp-resident-${name}`, version: '1.0' });
  await client.connect(transport);
  const call = (args) => client.callTool({ name: 'execute_code',
    arguments: { language: 'python', timeout: 60, ...args } }, undefined, { timeout: 120000 });
  return { client, transport, call };
}

async function main() {
  const a = await connect('a', true);
  let r = await a.call({ code: 'x = 41\nimport json', session_id: 'shared' });
  ok(r.isError !== true && r.structuredContent?.session?.new === true,
    'client A starts session "shared" in the resident runner', r.structuredContent ?? textOf(r));
  r = await a.call({ code: 'y = x + 1', session_id: 'shared' });
  ok(r.structuredContent?.session?.execution_count === 2, "A's second call is the session's 2nd",
    r.structuredContent);
  await a.transport.close();

  const b = await connect('b', true);
  try {
    r = await b.call({ code: 'print(y, json.dumps([x]))', session_id: 'shared' });
    ok(r.structuredContent?.stdout === '42 [41]\n' && r.structuredContent?.session?.new === false,
      'client B, a new server, continues the session A started: its variables and imports',
      r.structuredContent ?? textOf(r));
    ok(r.structuredContent?.session?.execution_count === 3,
      "B's first call is the session's 3rd, as the runner counts", r.structuredContent?.session);
    r = await b.call({ code: 'x', session_id: 'shared', files: [{ path: 'in.txt', content: 'a' }] });
    ok(r.isError === true && /resident runner/.test(textOf(r)),
      "a call's files with a resident session are refused, saying why", textOf(r));

    // Control: a server without the option has sessions of its own.
    const c = await connect('c', false);
    try {
      r = await c.call({ code: 'print(x)', session_id: 'shared' });
      ok(r.structuredContent?.error?.type === 'NameError'
        && r.structuredContent?.session?.new === true,
      "control: without --resident-sessions the same id is a new session of that server's",
      r.structuredContent);
    } finally {
      await c.transport.close();
    }

    r = await b.client.callTool({ name: 'close_session', arguments: { session_id: 'shared' } });
    ok(r.isError !== true, 'close_session through B closes it in the resident runner', textOf(r));
    r = await b.call({ code: "print('x' in dir())", session_id: 'shared' });
    ok(r.structuredContent?.stdout === 'False\n' && r.structuredContent?.session?.new === true,
      'after close the id starts afresh, for every client', r.structuredContent);
    await b.client.callTool({ name: 'close_session', arguments: { session_id: 'shared' } });
  } finally {
    await b.transport.close();
  }
}

try {
  await main();
} catch (e) {
  ok(false, 'the test threw', String(e?.stack ?? e));
}
// The resident runner this test started listens in its runtime directory.
try {
  execFileSync('pkill', ['-f', '--', `--listen=${runtime}/`]);
} catch {
  // it had exited by itself
}
fs.rmSync(scratch, { recursive: true, force: true });
console.log(`1..${planned()}`);
process.exit(failures() ? 1 : 0);
