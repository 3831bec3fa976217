// tests/mcp/wheels.mjs: the offline wheels the install tests serve from a
// local folder (PyPI is not reachable from CI).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

// A tiny pure-Python project `name` (WORD = 'name-VERSION') built into a
// wheel in base/house (or the folder named by house), with the system
// interpreter and no network.
export function buildWheel(python, base, name, version = '1.0', house = path.join(base, 'house')) {
  const src = path.join(base, `src-${name}-${version}`);
  fs.mkdirSync(path.join(src, name), { recursive: true });
  fs.writeFileSync(path.join(src, name, '__init__.py'), `WORD = '${name}-${version}'\n`);
  fs.writeFileSync(path.join(src, 'setup.py'),
    `from setuptools import setup\nsetup(name='${name}', version='${version}', packages=['${name}'])\n`);
  const r = spawnSync(python, ['-m', 'pip', 'wheel', '-q', '--no-deps', '--no-index',
    '--no-build-isolation', '-w', house, src], { encoding: 'utf8' });
  if (r.status !== 0)
    throw new Error(`pip wheel ${name}: ${r.stderr}`);
}
