// test-mcp-results.mjs: results the way notebooks and E2B give them
// (issue 25), through sandpad-mcp and the official MCP TypeScript SDK
// client, which validates every structuredContent against the tool's
// outputSchema.
//
//   node test-mcp-results.mjs SANDPAD_MCP GROUP
//
// Groups: values (a trailing expression's value, top-level await, dedent,
// `python` in every language), env (execute_code's env and --env), venv
// (execute_command runs with the workspace's venv active), files (input
// files as text or base64, checked paths and the disk cap; created files
// back as embedded resources within their caps, links past them),
// sessions (list, restart and close tools; execution counts).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ok, planned, failures } from './tap.mjs';

const [server, group] = process.argv.slice(2);
const runUid = process.getuid() === 0 ? 65534 : process.getuid();

const extraArgs = process.env.SANDPAD_TEST_SANDBOX
  ? ['--sandbox', process.env.SANDPAD_TEST_SANDBOX] : [];
const cleanup = [];

function tempDir(prefix) {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  cleanup.push(dir);
  return dir;
}

async function connect(args = []) {
  const transport = new StdioClientTransport({
    command: server, args: [...extraArgs, ...args], stderr: 'inherit',
    env: { XDG_STATE_HOME: tempDir('sandpad-mcp-results-state-') },
  });
  const client = new Client({ name: 'sandpad-mcp-results-test', version: '1.0' });
  await client.connect(transport);
  const tools = await client.listTools();
  return { client, transport, tools: tools.tools };
}

const call = (client, name, args) => client.callTool({ name, arguments: args }, undefined,
  { timeout: 120000 });
const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

function makeWorkspace() {
  const dir = tempDir('sandpad-mcp-results-ws-');
  fs.chmodSync(dir, 0o755);
  if (process.getuid() === 0) fs.chownSync(dir, runUid, runUid);
  return dir;
}

const groups = {
  async values() {
    const ws = makeWorkspace();
    const { client, transport } = await connect(['--workspace', ws]);
    try {
      const py = async (code, extra = {}) =>
        (await call(client, 'execute_code', { language: 'python', code, ...extra })).structuredContent;
      const shown = (sc) => (sc?.displays ?? []).map((d) => d.data['text/plain']);
      let res = await call(client, 'execute_code', { language: 'python', code: 'print("a")\nx = 4\nx' });
      let sc = res.structuredContent;
      ok(sc?.stdout === 'a\n' && JSON.stringify(sc.displays) === '[{"data":{"text/plain":"4"},"stdout_offset":2}]'
        && sc.exit_code === 0, 'a trailing expression\'s value is a display, after stdout\'s 2 bytes', sc);
      ok(textOf(res).includes('--- result 1 ---\n4\n'), 'the text block shows it', textOf(res));
      sc = await py('x = 4\nx;');
      ok(sc?.stdout === '' && sc.displays === undefined && sc.exit_code === 0, 'not after ";"', sc);
      sc = await py('import asyncio\nawait asyncio.sleep(0)\n"done"');
      ok(JSON.stringify(shown(sc)) === '["\'done\'"]' && sc.exit_code === 0, 'top-level await works', sc);
      sc = await py('    a = 2\n    if a:\n        print("in")\n    a * 21\n');
      ok(sc?.stdout === 'in\n' && JSON.stringify(shown(sc)) === '["42"]',
        'code indented as a whole runs', sc);
      sc = await py('    a = 0\n    1 / a\n');
      ok(sc?.error?.type === "ZeroDivisionError" && sc.error.line === 2,
        'its error names the line as sent', sc);
      // Written as in Jupyter (issue 42 item 1), with no IPython installed.
      sc = await py('from IPython.display import Math, HTML\ndisplay(Math(r"x^2"))\nHTML("<b>b</b>")');
      ok(sc?.displays?.length === 2 && /^iVBOR/.test(sc.displays[0].data['image/png'] ?? '')
        && sc.displays[0].data['text/latex'] === '$\\displaystyle x^2$'
        && sc.displays[1].data['text/html'] === '<b>b</b>',
        'IPython.display\'s Math is a formula drawn as PNG, its HTML is HTML', sc);
      sc = await py('!echo hi\nfiles = !printf "a\\nb\\n"\nfiles');
      ok(sc?.stdout === 'hi\n' && JSON.stringify(shown(sc)) === '["[\'a\', \'b\']"]',
        '!cmd prints, x = !cmd is its lines', sc);
      sc = await py('%%bash\necho $((2 + 3))\n');
      ok(sc?.stdout === '5\n' && sc.exit_code === 0, 'a %%bash cell runs in bash', sc);
      sc = await py('print(1)\n%nosuch\n');
      ok(sc?.stdout === '1\n' && sc.error?.type === 'UsageError' && sc.error.line === 2,
        'an unknown magic is an error at its own line', sc);
      // A chart as data an assistant reads without vision (issue 42 item 5).
      res = await call(client, 'execute_code', { language: 'python', code:
        'import matplotlib.pyplot as plt\nplt.bar(["a", "b"], [1, 2])\nplt.title("t")\nplt.show()' });
      const chart = res.structuredContent?.displays
        ?.find((d) => d.data['application/vnd.sandpad.chart+json'])?.data['application/vnd.sandpad.chart+json'];
      ok(chart?.type === 'bar' && chart.title === 't' && chart.file === 'plot-1.png'
        && JSON.stringify(chart.elements.map((e) => [e.label, e.value])) === '[["a",1],["b",2]]'
        && res.content.some((c) => c.type === 'image'),
      'a chart comes back as data (kind, title, bars) beside its PNG', res.structuredContent);
      sc = await py('%cd /tmp', { session_id: 'ipy' });
      sc = await py('%pwd', { session_id: 'ipy' });
      ok(JSON.stringify(shown(sc)) === '["\'/tmp\'"]', 'a session keeps the directory %cd chose', sc);
      sc = await py('y = 20\ny + 1', { session_id: 'v' });
      const again = await py('_ * 2', { session_id: 'v' });
      ok(JSON.stringify([...shown(sc), ...shown(again)]) === '["21","42"]',
        'a session shows each value; _ is the last', [sc, again]);
      res = await call(client, 'execute_code', { language: 'python', code:
        'class L:\n    def __repr__(self): return "L"\n    def _repr_latex_(self): return r"$x^2$"\n'
        + 'display(L())\nfrom PIL import Image\nImage.new("RGB", (3, 2))' });
      sc = res.structuredContent;
      const images = res.content.filter((c) => c.type === 'image');
      ok(sc?.displays?.length === 2 && images.length === 2
        && images.every((c) => c.mimeType === 'image/png' && Buffer.from(c.data, 'base64')
          .subarray(1, 4).toString() === 'PNG'),
      'display()ed LaTeX and a PIL image come back as PNG image blocks', sc);
      sc = (await call(client, 'execute_code', { language: 'bash',
        code: 'python -c "import sys; print(sys.version_info[0])"' })).structuredContent;
      ok(sc?.stdout === '3\n', '`python` is python3 in execute_code\'s bash', sc);
      sc = (await call(client, 'execute_command', {
        command: 'python -c "print(6 * 7)" && python3 -c "print(1)"' })).structuredContent;
      ok(sc?.stdout === '42\n1\n', '`python` is python3 in execute_command', sc);
    } finally {
      await transport.close();
    }
  },

  async table() {
    const have = spawnSync('/usr/bin/python3', ['-c', 'import pandas'], { encoding: 'utf8' });
    if (have.status !== 0) {
      console.log('1..0 # SKIP python3-pandas is not installed');
      process.exit(0);
    }
    const { client, transport } = await connect();
    try {
      const res = await call(client, 'execute_code', { language: 'python', code:
        'import pandas as pd\ndf = pd.DataFrame({"n": range(1500), "sq": [i * i for i in range(1500)]})\ndf' });
      const data = res.structuredContent?.displays?.[0]?.data ?? {};
      const table = data['application/vnd.dataresource+json'];
      ok(data['text/plain']?.includes('[1500 rows x 2 columns]'), 'a DataFrame shows as a text table', data['text/plain']);
      ok(typeof data['text/html'] === 'string' && data['text/html'].includes('<table'), 'and as HTML');
      ok(table?.schema?.fields?.map((f) => f.name).join() === 'index,n,sq' && table.data.length === 1000
        && table.total_rows === 1500 && table.data[999].sq === 999 * 999,
      'and as structured data: its schema, the first 1000 rows and the count', table?.schema);
      // Values JSON cannot carry as they are once failed the whole display.
      const big = await call(client, 'execute_code', { language: 'python', code:
        'import pandas as pd, numpy as np\n'
        + 'pd.DataFrame({"u": np.array([2**64 - 1], dtype=np.uint64), "f": [float("nan")]})' });
      const row = big.structuredContent?.displays?.[0]?.data?.['application/vnd.dataresource+json']?.data?.[0];
      ok(big.structuredContent?.stdout === '' && row?.u === '18446744073709551615' && row.f === null,
        'a uint64 past 63 bits comes as its text and NaN as null, in structuredContent', big.structuredContent);
    } finally {
      await transport.close();
    }
  },

  // Each progress notification says its stream, under _meta (read raw:
  // an SDK may drop what it does not know).
  async progress() {
    const child = spawn(server, [...extraArgs], { stdio: ['pipe', 'pipe', 'inherit'],
      env: { ...process.env, XDG_STATE_HOME: tempDir('sandpad-mcp-results-state-') } });
    const messages = [];
    let buf = '';
    let done;
    const finished = new Promise((resolve) => { done = resolve; });
    child.stdout.on('data', (d) => {
      buf += d;
      let i;
      while ((i = buf.indexOf('\n')) >= 0) {
        const m = JSON.parse(buf.slice(0, i));
        buf = buf.slice(i + 1);
        messages.push(m);
        if (m.id === 2) done();
      }
    });
    const send = (m) => child.stdin.write(JSON.stringify({ jsonrpc: '2.0', ...m }) + '\n');
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {},
      clientInfo: { name: 't', version: '1' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'execute_code', _meta: { progressToken: 'p' },
      arguments: { language: 'python', code:
        'import sys, time\nprint("out", flush=True)\ntime.sleep(0.2)\nprint("err", file=sys.stderr, flush=True)' } } });
    await finished;
    child.stdin.end();
    const progress = [];
    for (const m of messages.filter((x) => x.method === 'notifications/progress')) {
      const stream = m.params._meta?.['io.github.sandpad/stream'];
      // One print may come in two pieces ("out", "\n"): joined per stream.
      if (progress.length > 0 && progress[progress.length - 1][0] === stream)
        progress[progress.length - 1][1] += m.params.message;
      else
        progress.push([stream, m.params.message]);
    }
    ok(JSON.stringify(progress) === '[["stdout","out\\n"],["stderr","err\\n"]]',
      'progress notifications say stdout or stderr', progress);
  },

  async env() {
    const { client, transport, tools } = await connect(['--env', 'FROM_SERVER=s', '--env', 'BOTH=server']);
    try {
      const input = tools.find((t) => t.name === 'execute_code')?.inputSchema;
      ok(input?.properties?.env?.type === 'object', 'execute_code lists env in its inputSchema', input);
      const code = 'import os\nprint(os.environ.get("FROM_SERVER"), os.environ.get("BOTH"), os.environ.get("MINE"))';
      let sc = (await call(client, 'execute_code', { language: 'python', code })).structuredContent;
      ok(sc?.stdout === 's server None\n', '--env reaches every run', sc);
      sc = (await call(client, 'execute_code', { language: 'python', code,
        env: { MINE: 'm', BOTH: 'call' } })).structuredContent;
      ok(sc?.stdout === 's call m\n', 'a call\'s env is added and wins over --env', sc);
      // In a session, a call's env is that call's (issue 42 item 4): the
      // session's interpreter keeps its own, the next call sees that again.
      const inSession = [];
      for (const env of [undefined, { MINE: 'm', BOTH: 'call' }, undefined])
        inSession.push((await call(client, 'execute_code', { language: 'python', code,
          session_id: 'e', ...(env ? { env } : {}) })).structuredContent?.stdout);
      ok(JSON.stringify(inSession) === JSON.stringify(['s server None\n', 's call m\n', 's server None\n']),
        'a session call\'s env applies to that call only', inSession);
      sc = (await call(client, 'execute_code', { language: 'bash', code: 'echo "$MINE"',
        env: { MINE: 'x y' } })).structuredContent;
      ok(sc?.stdout === 'x y\n', 'env works for bash too', sc);
      const bad = await call(client, 'execute_code', { language: 'python', code: 'pass',
        env: { 'BAD NAME': '1' } });
      ok(bad.isError && textOf(bad).includes('invalid variable name'),
        'a bad variable name is refused, named', textOf(bad));
      const badType = await call(client, 'execute_code', { language: 'python', code: 'pass',
        env: { A: 1 } });
      ok(badType.isError && textOf(badType).includes('must be a string'),
        'a value that is not a string is refused', textOf(badType));
    } finally {
      await transport.close();
    }
    const r = spawnSync(server, [...extraArgs, '--env', '1X=2'], { encoding: 'utf8', input: '' });
    ok(r.status !== 0 && r.stderr.includes('--env'), 'sandpad-mcp --env with a bad name fails to start',
      r.stderr);
  },

  async venv() {
    const ws = makeWorkspace();
    const venv = path.join(ws, '.venv');
    const mk = spawnSync('/usr/bin/python3', ['-m', 'venv', '--without-pip', venv], { encoding: 'utf8' });
    if (mk.status !== 0) {
      console.log(`1..0 # SKIP cannot make a venv: ${mk.stderr}`);
      process.exit(0);
    }
    const site = spawnSync(path.join(venv, 'bin', 'python'), ['-c',
      'import sysconfig; print(sysconfig.get_paths()["purelib"])'], { encoding: 'utf8' }).stdout.trim();
    fs.writeFileSync(path.join(site, 'venvonly.py'), 'WORD = "from the venv"\n');
    spawnSync('chmod', ['-R', 'a+rX', ws]);
    if (process.getuid() === 0) spawnSync('chown', ['-R', `${runUid}:${runUid}`, ws]);
    const command = 'python -c "import venvonly; print(venvonly.WORD)"; echo "$VIRTUAL_ENV"; touch .venv/made';
    {
      const { client, transport } = await connect(['--workspace', ws, '--no-environment']);
      const sc = (await call(client, 'execute_command', { command })).structuredContent;
      ok(sc?.stderr.includes('ModuleNotFoundError') && sc.stdout === '\n',
        'control: without the environment a command cannot import from the venv', sc);
      await transport.close();
    }
    const { client, transport } = await connect(['--workspace', ws]);
    try {
      const sc = (await call(client, 'execute_command', { command })).structuredContent;
      ok(sc?.stdout === `from the venv\n${venv}\n`,
        'execute_command runs with the workspace\'s venv active (PATH, VIRTUAL_ENV)', sc);
      ok(fs.existsSync(path.join(venv, 'made')),
        'a venv inside the workspace stays as writable to a command as the workspace', sc);
      const code = (await call(client, 'execute_code', { language: 'python',
        code: 'import venvonly\nopen(__import__("sys").prefix + "/x", "w")' })).structuredContent;
      ok(/Read-only file system|Permission denied/.test(code?.error?.message ?? ""),
        'execute_code still gets the venv read-only', code);
    } finally {
      await transport.close();
    }
  },
  async files() {
    const ws = makeWorkspace();
    const { client, transport } = await connect(['--workspace', ws, '--disk', '1']);
    try {
      const bin = Buffer.from([0, 1, 2, 255, 254, 10, 0]);
      let res = await call(client, 'execute_code', { language: 'python', code:
        'import os\nprint(open("in/a.txt").read(), list(open("data.bin", "rb").read()))\n'
        + 'open("out.txt", "w").write("hello ✓\\n")\nopen("out.bin", "wb").write(bytes(range(256)))\n'
        + 'open("big.txt", "w").write("x" * 300000)\n',
      files: [{ path: 'in/a.txt', content: 'text in' }, { path: 'data.bin', base64: bin.toString('base64') }] });
      let sc = res.structuredContent;
      ok(sc?.stdout === 'text in [0, 1, 2, 255, 254, 10, 0]\n',
        'input files land as text and as base64 bytes before the run starts', sc);
      const resources = res.content.filter((c) => c.type === 'resource');
      const byName = (n) => resources.find((c) => c.resource.uri.endsWith('/' + n))?.resource;
      ok(byName('out.txt')?.text === 'hello ✓\n' && byName('out.txt').mimeType.startsWith('text/plain')
        && byName('out.txt').uri.startsWith('sandpad://run/'),
      'a created text file comes back as an embedded text resource', resources);
      ok(byName('out.bin')?.blob === Buffer.from([...Array(256).keys()]).toString('base64')
        && byName('out.bin').text === undefined && typeof byName('out.bin').mimeType === 'string',
      'a binary file comes back as a base64 blob with its MIME type', byName('out.bin'));
      const listed = (n) => sc.files.find((f) => f.path === n);
      ok(listed('out.txt')?.inline === true && listed('big.txt') && listed('big.txt').inline === undefined
        && byName('big.txt') === undefined && textOf(res).includes('file big.txt')
        && textOf(res).includes('content not included'),
      'a file over 256 KiB is listed, not embedded', sc.files);
      ok(listed('data.bin') === undefined, 'input files the run left alone are not listed', sc.files);
      res = await call(client, 'execute_command', { command: 'head -c 300000 /dev/zero > big.dat; echo hi > small.txt' });
      const link = res.content.find((c) => c.type === 'resource_link');
      ok(link?.uri === `file://${ws}/big.dat` && link.size === 300000
        && res.content.find((c) => c.type === 'resource')?.resource.text === 'hi\n',
      'a workspace file past the cap comes back as a resource link, a small one embedded', res.content);
      for (const [files, why] of [
        [[{ path: '../x', content: '' }], '..'], [[{ path: '/etc/x', content: '' }], 'absolute'],
        [[{ path: 'a/./b', content: '' }], '.'], [[{ path: 'x', base64: 'AB=C' }], 'bad base64'],
        [[{ path: 'x', content: 'a', base64: 'YQ==' }], 'both content and base64'],
        [[{ path: 'x', content: 'a' }, { path: 'x/y', content: 'b' }], 'a file as a directory'],
        [[{ path: 'big', base64: Buffer.alloc(1100000).toString('base64') }], 'over the disk cap of 1 MiB'],
      ]) {
        res = await call(client, 'execute_code', { language: 'bash', code: 'touch ran', files });
        ok(res.isError === true && /files|disk|given as a file/.test(textOf(res)),
          `input files refused: ${why}`, textOf(res));
      }
      ok(!fs.existsSync(path.join(ws, 'ran')), 'nothing ran for a refused call');
    } finally {
      await transport.close();
    }
  },
  async sessions() {
    const { client, transport, tools } = await connect();
    try {
      const names = tools.map((t) => t.name);
      ok(['list_sessions', 'restart_session', 'close_session'].every((t) => names.includes(t)),
        'the session tools are listed', names);
      const py = async (code, session_id) => (await call(client, 'execute_code',
        { language: 'python', code, session_id })).structuredContent;
      const counts = [];
      for (const code of ['x = 1', 'x += 1', 'print(x)'])
        counts.push((await py(code, 'a'))?.session?.execution_count);
      const b = await py('y = 5', 'b');
      ok(JSON.stringify(counts) === '[1,2,3]' && b?.session?.execution_count === 1,
        'each session call carries its execution count, per session', [counts, b]);
      let res = await call(client, 'list_sessions', {});
      let list = res.structuredContent?.sessions ?? [];
      const a = list.find((s) => s.id === 'a');
      ok(a?.execution_count === 3 && a.alive === true && a.busy === false && a.ended === null
        && a.language === 'python' && list.some((s) => s.id === 'b') && textOf(res).includes('a: python'),
      'list_sessions shows each session, its language and count', res);
      res = await call(client, 'restart_session', { session_id: 'a' });
      ok(res.structuredContent?.status === 'restarted' && res.isError !== true, 'restart_session answers', res);
      let sc = await py('print(x)', 'a');
      ok(sc?.error?.type === 'NameError' && sc.session.new === true && sc.session.execution_count === 1,
        'after a restart the state is gone and the count starts again', sc);
      sc = await py('print(y)', 'b');
      ok(sc?.stdout === '5\n' && sc.session.execution_count === 2, 'the other session kept its state', sc);
      res = await call(client, 'close_session', { session_id: 'b' });
      list = (await call(client, 'list_sessions', {})).structuredContent?.sessions ?? [];
      ok(res.structuredContent?.status === 'closed' && !list.some((s) => s.id === 'b')
        && list.some((s) => s.id === 'a'), 'close_session forgets the session', list);
      sc = await py('print(y)', 'b');
      ok(sc?.error?.type === 'NameError' && sc.session.new === true, 'a closed session\'s state is gone', sc);
      const js = async (code) => (await call(client, 'execute_code',
        { language: 'javascript', code, session_id: 'js' })).structuredContent;
      const j1 = await js('let n = 40; function inc() { return ++n }');
      const j2 = await js('inc(); console.log(inc())');
      ok(j1?.session?.new === true && j2?.stdout === '42\n' && j2.session.execution_count === 2,
        'a JavaScript session keeps its state, with its own count', [j1, j2]);
      list = (await call(client, 'list_sessions', {})).structuredContent?.sessions ?? [];
      ok(list.find((s) => s.id === 'js')?.language === 'javascript', 'list_sessions names its language', list);
      res = await call(client, 'close_session', { session_id: 'nope' });
      ok(res.isError === true && textOf(res).includes('no session'), 'an unknown session is an error', res);
      res = await call(client, 'restart_session', {});
      ok(res.isError === true && textOf(res).includes('session_id'), 'a missing session_id is named', res);
    } finally {
      await transport.close();
    }
  },
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
for (const dir of cleanup) fs.rmSync(dir, { recursive: true, force: true });
console.log(`1..${planned()}`);
process.exit(failures() ? 1 : 0);
