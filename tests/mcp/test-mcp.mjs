// test-mcp.mjs: sandpad-mcp driven by the official MCP TypeScript SDK client.
//
//   node test-mcp.mjs SANDPAD_MCP GROUP
//
// Each group starts its own real server (real runner engine, real sandbox,
// real python3/node/bash) and prints TAP. Nothing here is mocked: the SDK
// speaks the stdio transport to the binary exactly as an assistant's
// client would, and validates every structuredContent against the tool's
// outputSchema itself once tools/list has been called.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import Ajv from 'ajv';
import { ok, planned, failures, skip } from './tap.mjs';

const [server, group] = process.argv.slice(2);
if (!server || !group) {
  console.error('usage: node test-mcp.mjs SANDPAD_MCP GROUP');
  process.exit(2);
}

const extraArgs = process.env.SANDPAD_TEST_SANDBOX
  ? ['--sandbox', process.env.SANDPAD_TEST_SANDBOX] : [];

// Every server gets its own state directory, so the run journal of a
// test never lands in the real home.
const stateDirs = [];
function stateDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-state-'));
  stateDirs.push(dir);
  return dir;
}

async function connect(args = [], state = stateDir()) {
  const transport = new StdioClientTransport({
    command: server, args: [...extraArgs, ...args], stderr: 'inherit',
    env: { XDG_STATE_HOME: state },
  });
  let negotiated = null;
  // The SDK hands the negotiated revision to transports that want it.
  transport.setProtocolVersion = (v) => { negotiated = v; };
  const client = new Client({ name: 'sandpad-mcp-test', version: '1.0' });
  const errors = [];
  client.onerror = (e) => errors.push(String(e));
  await client.connect(transport);
  // Caches the outputSchemas, so every later callTool result is validated.
  const tools = await client.listTools();
  return { client, transport, errors, tools: tools.tools, negotiated: () => negotiated };
}

const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

// A raw line-level client for what the SDK never sends (older revisions,
// responses after a cancel).
function rawServer(args = []) {
  const child = spawn(server, [...extraArgs, ...args], { stdio: ['pipe', 'pipe', 'inherit'],
    env: { ...process.env, XDG_STATE_HOME: stateDir() } });
  let buf = '';
  const waiting = [];
  const messages = [];
  child.stdout.on('data', (d) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\n')) >= 0) {
      const msg = JSON.parse(buf.slice(0, i));
      buf = buf.slice(i + 1);
      messages.push(msg);
      for (const w of [...waiting]) {
        if (w.match(msg)) {
          waiting.splice(waiting.indexOf(w), 1);
          w.resolve(msg);
        }
      }
    }
  });
  return {
    send: (obj) => child.stdin.write(JSON.stringify(obj) + '\n'),
    wait: (match) => {
      const seen = messages.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiting.push({ match, resolve }));
    },
    messages,
    close: () => new Promise((resolve) => { child.on('close', resolve); child.stdin.end(); }),
  };
}

const groups = {
  async handshake() {
    const { client, transport, tools, negotiated } = await connect();
    ok(negotiated() === '2025-11-25', 'the SDK negotiated 2025-11-25', negotiated());
    ok(client.getServerVersion()?.name === 'sandpad-mcp', 'serverInfo names sandpad-mcp',
      client.getServerVersion());
    ok(client.getServerCapabilities()?.tools !== undefined, 'the tools capability is announced');
    ok(typeof client.getInstructions() === 'string', 'instructions are given');
    const pong = await client.ping();
    ok(pong && typeof pong === 'object', 'ping answers');

    const ajv = new Ajv({ strict: false });
    ok(tools.length >= 1, 'tools/list lists tools', tools.map((t) => t.name));
    ok(tools.some((t) => t.name === 'execute_code'), 'execute_code is listed');
    for (const tool of tools) {
      for (const kind of ['inputSchema', 'outputSchema']) {
        const schema = tool[kind];
        let compiled = false;
        try { ajv.compile(schema); compiled = true; } catch (e) { /* reported below */ }
        ok(schema?.type === 'object' && compiled, `${tool.name} has a valid ${kind}`, schema);
      }
    }
    await transport.close();

    // Revisions the SDK does not send: the older one is echoed, an
    // unknown one gets our newest.
    const raw = rawServer();
    raw.send({ jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'r', version: '1' } } });
    let r = await raw.wait((m) => m.id === 1);
    ok(r.result?.protocolVersion === '2025-06-18', '2025-06-18 is echoed', r);
    raw.send({ jsonrpc: '2.0', id: 2, method: 'initialize',
      params: { protocolVersion: '1999-01-01', capabilities: {}, clientInfo: { name: 'r', version: '1' } } });
    r = await raw.wait((m) => m.id === 2);
    ok(r.result?.protocolVersion === '2025-11-25', 'an unknown revision gets 2025-11-25', r);
    await raw.close();
  },

  async python_run() {
    const { client, transport } = await connect();
    let r = await client.callTool({ name: 'execute_code',
      arguments: { language: 'python', code: 'print(sum(range(10)))' } });
    ok(r.isError !== true, 'a Python run is not an error', r);
    ok(r.structuredContent?.end === 'exited' && r.structuredContent?.exit_code === 0,
      'it exited with 0', r.structuredContent);
    ok(r.structuredContent?.stdout === '45\n', 'stdout is 45', r.structuredContent?.stdout);
    ok(textOf(r).includes('45'), 'the text block shows the output', textOf(r));
    ok(r.structuredContent?.sandbox?.layers?.includes('network:off'),
      'the sandbox applied is reported', r.structuredContent?.sandbox);

    r = await client.callTool({ name: 'execute_code', arguments: {
      language: 'python', code: 'import sys\nname = input()\nprint(open("data/in.txt").read() + name)\n'
        + 'sys.stderr.write("bye\\n")\nsys.exit(3)',
      stdin: 'Ada\n', files: [{ path: 'data/in.txt', content: 'hello ' }] } });
    ok(r.isError !== true && r.structuredContent?.exit_code === 3,
      'a non-zero exit is a normal result with its code', r.structuredContent);
    ok(r.structuredContent?.stdout === 'hello Ada\n', 'stdin and files reach the program',
      r.structuredContent?.stdout);
    ok(r.structuredContent?.stderr === 'bye\n', 'stderr is separate', r.structuredContent?.stderr);

    // A program that asks for more input than the assistant gave reads
    // EOF at once: its stdin is closed after the text, so it never waits
    // (no input_wait, no idle cap) and ends on its own.
    r = await client.callTool({ name: 'execute_code', arguments: { language: 'python',
      code: 'a = input()\ntry:\n    input()\nexcept EOFError:\n    print("eof after", a)\n',
      stdin: 'one\n', timeout: 2 } });
    ok(r.structuredContent?.exit_code === 0 && r.structuredContent?.stdout === 'eof after one\n',
      'input() past the given stdin reads EOF, as before', r.structuredContent);

    // The runner's error object, the same sandpad-run --json prints: the
    // line is the one in the function that divided, not the call's.
    r = await client.callTool({ name: 'execute_code', arguments: { language: 'python',
      code: 'def ratio(a, b):\n    return a / b\n\nprint(ratio(1, 0))\n' } });
    const err = r.structuredContent?.error;
    ok(r.isError !== true && r.structuredContent?.exit_code === 1 && err?.type === 'ZeroDivisionError'
      && err?.message === 'division by zero', 'a failed run carries its error', r.structuredContent);
    ok(err?.line === 2 && err?.frames?.map((f) => f.line).join(',') === '4,2'
      && err?.frames?.[1]?.function === 'ratio', "the error's line is the one in ratio", err);
    ok(/ZeroDivisionError in line 2/.test(textOf(r)), 'the text block names it', textOf(r));

    r = await client.callTool({ name: 'execute_code', arguments: { language: 'javascript',
      code: 'console.log([1,2,3].map((x) => x * 2).join(","))' } });
    ok(r.structuredContent?.stdout === '2,4,6\n', 'JavaScript runs too', r.structuredContent);

    r = await client.callTool({ name: 'execute_code', arguments: { language: 'python',
      code: 'import sys\nsys.stdout.write("x" * 3000000)' } });
    const sc = r.structuredContent;
    ok(sc?.stdout_truncated === true && sc.stdout.length < 100000,
      'a flood is capped and says so', { len: sc?.stdout.length, t: sc?.stdout_truncated });
    ok(/dropped|not shown|left out/.test(textOf(r)), 'the text block says what was cut',
      textOf(r).slice(-300));

    // Issue 38: past the output limit (1 MiB) the program runs to its end;
    // the result keeps the start and the end, and says how much was left
    // out and where all of it is.
    r = await client.callTool({ name: 'execute_code', arguments: { language: 'python',
      code: 'for i in range(300000): print(i)\nprint("done")' } }, undefined, { timeout: 120000 });
    const big = r.structuredContent;
    ok(big?.end === 'exited' && big?.exit_code === 0 && !big?.limit,
      'a program past the output limit runs to its end', { end: big?.end, code: big?.exit_code });
    ok(big?.stdout?.startsWith('0\n1\n2\n') && big?.stdout?.endsWith('299999\ndone\n'),
      'its start and its end are kept', [big?.stdout?.slice(0, 20), big?.stdout?.slice(-20)]);
    ok(big?.stdout_bytes === 1988895 && big?.stdout_truncated === true,
      'every byte is counted, and the middle is said to be left out',
      { bytes: big?.stdout_bytes, t: big?.stdout_truncated });
    ok(big?.stdout_file === 'sandpad-stdout.txt', 'the run\'s file with all of it is named',
      big?.stdout_file);
    ok(/stdout: \d+ of 1988895 bytes shown; the middle was left out \(output limit 1048576 bytes\); the whole output is in sandpad-stdout\.txt/.test(textOf(r)),
      'the text block says what was left out and where the whole output is', textOf(r).slice(-400));

    r = await client.callTool({ name: 'execute_code', arguments: { language: 'cobol', code: 'x' } });
    ok(r.isError === true && /cobol/.test(textOf(r)), 'an unknown language is an isError result', r);
    r = await client.callTool({ name: 'execute_code', arguments: { language: 'python' } });
    ok(r.isError === true && /"code"/.test(textOf(r)), 'a missing field is named', r);
    r = await client.callTool({ name: 'execute_code', arguments: { language: 'python', code: '1', timout: 3 } });
    ok(r.isError === true && /timout/.test(textOf(r)), 'an unknown field is named', r);
    r = await client.callTool({ name: 'execute_code', arguments: { language: 'python', code: '1',
      files: [{ path: '../escape', content: 'x' }] } });
    ok(r.isError === true && /files/.test(textOf(r)), 'a file path leaving the directory is refused', r);
    await transport.close();
  },

  async plot() {
    const { client, transport } = await connect();
    const r = await client.callTool({ name: 'execute_code', arguments: { language: 'python',
      code: 'import matplotlib.pyplot as plt\nplt.figure(figsize=(4, 3), dpi=50)\n'
        + 'plt.plot([1, 3, 2])\nplt.show()\n' }, }, undefined, { timeout: 120000 });
    const images = r.content.filter((c) => c.type === 'image');
    ok(r.structuredContent?.exit_code === 0, 'the plot script ran', r.structuredContent);
    ok(images.length === 1, 'one image block per plot', r.content.map((c) => c.type));
    const img = images[0];
    ok(img?.mimeType === 'image/png', 'its mimeType is image/png', img?.mimeType);
    const bytes = Buffer.from(img?.data ?? '', 'base64');
    const sig = bytes.subarray(0, 8).toString('hex');
    ok(sig === '89504e470d0a1a0a', 'the data decodes to a PNG', sig);
    const width = bytes.length > 24 ? bytes.readUInt32BE(16) : 0;
    const height = bytes.length > 24 ? bytes.readUInt32BE(20) : 0;
    const file = r.structuredContent?.files?.find((f) => f.path === 'plot-1.png');
    ok(width === 200 && height === 150, 'the PNG is the figure size (200x150)', { width, height });
    ok(file?.width === width && file?.height === height && file?.size === bytes.length,
      'files lists it with the same size', file);
    await transport.close();
  },

  async timeout() {
    const { client, transport } = await connect();
    const r = await client.callTool({ name: 'execute_code', arguments: { language: 'python',
      code: 'print("start", flush=True)\nwhile True:\n    pass', timeout: 1 } });
    ok(r.isError !== true, 'a timeout is a result, not an error', r);
    ok(r.structuredContent?.end === 'timeout', 'end is timeout', r.structuredContent?.end);
    ok(r.structuredContent?.stdout === 'start\n', 'output before the stop is kept', r.structuredContent?.stdout);
    ok(Number.isInteger(r.structuredContent?.duration_ms) && r.structuredContent.duration_ms >= 1000,
      'its duration is at least the limit that stopped it (1 s)', r.structuredContent?.duration_ms);
    ok(/time limit/.test(textOf(r)), 'the text names the time limit', textOf(r));
    // A program that sleeps uses no CPU: the limit and the duration are
    // both measured from when the runner started the run (issue 42 item 6:
    // namespace mode said 983-996 ms for a 1 s limit).
    await transport.close();
    const ws = await connect(['--workspace', makeWorkspace()]);
    for (let i = 0; i < 3; i++) {
      const c = await ws.client.callTool({ name: 'execute_command', arguments: { command: 'sleep 10', timeout: 1 } });
      ok(c.structuredContent?.end === 'timeout' && c.structuredContent?.duration_ms >= 1000,
        `execute_command sleep 10 with timeout 1 (${i + 1} of 3): stopped, duration at least 1000 ms`,
        { end: c.structuredContent?.end, duration_ms: c.structuredContent?.duration_ms });
    }
    await ws.transport.close();
  },

  async cancel() {
    // The SDK's side: abort sends notifications/cancelled; the server keeps serving.
    const { client, transport } = await connect();
    const controller = new AbortController();
    let started;
    const startedP = new Promise((resolve) => { started = resolve; });
    const call = client.callTool({ name: 'execute_code', arguments: { language: 'python',
      code: 'import time\nprint("ready", flush=True)\ntime.sleep(120)', timeout: 200 } },
    undefined, { signal: controller.signal, onprogress: () => started(), timeout: 250000 });
    await startedP;
    controller.abort('test cancels');
    let rejected = false;
    try { await call; } catch (e) { rejected = true; }
    ok(rejected, 'the SDK call is aborted');
    const after = await client.callTool({ name: 'execute_code', arguments: { language: 'bash', code: 'echo still here' } });
    ok(after.structuredContent?.stdout === 'still here\n', 'the server serves the next call', after.structuredContent);
    await transport.close();

    // The wire: the cancelled call still answers, with end "cancelled",
    // also for a program that ignores SIGINT (terminate follows).
    const raw = rawServer();
    raw.send({ jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'r', version: '1' } } });
    await raw.wait((m) => m.id === 1);
    raw.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    const sleepS = 120;
    const code = 'import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n'
      + `print("ready", flush=True)\ntime.sleep(${sleepS})`;
    raw.send({ jsonrpc: '2.0', id: 'c1', method: 'tools/call', params: { name: 'execute_code',
      arguments: { language: 'python', code, timeout: 200 }, _meta: { progressToken: 'p1' } } });
    await raw.wait((m) => m.method === 'notifications/progress' && m.params.progressToken === 'p1');
    raw.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'c1', reason: 'test' } });
    const answer = await raw.wait((m) => m.id === 'c1');
    const sc = answer.result?.structuredContent;
    ok(sc?.end === 'cancelled', 'the cancelled call answers with end "cancelled"', answer);
    // Shorter than the program's own sleep: stopped before it could end by
    // itself, however slow the machine.
    ok(sc?.duration_ms < sleepS * 1000, 'the run was stopped before it would have ended', sc?.duration_ms);
    await raw.close();

    // A call still waiting in the queue is cancelled at once, and answers too.
    const queue = rawServer(['--max-concurrent', '1']);
    const sleeper = { language: 'python', code: 'import time\nprint("ready", flush=True)\ntime.sleep(120)', timeout: 200 };
    queue.send({ jsonrpc: '2.0', id: 'q1', method: 'tools/call', params: { name: 'execute_code',
      arguments: sleeper, _meta: { progressToken: 'q1' } } });
    await queue.wait((m) => m.method === 'notifications/progress' && m.params.progressToken === 'q1');
    queue.send({ jsonrpc: '2.0', id: 'q2', method: 'tools/call', params: { name: 'execute_code', arguments: sleeper } });
    queue.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'q2' } });
    const q2 = await queue.wait((m) => m.id === 'q2');
    ok(q2.result?.structuredContent?.end === 'cancelled' && q2.result?.isError === false,
      'a queued call is cancelled and answers', q2);
    queue.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 'q1' } });
    const q1 = await queue.wait((m) => m.id === 'q1');
    ok(q1.result?.structuredContent?.end === 'cancelled', 'then the running one', q1);
    await queue.close();
  },

  async progress() {
    const { client, transport } = await connect();
    const seen = [];
    const r = await client.callTool({ name: 'execute_code', arguments: { language: 'python',
      code: 'import time\nfor i in range(3):\n    print("tick", i, flush=True)\n    time.sleep(0.3)' } },
    undefined, { onprogress: (p) => seen.push(p) });
    ok(r.structuredContent?.exit_code === 0, 'the run finished', r.structuredContent);
    ok(seen.length >= 1, 'progress notifications arrived', seen);
    const streamed = seen.map((p) => p.message ?? '').join('');
    ok(streamed === 'tick 0\ntick 1\ntick 2\n', 'they carry the output in order', streamed);
    ok(seen.every((p, i) => i === 0 || p.progress > seen[i - 1].progress), 'progress increases',
      seen.map((p) => p.progress));
    await transport.close();
  },

  async concurrent() {
    const { client, transport } = await connect();
    const code = (i) => `import time\nstart = time.time()\ntime.sleep(3)\nprint(${i}, start, time.time())`;
    const results = await Promise.all([0, 1, 2, 3].map((i) => client.callTool({ name: 'execute_code',
      arguments: { language: 'python', code: code(i) } }, undefined, { timeout: 120000 })));
    const spans = results.map((r) => r.structuredContent?.stdout.trim().split(' ').map(Number));
    ok(spans.every((s, i) => s?.[0] === i), 'each call got its own run\'s output', spans);
    const latestStart = Math.max(...spans.map((s) => s[1]));
    const earliestEnd = Math.min(...spans.map((s) => s[2]));
    ok(latestStart < earliestEnd, 'the four runs overlapped in time', spans);
    await transport.close();
  },
};

// A directory the runs may use as their cwd: it must belong to the uid
// that runs programs (nobody when the server runs as root).
function makeWorkspace() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-ws-'));
  if (process.getuid() === 0) fs.chownSync(dir, 65534, 65534);
  return dir;
}

// Runs a command with plain bash, outside any sandbox: the control that
// shows a containment test's attack works when nothing stops it.
function unsandboxed(command) {
  const r = spawnSync('/bin/bash', ['-c', command], { encoding: 'utf8', timeout: 60000 });
  return r.stdout;
}

// The same, without blocking the event loop (for a control that talks to
// a listener in this process).
function unsandboxedAsync(command) {
  return new Promise((resolve) => {
    const child = spawn('/bin/bash', ['-c', command], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.on('close', () => resolve(out));
  });
}

// The filters miss these: base64 through eval spells nothing they know.
const obfuscate = (command) => `eval "$(echo ${Buffer.from(command).toString('base64')} | base64 -d)"`;

groups.command = async () => {
  const ws = makeWorkspace();
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-outside-'));
  fs.chmodSync(outside, 0o777); // anyone may write here: only the sandbox can stop it
  const secret = path.join(outside, 'secret.txt');
  fs.writeFileSync(secret, 'the host secret\n', { mode: 0o644 });
  const { client, transport, tools } = await connect(['--workspace', ws, '--block-command', 'git push.*']);
  try {
    const tool = tools.find((t) => t.name === 'execute_command');
    ok(tool?.inputSchema?.required?.includes('command') && tool?.outputSchema?.type === 'object',
      'execute_command is listed with its schemas', tool);

    let r = await client.callTool({ name: 'execute_command', arguments: {
      command: 'mkdir -p sub && echo made > sub/out.txt && cat sub/out.txt' } });
    ok(r.structuredContent?.stdout === 'made\n', 'a command runs in the workspace', r.structuredContent);
    ok(fs.readFileSync(path.join(ws, 'sub', 'out.txt'), 'utf8') === 'made\n',
      'what it writes stays in the workspace on the host');
    ok(r.structuredContent?.files?.some((f) => f.path === 'sub/out.txt' && f.created),
      'files lists what it created', r.structuredContent?.files);
    // Past the output limit in the workspace, the whole output stays there
    // and the result names its path.
    r = await client.callTool({ name: 'execute_command', arguments: { command: 'seq 1 300000' } },
      undefined, { timeout: 120000 });
    const whole = path.join(ws, 'sandpad-stdout.txt');
    ok(r.structuredContent?.exit_code === 0 && r.structuredContent?.stdout_file === whole,
      'a command past the output limit names the whole output in the workspace',
      { code: r.structuredContent?.exit_code, file: r.structuredContent?.stdout_file });
    ok(fs.existsSync(whole) && fs.readFileSync(whole, 'utf8').split('\n').length === 300001,
      'and it is all there on the host');
    ok(textOf(r).includes(`the whole output is in ${whole}`), 'the text block says where',
      textOf(r).slice(-300));
    fs.rmSync(whole);
    r = await client.callTool({ name: 'execute_command', arguments: { command: 'cat out.txt', work_dir: 'sub' } });
    ok(r.structuredContent?.stdout === 'made\n', 'work_dir is relative to the workspace', r.structuredContent);
    r = await client.callTool({ name: 'execute_command', arguments: { command: 'ls', work_dir: '..' } });
    ok(r.isError === true && /"work_dir"/.test(textOf(r)), 'a work_dir leading out of the workspace is refused, naming it', r);
    fs.symlinkSync('/', path.join(ws, 'root-link'));
    r = await client.callTool({ name: 'execute_command', arguments: { command: 'ls', work_dir: 'root-link' } });
    ok(r.isError === true, 'so is one through a symlink', r);

    for (const [command, reason] of [['sudo ls', /sudo/], ['rm -rf /', /rm of \//],
      [':(){ :|:& };:', /fork bomb/], ['dd if=/dev/zero of=/dev/sda', /device/],
      ['chmod -R 777 /etc', /permissions/]]) {
      r = await client.callTool({ name: 'execute_command', arguments: { command } });
      ok(r.isError === true && reason.test(textOf(r)) && /policy/.test(textOf(r)),
        `built-in check refuses ${JSON.stringify(command)} with a reason`, textOf(r));
    }
    r = await client.callTool({ name: 'execute_command', arguments: { command: 'git push origin main' } });
    ok(r.isError === true && /block-command/.test(textOf(r)), 'the block list refuses its match', textOf(r));

    // Obfuscated commands the filters let through: the sandbox holds.
    const target = path.join(outside, 'escaped.txt');
    const write = `echo escaped > ${target}`;
    r = await client.callTool({ name: 'execute_command', arguments: { command: obfuscate(write) } });
    ok(r.isError !== true, 'the obfuscated write passes the filters (they are only policy)', textOf(r));
    ok(!fs.existsSync(target), 'but nothing is written outside the workspace', r.structuredContent);
    unsandboxed(obfuscate(write));
    ok(fs.existsSync(target), 'control: the same command without the sandbox writes there');
    fs.rmSync(target, { force: true });

    const read = `cat ${secret}; ls -a ${os.homedir()}`;
    r = await client.callTool({ name: 'execute_command', arguments: { command: obfuscate(read) } });
    ok(!r.structuredContent?.stdout.includes('the host secret'), 'a file outside the workspace cannot be read',
      r.structuredContent);
    ok(!r.structuredContent?.stdout.includes('..'), 'the host\'s home cannot be listed', r.structuredContent);
    ok(unsandboxed(obfuscate(read)).includes('the host secret'), 'control: without the sandbox it can');

    const listener = net.createServer((sock) => { connections++; sock.end('hello\n'); });
    let connections = 0;
    await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = listener.address().port;
    const connect = `exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected && head -1 <&3`;
    r = await client.callTool({ name: 'execute_command', arguments: { command: obfuscate(connect) } });
    ok(!r.structuredContent?.stdout.includes('connected') && connections === 0,
      'network is off: the loopback listener sees no connection', { sc: r.structuredContent, connections });
    ok((await unsandboxedAsync(obfuscate(connect))).includes('hello') && connections === 1,
      'control: without the sandbox it connects', connections);
    listener.close();
  } finally {
    await transport.close();
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  }

  // --allow-network is the server's choice, and then runs do connect.
  const networked = await connect(['--allow-network']);
  try {
    let accepted = 0;
    const listener = net.createServer((sock) => { accepted++; sock.end('hello\n'); });
    await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = listener.address().port;
    const r = await networked.client.callTool({ name: 'execute_code', arguments: { language: 'bash',
      code: `exec 3<>/dev/tcp/127.0.0.1/${port} && head -1 <&3` } });
    ok(r.structuredContent?.stdout === 'hello\n' && accepted === 1
      && r.structuredContent?.sandbox?.layers?.includes('network:on'),
    'with --allow-network a run reaches the listener', { sc: r.structuredContent, accepted });
    listener.close();
  } finally {
    await networked.transport.close();
  }

  // An allow list: only what matches one pattern whole runs.
  const ws2 = makeWorkspace();
  const second = await connect(['--workspace', ws2, '--allow-command', 'echo [a-z]+']);
  try {
    let r = await second.client.callTool({ name: 'execute_command', arguments: { command: 'echo hello' } });
    ok(r.structuredContent?.stdout === 'hello\n', 'an allowed command runs', r);
    r = await second.client.callTool({ name: 'execute_command', arguments: { command: 'echo hello; id' } });
    ok(r.isError === true && /allow-command/.test(textOf(r)), 'anything else is refused, naming the allow list', r);
  } finally {
    await second.transport.close();
    fs.rmSync(ws2, { recursive: true, force: true });
  }
};

// Issue 25, item 10: the workspace at its own host path inside the
// sandbox (namespace mode binds it there too; fallback mode runs at host
// paths anyway), so a command told that path finds its files, and an
// absolute work_dir inside it is accepted. One workspace under /tmp (the
// private /tmp holds its mount point) and one under /var/tmp (the root's
// own tmpfs holds /var and /var/tmp as empty directories).
groups.host_paths = async () => {
  const namespaces = process.env.SANDPAD_TEST_SANDBOX !== 'fallback';
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-outside-'));
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'the host secret\n', { mode: 0o644 });
  for (const base of [os.tmpdir(), '/var/tmp']) {
    const ws = fs.mkdtempSync(path.join(base, 'sandpad-mcp-hp-'));
    if (process.getuid() === 0) fs.chownSync(ws, 65534, 65534);
    const owner = process.getuid() === 0 ? 65534 : process.getuid();
    fs.mkdirSync(path.join(ws, 'sub'));
    fs.chownSync(path.join(ws, 'sub'), owner, owner);
    fs.writeFileSync(path.join(ws, 'x.txt'), 'by host path\n', { mode: 0o644 });
    fs.writeFileSync(path.join(ws, 'sub', 'y.txt'), 'in sub\n', { mode: 0o644 });
    fs.symlinkSync(outside, path.join(ws, 'escape'));
    const { client, transport, tools } = await connect(['--workspace', ws]);
    const call = (args) => client.callTool({ name: 'execute_command', arguments: args });
    try {
      const tool = tools.find((t) => t.name === 'execute_command');
      ok(tool?.description?.includes(ws), `${base}: the description names the workspace's path`,
        tool?.description);
      let r = await call({ command: `cat "${ws}/x.txt" && cd "${ws}/sub" && cat y.txt && pwd` });
      ok(r.structuredContent?.stdout === `by host path\nin sub\n${ws}/sub\n`,
        `${base}: a command reads a file and cds by the workspace's host path`, r.structuredContent);
      r = await call({ command: `echo made > "${ws}/sub/z.txt"; pwd; cat /work/x.txt 2>/dev/null` });
      ok(fs.readFileSync(path.join(ws, 'sub', 'z.txt'), 'utf8') === 'made\n',
        `${base}: it writes there as in /work`, r.structuredContent);
      ok(r.structuredContent?.stdout === (namespaces ? `${ws}\nby host path\n` : `${ws}\n`),
        `${base}: it starts at the host path${namespaces ? ', /work still its alias' : ''}`,
        r.structuredContent);
      ok(r.structuredContent?.sandbox?.layers?.includes('host-path') === namespaces,
        `${base}: started's layers say host-path in namespace mode only`,
        r.structuredContent?.sandbox);
      r = await call({ command: 'cat y.txt; pwd', work_dir: `${ws}/sub` });
      ok(r.isError !== true && r.structuredContent?.stdout === `in sub\n${ws}/sub\n`,
        `${base}: an absolute work_dir inside the workspace is accepted`, r);
      r = await call({ command: 'ls', work_dir: ws });
      ok(r.isError !== true && r.structuredContent?.exit_code === 0,
        `${base}: so is the workspace itself, absolute`, r);
      // The whole workspace is the run's, whatever its work_dir: a command
      // in sub names the rest by host path, by "..", and at /work.
      r = await call({ command: `cat "${ws}/x.txt" ../x.txt; pwd; cat /work/x.txt 2>/dev/null`,
        work_dir: 'sub' });
      ok(r.isError !== true && r.structuredContent?.stdout
         === `by host path\nby host path\n${ws}/sub\n${namespaces ? 'by host path\n' : ''}`,
        `${base}: in work_dir sub, the workspace's other files by host path and ..`,
        r.structuredContent);
      fs.symlinkSync('sub', path.join(ws, 'sub-link'));
      r = await call({ command: 'cat y.txt ../x.txt; pwd', work_dir: 'sub-link' });
      ok(r.isError !== true && r.structuredContent?.stdout === `in sub\nby host path\n${ws}/sub\n`,
        `${base}: a symlink to a directory of the workspace starts where it points`,
        r.structuredContent);
      r = await call({ command: 'ls', work_dir: outside });
      ok(r.isError === true && /"work_dir"/.test(textOf(r)),
        `${base}: an absolute work_dir outside the workspace is refused, naming it`, r);
      r = await call({ command: 'ls', work_dir: `${ws}/../${path.basename(outside)}` });
      ok(r.isError === true && /"work_dir"/.test(textOf(r)),
        `${base}: so is one that leads out through ".."`, r);
      r = await call({ command: 'cat secret.txt', work_dir: `${ws}/escape` });
      ok(r.isError === true && !textOf(r).includes('the host secret'),
        `${base}: so is a symlink in the workspace that points outside`, r);
      ok(unsandboxed(`cd "${ws}/escape" && cat secret.txt`).includes('the host secret'),
        `${base}: control: unsandboxed, that symlink leads to the secret`);

      // What the host-path mount shows: the workspace, and above it only
      // empty directories of the sandbox's own, never the host's. Landlock
      // refuses listing them; a name that exists there on the host (a
      // file put beside the workspace, the grandparent's other entries)
      // must not exist there in the sandbox.
      const parent = path.dirname(ws);
      const grand = path.dirname(parent);
      const beside = path.join(parent, `sandpad-hp-beside-${process.pid}`);
      fs.writeFileSync(beside, 'beside\n', { mode: 0o644 });
      const names = (dir) => fs.readdirSync(dir).filter((n) => /^[\w.@+-]+$/.test(n))
        .map((n) => path.join(dir, n));
      // A sample of each, always with the workspace, its parent and the
      // file beside it: a shared /tmp can hold thousands of entries, and
      // one probe naming them all is past the kernel's 128 KiB cap on one
      // argument (the control then runs nothing).
      const sample = (dir) => names(dir).slice(0, 200);
      const candidates = [...new Set([ws, beside, ...(grand !== '/' ? [parent] : []),
        ...sample(parent), ...(grand !== '/' ? sample(grand) : [])])];
      const probe = candidates.map((p) => `[ -e "${p}" ] && echo "${p}"`).join('; ') + '; true';
      r = await call({ command: probe });
      const host = unsandboxed(probe);
      fs.rmSync(beside, { force: true });
      ok(host.includes(beside) && host.split('\n').length > 3,
        `${base}: control: unsandboxed, the host's entries beside and above it are there`, host);
      if (namespaces) {
        const lines = (out) => (out ?? '').split('\n').filter((l) => l);
        const seen = lines(r.structuredContent?.stdout).sort();
        // What the sandbox shows there of its own (/var/cache's font
        // cache, say): the same probe in a run without the workspace.
        const bare = await client.callTool({ name: 'execute_code',
          arguments: { language: 'bash', code: probe } });
        const own = lines(bare.structuredContent?.stdout);
        const expected = [...new Set([...own, ws, ...(grand !== '/' ? [parent] : [])])].sort();
        ok(JSON.stringify(seen) === JSON.stringify(expected),
          `${base}: of the host's entries beside and above the workspace, only the workspace `
          + `and its own parents exist in the sandbox`, { seen, expected });
        r = await call({ command: `cat "${outside}/secret.txt"` });
        ok(!(r.structuredContent?.stdout ?? '').includes('the host secret'),
          `${base}: a host file elsewhere in /tmp is not there`, r.structuredContent);
        const mark = `sandpad-hp-mark-${process.pid}`;
        r = await call({ command: `touch "${parent}/${mark}" 2>/dev/null; echo $?` });
        ok(!fs.existsSync(path.join(parent, mark)),
          `${base}: what is made beside the workspace never reaches the host`, r.structuredContent);
        unsandboxed(`touch "${parent}/${mark}"`);
        ok(fs.existsSync(path.join(parent, mark)), `${base}: control: unsandboxed, it does`);
        fs.rmSync(path.join(parent, mark), { force: true });
      } else {
        r = await call({ command: `cat "${outside}/secret.txt"` });
        ok(!(r.structuredContent?.stdout ?? '').includes('the host secret'),
          `${base}: fallback: a host file outside the workspace cannot be read`,
          r.structuredContent);
      }
    } finally {
      await transport.close();
      fs.rmSync(ws, { recursive: true, force: true });
    }
  }
  fs.rmSync(outside, { recursive: true, force: true });

  // A workspace under a name the private root is made of (here /work,
  // where this project's build directories live) is never bound at its
  // own path: that would shadow the sandbox's own /work, and its mount
  // point chain would be made inside the workspace itself. It stays at
  // /work alone, and nothing is made in it.
  const reserved = ['usr', 'etc', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32', 'dev',
    'proc', 'work', 'code'];
  if (!reserved.includes(process.cwd().split('/')[1])) {
    skip(`the build directory ${process.cwd()} is not under a directory `
      + 'the sandbox provides, so no workspace there can show the refusal');
    return;
  }
  // As root the run is nobody's, which must reach the workspace by its
  // path: not through a 0700 folder above the build directory.
  if (process.getuid() === 0) {
    const parts = process.cwd().split('/').filter(Boolean);
    const closed = parts.map((_, i) => `/${parts.slice(0, i + 1).join('/')}`)
      .find((dir) => (fs.statSync(dir).mode & 0o001) === 0);
    if (closed) {
      skip(`the build directory lies under ${closed}, which the runs' user (nobody) cannot `
        + 'enter, so no workspace there can show the refusal');
      return;
    }
  }
  const ws = fs.mkdtempSync(path.join(process.cwd(), 'mcp-hp-reserved-'));
  if (process.getuid() === 0) fs.chownSync(ws, 65534, 65534);
  fs.writeFileSync(path.join(ws, 'x.txt'), 'at /work\n', { mode: 0o644 });
  const { client, transport, tools } = await connect(['--workspace', ws]);
  try {
    const tool = tools.find((t) => t.name === 'execute_command');
    ok(/seen as \/work in namespace mode: it lies under a directory the sandbox provides/
      .test(tool?.description ?? ''), 'reserved: the description says where the workspace is and why',
    tool?.description);
    const r = await client.callTool({ name: 'execute_command', arguments: {
      command: 'pwd; cat x.txt' } });
    ok(r.structuredContent?.stdout === `${namespaces ? '/work' : ws}\nat /work\n`
      && !r.structuredContent?.sandbox?.layers?.includes('host-path'),
    'reserved: the command runs at /work alone (namespace mode), without host-path',
    r.structuredContent);
    ok(fs.readdirSync(ws).sort().join(',') === 'x.txt',
      'reserved: no mount point was made inside the workspace', fs.readdirSync(ws));
  } finally {
    await transport.close();
    fs.rmSync(ws, { recursive: true, force: true });
  }
};

groups.edit = async () => {
  const ws = makeWorkspace();
  const owner = process.getuid() === 0 ? 65534 : process.getuid();
  const put = (name, text) => {
    const file = path.join(ws, name);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, text);
    fs.chownSync(file, owner, owner);
    fs.chownSync(path.dirname(file), owner, owner);
    return file;
  };
  const main = put('app/main.py', 'import helper\nx = 1\nprint("x is", x, helper.VALUE)\n');
  put('app/helper.py', 'VALUE = 42\n');
  const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-outside-'));
  const target = path.join(outside, 'target.py');
  fs.writeFileSync(target, 'x = 1\n');
  fs.chownSync(target, owner, owner);
  fs.symlinkSync(target, path.join(ws, 'link.py'));
  fs.linkSync(target, path.join(ws, 'hard.py'));
  const { client, transport, tools } = await connect(['--workspace', ws]);
  const edit = (args) => client.callTool({ name: 'edit_and_execute', arguments: args });
  try {
    const tool = tools.find((t) => t.name === 'edit_and_execute');
    ok(tool?.outputSchema?.properties?.diff !== undefined, 'edit_and_execute is listed, its outputSchema has diff', tool);

    const inode = fs.statSync(main).ino;
    let r = await edit({ path: 'app/main.py', edits: [{ old_text: 'x = 1', new_text: 'x = 2' }], args: ['a'] });
    ok(r.structuredContent?.stdout === 'x is 2 42\n', 'the edited file runs, beside its modules', r.structuredContent);
    ok(fs.readFileSync(main, 'utf8') === 'import helper\nx = 2\nprint("x is", x, helper.VALUE)\n',
      'the file on the host has the edit');
    ok(fs.statSync(main).ino !== inode, 'it was replaced by a rename, not rewritten in place');
    ok(fs.statSync(main).uid === owner, 'it still belongs to the runs\' uid');
    const diff = '--- a/app/main.py\n+++ b/app/main.py\n@@ -1,3 +1,3 @@\n import helper\n-x = 1\n+x = 2\n'
      + ' print("x is", x, helper.VALUE)\n';
    ok(r.structuredContent?.diff === diff, 'the diff is the unified diff of the edit', r.structuredContent?.diff);
    ok(textOf(r).includes(diff), 'the text block shows it too');

    const long = Array.from({ length: 20 }, (_, i) => `print(${i})`).join('\n') + '\n';
    put('long.py', long);
    r = await edit({ path: 'long.py', edits: [{ old_text: 'print(1)\n', new_text: 'print("one")\n' },
      { old_text: 'print(18)', new_text: 'print("eighteen")' }] });
    ok((r.structuredContent?.diff.match(/^@@ /gm) ?? []).length === 2, 'distant edits make two hunks',
      r.structuredContent?.diff);
    ok(r.structuredContent?.diff.includes('@@ -16,5 +16,5 @@'), 'the second hunk has the right line numbers',
      r.structuredContent?.diff);
    ok(r.structuredContent?.stdout.includes('eighteen'), 'and the edited program ran', r.structuredContent?.stdout);

    const before = fs.readFileSync(main, 'utf8');
    r = await edit({ path: 'app/main.py', edits: [{ old_text: 'x = 2', new_text: 'x = 3' },
      { old_text: 'not there', new_text: '' }] });
    ok(r.isError === true && /not in the file/.test(textOf(r)), 'a missing old_text is an error', textOf(r));
    ok(fs.readFileSync(main, 'utf8') === before, 'and nothing changed, not even the edits before it');
    r = await edit({ path: 'app/main.py', edits: [{ old_text: 'x', new_text: 'y' }] });
    ok(r.isError === true && /more than once/.test(textOf(r)), 'an ambiguous old_text is an error', textOf(r));
    ok(fs.readFileSync(main, 'utf8') === before, 'and nothing changed');

    r = await edit({ path: 'link.py', edits: [{ old_text: 'x = 1', new_text: 'x = 2' }] });
    ok(r.isError === true, 'a symlink in the workspace is not followed', textOf(r));
    r = await edit({ path: 'hard.py', edits: [{ old_text: 'x = 1', new_text: 'x = 2' }] });
    ok(r.isError === true, 'a hard link to a file outside is refused', textOf(r));
    r = await edit({ path: '../' + path.basename(outside) + '/target.py', edits: [{ old_text: 'x = 1', new_text: 'x = 2' }] });
    ok(r.isError === true, 'a path out of the workspace is refused', textOf(r));
    ok(fs.readFileSync(target, 'utf8') === 'x = 1\n', 'the file outside is untouched');
  } finally {
    await transport.close();
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(outside, { recursive: true, force: true });
  }
};

groups.context = async () => {
  const ws = makeWorkspace();
  const owner = process.getuid() === 0 ? 65534 : process.getuid();
  // Owned by the runs' uid and writable by anyone: only the sandbox can
  // keep a run from changing it.
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-ctx-'));
  fs.chmodSync(parent, 0o755);
  const ctx = path.join(parent, 'context');
  fs.mkdirSync(ctx, { mode: 0o777 });
  fs.chmodSync(ctx, 0o777);
  fs.writeFileSync(path.join(ctx, 'notes.txt'), 'context notes\n', { mode: 0o666 });
  fs.chownSync(ctx, owner, owner);
  fs.chownSync(path.join(ctx, 'notes.txt'), owner, owner);
  fs.writeFileSync(path.join(parent, 'beside.txt'), 'not context\n', { mode: 0o644 });
  const { client, transport, tools } = await connect(['--workspace', ws, '--context-path', ctx]);
  try {
    ok(tools.find((t) => t.name === 'execute_command')?.description.includes(ctx),
      'execute_command\'s description names the context path');
    let r = await client.callTool({ name: 'execute_command', arguments: { command: `cat ${ctx}/notes.txt` } });
    ok(r.structuredContent?.stdout === 'context notes\n', 'a context path can be read at its own path', r.structuredContent);
    r = await client.callTool({ name: 'execute_code', arguments: { language: 'python',
      code: `print(open(${JSON.stringify(ctx + '/notes.txt')}).read(), end="")` } });
    ok(r.structuredContent?.stdout === 'context notes\n', 'by execute_code too', r.structuredContent);
    r = await client.callTool({ name: 'execute_command', arguments: {
      command: `echo changed > ${ctx}/notes.txt; echo new > ${ctx}/new.txt; rm -f ${ctx}/notes.txt` } });
    ok(fs.readFileSync(path.join(ctx, 'notes.txt'), 'utf8') === 'context notes\n', 'it cannot be changed',
      r.structuredContent);
    ok(!fs.existsSync(path.join(ctx, 'new.txt')), 'nothing can be added to it');
    r = await client.callTool({ name: 'execute_command', arguments: { command: `cat ${parent}/beside.txt` } });
    ok(!r.structuredContent?.stdout.includes('not context'), 'what lies beside it stays hidden', r.structuredContent);
    ok(unsandboxed(`cat ${parent}/beside.txt`).includes('not context'), 'control: without the sandbox it can be read');
  } finally {
    await transport.close();
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(parent, { recursive: true, force: true });
  }
};

// Python runs start from the server's warm interpreter once it is ready
// (src/runner/engine/runner-warm.h), with what a cold run gets: the
// context path read-only at its own path, a private working directory, plots.
groups.warm = async () => {
  const ws = makeWorkspace();
  const owner = process.getuid() === 0 ? 65534 : process.getuid();
  const ctx = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-warmctx-'));
  fs.chmodSync(ctx, 0o777);
  fs.writeFileSync(path.join(ctx, 'notes.txt'), 'context notes\n', { mode: 0o666 });
  fs.chownSync(ctx, owner, owner);
  fs.chownSync(path.join(ctx, 'notes.txt'), owner, owner);
  const call = (client, code) => client.callTool({ name: 'execute_code',
    arguments: { language: 'python', code } }, undefined, { timeout: 120000 });
  const connected = Date.now();
  const { client, transport } = await connect(['--workspace', ws, '--context-path', ctx]);
  // How long this server took to its first warm run: how long --no-warm
  // below is watched, on this machine as loaded as it is now.
  let warmAfterMs;
  try {
    // The interpreter imports numpy and matplotlib after initialize.
    let r;
    const deadline = Date.now() + 90000;
    do {
      r = await call(client, 'print("up")');
      if (r.structuredContent?.sandbox?.warm !== true) await new Promise((f) => setTimeout(f, 300));
    } while (r.structuredContent?.sandbox?.warm !== true && Date.now() < deadline);
    warmAfterMs = Date.now() - connected;
    ok(r.structuredContent?.sandbox?.warm === true && r.structuredContent?.stdout === 'up\n',
      'a Python run starts warm once the interpreter is ready', r.structuredContent);
    ok(r.structuredContent?.sandbox?.layers?.includes('seccomp'),
      'with the same layers as a cold run', r.structuredContent?.sandbox);

    r = await call(client, 'import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\nplt.show()\n');
    ok(r.structuredContent?.sandbox?.warm === true
      && r.content.some((c) => c.type === 'image' && c.mimeType === 'image/png'),
    'a warm plot comes back as an image', r.content.map((c) => c.type));

    r = await call(client, `import os
print(open(${JSON.stringify(ctx + '/notes.txt')}).read(), end="")
for target in (${JSON.stringify(ctx + '/notes.txt')}, ${JSON.stringify(ctx + '/new.txt')}):
    try:
        open(target, "w").write("changed")
        print("WROTE", target)
    except OSError:
        pass
open("made-warm.txt", "w").write("ok")
print(os.getcwd())
`);
    ok(r.structuredContent?.sandbox?.warm === true, 'the next run is warm too', r.structuredContent?.sandbox);
    ok(r.structuredContent?.stdout?.startsWith('context notes\n')
      && !r.structuredContent?.stdout?.includes('WROTE'),
    'a warm run reads the context path and cannot change it', r.structuredContent);
    ok(fs.readFileSync(path.join(ctx, 'notes.txt'), 'utf8') === 'context notes\n'
      && !fs.existsSync(path.join(ctx, 'new.txt')), 'the context path is untouched');
    ok(r.structuredContent?.files?.some((f) => f.path === 'made-warm.txt')
      && !fs.existsSync(path.join(ws, 'made-warm.txt')),
    'it writes into its own working directory, which the result lists', r.structuredContent?.files);
  } finally {
    await transport.close();
  }

  // --no-warm: every run cold, however long the server has been up. Runs
  // go on for twice the time the warm server above needed (not one look
  // after a fixed pause, which a slow machine outlasts).
  const coldStart = Date.now();
  const cold = await connect(['--no-warm']);
  try {
    const kinds = [];
    while (kinds.length < 3 || Date.now() - coldStart < 2 * warmAfterMs)
      kinds.push((await call(cold.client, 'print(1)')).structuredContent?.sandbox?.warm);
    ok(kinds.every((w) => w === false),
      `with --no-warm no run starts warm (${kinds.length} runs in ${Date.now() - coldStart} ms)`,
      kinds);
  } finally {
    await cold.transport.close();
    fs.rmSync(ws, { recursive: true, force: true });
    fs.rmSync(ctx, { recursive: true, force: true });
  }
};

groups.journal = async () => {
  const state = stateDir();
  const ws = makeWorkspace();
  const dir = path.join(state, 'sandpad', 'journal');
  const readJournal = (name) => {
    const file = path.join(dir, name);
    return fs.existsSync(file)
      ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l).map((l) => JSON.parse(l)) : [];
  };
  const { client, transport } = await connect(['--workspace', ws, '--journal-max', '4000'], state);
  try {
    await client.callTool({ name: 'execute_code', arguments: { language: 'python', code: 'print("journal")\nraise SystemExit(4)',
      files: [{ path: 'in.txt', content: 'not journalled' }] } });
    await client.callTool({ name: 'execute_command', arguments: { command: 'echo from a command' } });
    await client.callTool({ name: 'execute_command', arguments: { command: 'sudo true' } });
    let entries = readJournal('runs.jsonl');
    ok(entries.length === 2, 'two runs, two entries (a refused command is no run)', entries);
    ok(entries[0]?.tool === 'execute_code' && entries[0]?.input?.code?.includes('journal')
      && entries[0]?.exit_code === 4 && entries[0]?.stdout === 'journal\n',
    'the first says what ran and how it ended', entries[0]);
    ok(!JSON.stringify(entries[0]?.input).includes('not journalled')
      && entries[0]?.input?.files?.[0]?.path === 'in.txt', 'input files are named, not copied', entries[0]?.input);
    ok(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(entries[0]?.time ?? ''), 'entries carry a UTC time', entries[0]?.time);
    ok(entries[1]?.tool === 'execute_command' && entries[1]?.input?.command === 'echo from a command'
      && entries[1]?.sandbox?.mode !== undefined, 'the second is the command, with its sandbox', entries[1]);
    ok((fs.statSync(path.join(dir, 'runs.jsonl')).mode & 0o777) === 0o600, 'the journal is private (0600)');

    // Bounded: past --journal-max the file rotates to runs.1.jsonl.
    for (let i = 0; i < 8; i++)
      await client.callTool({ name: 'execute_code', arguments: { language: 'bash', code: `echo run ${i} # ${'x'.repeat(1000)}` } });
    const current = readJournal('runs.jsonl');
    const previous = readJournal('runs.1.jsonl');
    ok(previous.length > 0, 'the journal rotated', { current: current.length, previous: previous.length });
    ok(fs.statSync(path.join(dir, 'runs.jsonl')).size < 4000 + 3000, 'the current file stays near its bound',
      fs.statSync(path.join(dir, 'runs.jsonl')).size);
    const last = current[current.length - 1];
    ok(last?.stdout === 'run 7\n', 'the newest run is last', last);
    // The app's own decoder (src/protocol/sp-journal.c, through
    // tests/protocol/journal-check) reads every line written, rotated too.
    for (const [kind, names] of [['runs', ['runs.jsonl', 'runs.1.jsonl']], ['live', ['live.jsonl', 'live.1.jsonl']]]) {
      const files = names.map((n) => path.join(dir, n)).filter((f) => fs.existsSync(f));
      const r = spawnSync(process.env.SANDPAD_JOURNAL_CHECK ?? 'journal-check', [kind, ...files], { encoding: 'utf8' });
      ok(files.length === 2 && r.status === 0, `every line of ${names.join(', ')} decodes strictly`, r.stderr || r.error?.message);
    }
  } finally {
    await transport.close();
    fs.rmSync(ws, { recursive: true, force: true });
  }
};

// mcp-run-python's global_variables: JSON values become the snippet's
// globals before it runs, cold and warm alike, and the code, its line
// numbers and its environment stay what was sent.
groups.globals = async () => {
  const { client, transport } = await connect();
  const call = (args) => client.callTool({ name: 'execute_code',
    arguments: { language: 'python', ...args } }, undefined, { timeout: 120000 });
  const checks = async (kind) => {
    let r = await call({ code: 'a + b', global_variables: { a: 4, b: 5 } });
    ok(r.structuredContent?.displays?.[0]?.data?.['text/plain'] === '9',
      `${kind}: a + b with {a: 4, b: 5} shows 9 (the last expression's value)`, r.structuredContent);
    r = await call({ code: 'print(type(d).__name__, d["k"][1], type(n).__name__, f, t, s)',
      global_variables: { d: { k: [1, 'two'] }, n: null, f: 1.5, t: true, s: 'text' } });
    ok(r.structuredContent?.stdout === 'dict two NoneType 1.5 True text\n',
      `${kind}: objects, lists, null, numbers, booleans and strings as JSON decodes them`, r.structuredContent);
    r = await call({ code: 'import os\nx = 1\nraise ValueError(v)', global_variables: { v: 'bad' } });
    ok(r.structuredContent?.error?.line === 3 && /ValueError: bad/.test(r.structuredContent?.stderr ?? ''),
      `${kind}: the error's line is the snippet's own (3)`, r.structuredContent);
    r = await call({ code: 'import os, subprocess\nprint("SANDPAD_GLOBALS" in os.environ, '
      + 'subprocess.run(["sh", "-c", "echo ${SANDPAD_GLOBALS:-none}"], capture_output=True, text=True).stdout.strip())',
      global_variables: { a: 1 } });
    ok(r.structuredContent?.stdout === 'False none\n',
      `${kind}: the variable that carried them is gone from the snippet's environment and its children's`, r.structuredContent);
    return r.structuredContent?.sandbox?.warm === true;
  };
  try {
    const firstWarm = await checks('first runs');
    // In a session they become its variables before that call's snippet
    // (a call's env is that call's), and stay, as assigned ones do.
    const inSession = await call({ code: 'a + b', global_variables: { a: 4, b: 5 }, session_id: 'g' });
    const kept = await call({ code: 'import os\n(a * 2, "SANDPAD_GLOBALS" in os.environ)',
      session_id: 'g' });
    ok(inSession.structuredContent?.displays?.[0]?.data?.['text/plain'] === '9'
      && kept.structuredContent?.displays?.[0]?.data?.['text/plain'] === '(8, False)',
    'in a session they are its variables, the variable that carried them gone',
    [inSession.structuredContent, kept.structuredContent]);
    // Control: without them, the name is not defined.
    let r = await call({ code: 'a + b' });
    ok(/NameError/.test(r.structuredContent?.stderr ?? ''), 'control: without global_variables, a is not defined',
      r.structuredContent?.stderr);
    // Refusals, each before anything runs.
    const refused = [
      [{ code: 'x', global_variables: { 'not-a-name': 1 } }, /not a Python identifier/],
      [{ code: 'x', global_variables: { a: 'x'.repeat(70000) } }, /more than 65536/],
      [{ code: 'x', global_variables: { a: 1 }, env: { SANDPAD_GLOBALS: '{}' } }, /SANDPAD_GLOBALS/],
    ];
    for (const [args, why] of refused) {
      r = await call(args);
      ok(r.isError === true && why.test(textOf(r)), `refused with the reason: ${why}`, textOf(r));
    }
    r = await client.callTool({ name: 'execute_code',
      arguments: { language: 'bash', code: 'echo $a', global_variables: { a: 1 } } });
    ok(r.isError === true && /python runs only/.test(textOf(r)), 'refused for bash', textOf(r));
    // The same once runs start warm (the warm parent imports numpy and
    // matplotlib after initialize).
    let warm = firstWarm;
    const deadline = Date.now() + 90000;
    while (!warm && Date.now() < deadline) {
      r = await call({ code: 'pass' });
      warm = r.structuredContent?.sandbox?.warm === true;
      if (!warm) await new Promise((f) => setTimeout(f, 300));
    }
    if (warm && !firstWarm)
      ok(await checks('warm runs'), 'and the warm checks ran warm');
    else if (!warm)
      skip('no warm run within 90 s on this machine: global_variables checked cold only');
  } finally {
    await transport.close();
  }
};

if (!groups[group]) {
  console.error(`unknown group ${group}`);
  process.exit(2);
}
try {
  await groups[group]();
} catch (e) {
  ok(false, `group ${group} threw`, String(e?.stack ?? e));
}
for (const dir of stateDirs) fs.rmSync(dir, { recursive: true, force: true });
console.log(`1..${planned()}`);
process.exit(failures() ? 1 : 0);
