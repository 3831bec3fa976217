// test-mcp-pep723.mjs: a Python snippet's inline script metadata (PEP 723,
// issue 25 item 9) through sandpad-mcp and the official MCP SDK client,
// offline: declared dependencies are installed into the workspace's venv
// by install_packages' own path and policy before the snippet runs (only
// what the venv lacks: run again, no pip starts at all); the
// policy's refusals name their rule, malformed metadata is a clear error,
// and in both cases nothing is installed and nothing runs.
//
//   node test-mcp-pep723.mjs SANDPAD_MCP
import { spawnSync } from 'node:child_process';
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

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
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
  const client = new Client({ name: 'sandpad-mcp-pep723-test', version: '1.0' });
  await client.connect(transport);
  return { client, transport };
}

const textOf = (result) => result.content.filter((c) => c.type === 'text').map((c) => c.text).join('');
const meta = (...lines) => ['# /// script', ...lines.map((l) => (l ? `# ${l}` : '#')), '# ///', ''].join('\n');

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-pep723-')));
const state = fs.mkdtempSync(path.join(os.tmpdir(), 'sandpad-mcp-pep723-state-'));
try {
  fs.chmodSync(base, 0o755);
  const ws = path.join(base, 'ws');
  fs.mkdirSync(ws);
  const mk = spawnSync(PYTHON, ['-m', 'venv', '--system-site-packages', '--without-pip',
    path.join(ws, '.venv')], { encoding: 'utf8' });
  const pipOk = spawnSync(PYTHON, ['-m', 'pip', '--version'], { encoding: 'utf8' }).status === 0;
  if (mk.status !== 0 || !pipOk) {
    console.log(`1..0 # SKIP needs python3 -m venv and pip: ${mk.stderr}`);
    process.exit(0);
  }
  for (const name of ['tinypkg', 'blockedpkg', 'otherpkg']) buildWheel(PYTHON, base, name);
  run('chmod', ['-R', 'a+rX', base]);
  if (process.getuid() === 0)
    run('chown', ['-R', `${runUid}:${runUid}`, ws]);
  const house = path.join(base, 'house');
  const venv = path.join(ws, '.venv');
  const version = run(PYTHON, ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])']).stdout.trim();

  // Control: a server without an environment refuses declared dependencies.
  {
    const { client, transport } = await connect(['--no-environment'], state);
    const res = await client.callTool({ name: 'execute_code', arguments: { language: 'python',
      code: meta('dependencies = ["tinypkg"]') + 'print("RAN")' } });
    ok(res.isError === true && textOf(res).includes('no Python environment'),
      'without an environment, declared dependencies are refused', textOf(res));
    await transport.close();
  }

  const { client, transport } = await connect(
    ['--workspace', ws, '--find-links', house, '--block-package', 'blocked*'], state);
  const py = (code) => client.callTool({ name: 'execute_code', arguments: { language: 'python', code } },
    undefined, { timeout: 240000 });
  const importable = async (name) => (await py(`import ${name}`)).structuredContent?.exit_code === 0;

  ok(!(await importable('tinypkg')), 'control: tinypkg is not installed before');
  let res = await py(meta(`requires-python = ">=3"`, 'dependencies = [', '  "tinypkg",  # the one', ']',
    '', '[tool.other]', 'dependencies = ["otherpkg"]') + 'import tinypkg\nprint(tinypkg.WORD)');
  let sc = res.structuredContent;
  ok(sc?.stdout === 'tinypkg-1.0\n' && JSON.stringify(sc.installed_packages) === '["tinypkg==1.0"]'
    && textOf(res).includes('PEP 723'),
  'declared dependencies are installed into the venv before the snippet runs', res);
  ok(fs.readdirSync(path.join(venv, 'lib')).some((d) =>
    fs.existsSync(path.join(venv, 'lib', d, 'site-packages', 'tinypkg'))),
  'tinypkg is in the workspace\'s venv');
  ok(!(await importable('otherpkg')), 'a table\'s keys ([tool.other]) are not the script\'s dependencies');

  // Run again with tinypkg in the venv: no install step. The wheelhouse is
  // swapped for an empty one first, so a pip process would fail ("No
  // matching distribution"); the log would gain a line for an install.
  const log = path.join(state, 'sandpad', 'installs.log');
  const logLines = () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0);
  const logged = logLines();
  ok(logged === 1, 'the install is in the install log', logged);
  const away = path.join(base, 'house-away');
  const emptyHouse = () => { fs.renameSync(house, away); fs.mkdirSync(house, { mode: 0o755 }); };
  const restoreHouse = () => { fs.rmdirSync(house); fs.renameSync(away, house); };
  emptyHouse();
  const again = meta('dependencies = ["tinypkg"]') + 'import tinypkg\nprint(tinypkg.WORD)';
  res = await py(again);
  sc = res.structuredContent;
  ok(res.isError !== true && sc?.stdout === 'tinypkg-1.0\n' && sc.installed_packages === undefined
    && !textOf(res).includes('PEP 723') && logLines() === logged,
  'run again with everything in the venv, no pip runs (no source needed) and nothing says an install', res);
  const pinned = meta('dependencies = ["tinypkg==2.0"]') + 'import tinypkg\nprint(tinypkg.WORD)';
  res = await py(pinned);
  ok(res.isError === true && textOf(res).includes('not installed') && textOf(res).includes('pip exited')
    && !textOf(res).includes('tinypkg-'),
    'control: a pin the venv does not meet (1.0 for ==2.0) goes to pip, which finds no wheel', textOf(res));
  restoreHouse();
  buildWheel(PYTHON, base, 'tinypkg', '2.0');
  run('chmod', ['-R', 'a+rX', base]);
  res = await py(pinned);
  sc = res.structuredContent;
  ok(sc?.stdout === 'tinypkg-2.0\n' && JSON.stringify(sc.installed_packages) === '["tinypkg==2.0"]'
    && logLines() === logged + 1,
  'with the source back, the pinned 2.0 is installed, logged, and imported', res);
  emptyHouse();
  res = await py(pinned);
  sc = res.structuredContent;
  ok(sc?.stdout === 'tinypkg-2.0\n' && sc.installed_packages === undefined && logLines() === logged + 1,
    'then the pinned snippet runs again with no install step', res);
  restoreHouse();

  res = await py(meta('dependencies = ["blockedpkg"]') + 'print("RAN")');
  ok(res.isError === true && textOf(res).includes('block list') && !textOf(res).includes('RAN'),
    'a dependency the policy blocks is refused naming the rule, and nothing runs', textOf(res));
  ok(!(await importable('blockedpkg')), 'the blocked package is not installed');

  for (const [lines, why, says] of [
    [['dependencies = "otherpkg"'], 'a string for the array', 'array of strings'],
    [['dependencies = ["otherpkg"'], 'an array not closed', 'not closed'],
    [['dependencies = ["otherpkg", 3]'], 'a number in the array', 'array of strings'],
    [['dependencies = ["otherpkg"] x'], 'text after the value', 'after the value'],
    [['dependencies = ["otherpkg"]', 'dependencies = []'], 'a key twice', 'twice'],
    [['dependencies = ["other\\qpkg"]'], 'an unknown escape', 'escape'],
    [['requires-python = 3'], 'requires-python not a string', 'must be a string'],
    [['requires-python = "fast"', 'dependencies = ["otherpkg"]'], 'a requires-python not a specifier', 'specifier'],
    [['requires-python = ">=99"', 'dependencies = ["otherpkg"]'], 'a requires-python not met', 'not met'],
  ]) {
    res = await py(meta(...lines) + 'print("RAN")');
    ok(res.isError === true && textOf(res).includes(says) && textOf(res).includes('PEP 723'),
      `malformed metadata is refused: ${why}`, textOf(res));
  }
  res = await py('# /// script\n# dependencies = ["otherpkg"]\nprint("RAN")\n');
  ok(res.isError === true && textOf(res).includes('# ///'), 'a block that is not closed is refused', textOf(res));
  res = await py(meta('dependencies = ["otherpkg"]') + meta('dependencies = []') + 'print(1)');
  ok(res.isError === true && textOf(res).includes('second'), 'a second block is refused', textOf(res));
  res = await py(meta('dependencies = ["--index-url=http://example.invalid/"]') + 'print(1)');
  ok(res.isError === true && textOf(res).includes('not a package name'),
    'an option given as a dependency is refused by the install path', textOf(res));
  ok(!(await importable('otherpkg')), 'nothing was installed for any refused metadata');

  res = await py(meta(`requires-python = ">=${version}, <99"`, 'name = "ignored"', 'numbers = [1, [2, 3]]',
    'dependencies = []') + 'print("RAN")');
  ok(res.structuredContent?.stdout === 'RAN\n' && res.structuredContent.installed_packages === undefined,
    'a met requires-python, other keys skipped and no dependencies: it just runs', res);
  res = await py('x = "# /// script"\nprint(x)');
  ok(res.structuredContent?.stdout === '# /// script\n', 'the marker inside a line is not a block', res);
  await transport.close();
} catch (e) {
  ok(false, 'the test threw', String(e?.stack ?? e));
} finally {
  fs.rmSync(base, { recursive: true, force: true });
  fs.rmSync(state, { recursive: true, force: true });
}
console.log(`1..${planned()}`);
process.exit(failures() ? 1 : 0);
