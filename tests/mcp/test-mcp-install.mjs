// test-mcp-install.mjs: sandpad-mcp's install_packages, driven by the
// official MCP TypeScript SDK client, offline.
//
//   node test-mcp-install.mjs SANDPAD_MCP
//
// A real server with a workspace holding a real venv (made by the system's
// python3) and a wheelhouse of packages this test builds itself with
// Debian's pip/setuptools/wheel; the SDK validates every structuredContent
// against install_packages' outputSchema.
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { buildWheel } from './wheels.mjs';
import { ok, planned, failures } from './tap.mjs';

const [server] = process.argv.slice(2);
const PYTHON = '/usr/bin/python3';
const runUid = process.getuid() === 0 ? 65534 : process.getuid();

function run(cmd, args, opts = {}) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', ...opts });
  if (r.status !== 0)
    throw new Error(`${cmd} ${args.join(' ')}: ${r.stderr}`);
  return r;
}

const extraArgs = process.env.SANDPAD_TEST_SANDBOX
  ? ['--sandbox', process.env.SANDPAD_TEST_SANDBOX] : [];

async function connect(args, state) {
  const transport = new StdioClientTransport({
    command: server, args: [...extraArgs, ...args], stderr: 'inherit',
    env: { XDG_STATE_HOME: state },
  });
  const client = new Client({ name: 'sandpad-mcp-install-test', version: '1.0' });
  await client.connect(transport);
  const tools = await client.listTools();
  return { client, transport, tools: tools.tools };
}

const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-install-')));
const state = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-install-state-'));
try {
  fs.chmodSync(base, 0o755);
  const ws = path.join(base, 'ws');
  fs.mkdirSync(ws);
  run(PYTHON, ['-m', 'venv', '--system-site-packages', '--without-pip', path.join(ws, '.venv')]);
  buildWheel(PYTHON, base, 'tinypkg');
  buildWheel(PYTHON, base, 'blockedpkg');
  run('chmod', ['-R', 'a+rX', base]);
  // The workspace and its venv belong to the uid that runs programs, so
  // only the sandbox keeps a run from writing into the venv.
  if (process.getuid() === 0)
    run('chown', ['-R', `${runUid}:${runUid}`, ws]);
  const house = path.join(base, 'house');
  const venv = path.join(ws, '.venv');

  // Control: without an environment there is no such tool, and the
  // package is not importable.
  {
    const { client, transport, tools } = await connect(['--workspace', ws, '--no-environment'], state);
    ok(!tools.some((t) => t.name === 'install_packages'),
      'control: without an environment install_packages is not listed');
    await transport.close();
  }

  const { client, transport, tools } = await connect(
    ['--workspace', ws, '--find-links', house, '--block-package', 'blocked*'], state);
  const tool = tools.find((t) => t.name === 'install_packages');
  ok(tool !== undefined && tool.inputSchema?.required?.includes('packages')
    && tool.outputSchema?.properties?.status !== undefined,
  'install_packages is listed with its input and output schemas', tool);

  const before = await client.callTool({ name: 'execute_code',
    arguments: { language: 'python', code: 'import tinypkg' } });
  ok(before.structuredContent?.exit_code !== 0 && textOf(before).includes('ModuleNotFoundError'),
    'control: the package is missing before the install', before.structuredContent);

  const res = await client.callTool({ name: 'install_packages', arguments: { packages: ['tinypkg'] } });
  const sc = res.structuredContent;
  const wheel = fs.readdirSync(house).find((f) => f.startsWith('tinypkg-'));
  const digest = crypto.createHash('sha256').update(fs.readFileSync(path.join(house, wheel))).digest('hex');
  ok(!res.isError && sc?.status === 'installed' && sc.environment === venv
    && sc.packages?.length === 1 && sc.packages[0].name === 'tinypkg'
    && sc.packages[0].sha256 === digest,
  'install_packages installs the package and reports its SHA-256', sc);
  const log = sc?.log ? fs.readFileSync(sc.log, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [];
  ok(log.length === 1 && log[0].sha256 === digest && log[0].name === 'tinypkg',
    'the install log has the entry', log);

  const after = await client.callTool({ name: 'execute_code',
    arguments: { language: 'python', code: 'import sys, tinypkg\nprint(tinypkg.WORD, sys.prefix)' } });
  ok(after.structuredContent?.stdout === `tinypkg-1.0 ${venv}\n`,
    'a following execute_code imports it from the venv', after.structuredContent);

  const blocked = await client.callTool({ name: 'install_packages', arguments: { packages: ['blockedpkg'] } });
  ok(blocked.isError === true && blocked.structuredContent?.status === 'refused'
    && textOf(blocked).includes('block list'),
  'a blocked package is refused, naming the rule', blocked);

  const smuggled = await client.callTool({ name: 'install_packages',
    arguments: { packages: ['--index-url=http://example.invalid/'] } });
  ok(smuggled.isError === true && textOf(smuggled).includes('not a package name'),
    'an option passed as a package is refused', smuggled);

  const bad = await client.callTool({ name: 'install_packages', arguments: { packages: [], extra: 1 } });
  ok(bad.isError === true, 'arguments are checked strictly', bad);

  const write = await client.callTool({ name: 'execute_code', arguments: { language: 'python',
    code: `import sys\ntry:\n    open(sys.prefix + '/lib/planted.py', 'w')\n    print('WROTE')\nexcept OSError as e:\n    print('refused', e.errno)` } });
  ok(write.structuredContent?.stdout?.startsWith('refused'),
    'a run cannot write into the environment', write.structuredContent);
  ok(!fs.existsSync(path.join(venv, 'lib', 'planted.py')), 'nothing was planted');
  await transport.close();
} catch (e) {
  ok(false, 'the test threw', String(e?.stack ?? e));
} finally {
  fs.rmSync(base, { recursive: true, force: true });
  fs.rmSync(state, { recursive: true, force: true });
}
console.log(`1..${planned()}`);
process.exit(failures() ? 1 : 0);
