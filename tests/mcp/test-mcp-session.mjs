// test-mcp-session.mjs: execute_code's session_id, driven by the official
// MCP TypeScript SDK client against the real sandpad-mcp (real engine,
// real sandbox, real python3). The SDK validates every structuredContent
// against the tool's outputSchema (cached by listTools).
//
//   node test-mcp-session.mjs SANDPAD_MCP
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, planned, failures } from './tap.mjs';

const [server] = process.argv.slice(2);
if (!server) {
  console.error('usage: node test-mcp-session.mjs SANDPAD_MCP');
  process.exit(2);
}

const extraArgs = process.env.SANDPAD_TEST_SANDBOX
  ? ['--sandbox', process.env.SANDPAD_TEST_SANDBOX] : [];
const state = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-state-'));
const textOf = (result) => result.content.filter((c) => c.type === 'text')
  .map((c) => c.text).join('');

async function main() {
  const transport = new StdioClientTransport({
    command: server, args: extraArgs, stderr: 'inherit', env: { XDG_STATE_HOME: state },
  });
  const client = new Client({ name: 'sandpad-mcp-session-test', version: '1.0' });
  await client.connect(transport);
  const { tools } = await client.listTools();
  const exec = tools.find((t) => t.name === 'execute_code');
  ok(exec?.inputSchema?.properties?.session_id?.type === 'string',
    'execute_code lists session_id in its inputSchema', exec?.inputSchema);
  const call = (args) => client.callTool({ name: 'execute_code',
    arguments: { language: 'python', ...args } });

  let r = await call({ code: 'x = 41\nimport json', session_id: 'a' });
  ok(r.isError !== true && r.structuredContent?.session?.new === true
    && r.structuredContent?.session?.ended === null,
  'the first call with a session_id starts the session', r.structuredContent);
  r = await call({ code: 'print(x + 1, json.dumps(1))', session_id: 'a' });
  ok(r.structuredContent?.stdout === '42 1\n' && r.structuredContent?.session?.new === false,
    'the second call sees the first call\'s variables and imports', r.structuredContent);

  // Control: the same code without the session knows no x.
  r = await call({ code: 'print(x + 1)' });
  ok(r.structuredContent?.error?.type === 'NameError' && r.structuredContent?.session === undefined,
    'control: without session_id, x is not defined', r.structuredContent);
  r = await call({ code: 'print(x + 1)', session_id: 'b' });
  ok(r.structuredContent?.error?.type === 'NameError', 'another session_id is another session',
    r.structuredContent);

  // A crash ends the session with a clear result; the next call starts anew.
  r = await call({ code: 'import os\nos._exit(7)', session_id: 'a' });
  ok(r.structuredContent?.exit_code === 7 && r.structuredContent?.session?.ended === 'exited',
    'a crash (os._exit) ends the session and says so', r.structuredContent);
  ok(/Session a ended/.test(textOf(r)), 'the text block says the session ended', textOf(r));
  r = await call({ code: 'print(x)', session_id: 'a' });
  ok(r.structuredContent?.session?.new === true && r.structuredContent?.error?.type === 'NameError',
    'the next call starts a new session, without the old state', r.structuredContent);
  ok(/new interpreter/.test(textOf(r)), 'and the text block says so', textOf(r));

  // A plot in a later call arrives as a file and an image block.
  r = await call({ code: 'import matplotlib.pyplot as plt\nplt.plot([1, 2])', session_id: 'a' });
  ok(r.structuredContent?.files?.some((f) => f.path === 'plot-1.png')
    && r.content.some((c) => c.type === 'image'), 'a plot in a session call comes back as an image',
  r.structuredContent);

  r = await call({ code: '1', session_id: 'has space' });
  ok(r.isError === true && /session_id/.test(textOf(r)), 'a malformed session_id is refused', r);
  r = await call({ code: '1', session_id: 'a', files: [{ path: '../f.txt', content: 'x' }] });
  ok(r.isError === true && /files/.test(textOf(r)),
    'a bad input file with session_id is refused before it queues, named', r);
  r = await client.callTool({ name: 'execute_code',
    arguments: { language: 'bash', code: 'true', session_id: 'c' } });
  ok(r.isError === true && /python/.test(textOf(r)), 'a session for bash is refused clearly', r);
  await transport.close();
}

// A session given a working_directory in the workspace (E2B's context
// cwd): it runs there for its life; a later call may leave it out;
// another directory is refused while it lives; outside the workspace
// is refused as for any run.
async function workingDirectory() {
  const runUid = process.getuid() === 0 ? 65534 : process.getuid();
  const ws = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-session-ws-'));
  fs.chmodSync(ws, 0o755);
  if (process.getuid() === 0) fs.chownSync(ws, runUid, runUid);
  for (const sub of ['proj', 'other']) {
    fs.mkdirSync(path.join(ws, sub));
    if (process.getuid() === 0) fs.chownSync(path.join(ws, sub), runUid, runUid);
  }
  const transport = new StdioClientTransport({
    command: server, args: [...extraArgs, '--workspace', ws], stderr: 'inherit',
    env: { XDG_STATE_HOME: state },
  });
  const client = new Client({ name: 'sandpad-mcp-session-cwd-test', version: '1.0' });
  await client.connect(transport);
  const call = (args) => client.callTool({ name: 'execute_code',
    arguments: { language: 'python', ...args } });
  let r = await call({ code: "open('notes.txt', 'w').write('kept')\nn = 7",
    session_id: 'w', working_directory: 'proj' });
  ok(r.isError !== true && fs.readFileSync(path.join(ws, 'proj', 'notes.txt'), 'utf8') === 'kept'
    && r.structuredContent?.files?.some((f) => f.path === 'notes.txt'),
  'a session started with working_directory writes there, in the workspace', r.structuredContent);
  r = await call({ code: "import os\nprint(n, open('notes.txt').read(), sorted(os.listdir('.')))",
    session_id: 'w' });
  ok(r.structuredContent?.stdout === "7 kept ['notes.txt']\n",
    'a later call without working_directory runs there too, its state kept', r.structuredContent);
  r = await call({ code: '1', session_id: 'w', working_directory: 'other' });
  ok(r.isError === true && /cwd/.test(textOf(r)),
    'another working_directory is refused while the session lives', textOf(r));
  r = await call({ code: '1', session_id: 'x', working_directory: '/etc' });
  ok(r.isError === true && /not inside the workspace/.test(textOf(r)),
    'a working_directory outside the workspace is refused', textOf(r));
  // Control: without working_directory a session has its own directory.
  r = await call({ code: "import os\nprint(os.path.exists('notes.txt'))", session_id: 'y' });
  ok(r.structuredContent?.stdout === 'False\n', 'control: another session does not run there',
    r.structuredContent);
  await transport.close();
  fs.rmSync(ws, { recursive: true, force: true });
}

try {
  await main();
  await workingDirectory();
} catch (e) {
  ok(false, 'the test threw', String(e?.stack ?? e));
}
fs.rmSync(state, { recursive: true, force: true });
console.log(`1..${planned()}`);
process.exit(failures() ? 1 : 0);
