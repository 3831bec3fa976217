// test-mcp-session-js.mjs: what a session call gives beyond state, through
// the official MCP TypeScript SDK client against the real sandpad-mcp
// (real engine, sandbox, node and python3); the SDK validates every
// structuredContent against the tool's outputSchema. Groups:
//   values  a JavaScript session's completion value as a display, in the
//           shape a Python session's value has
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

const [server, group] = process.argv.slice(2);
if (!server || !group) {
  console.error('usage: node test-mcp-session-js.mjs SANDPAD_MCP GROUP');
  process.exit(2);
}

let n = 0;
let failed = 0;
function ok(cond, what, detail) {
  n++;
  if (cond) {
    console.log(`ok ${n} - ${what}`);
  } else {
    failed++;
    console.log(`not ok ${n} - ${what}`);
    if (detail !== undefined)
      console.log(`  # ${JSON.stringify(detail).slice(0, 2000)}`);
  }
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

const groups = { values: testValues, stdin: testStdin };

async function main() {
  const transport = new StdioClientTransport({
    command: server, args: extraArgs, stderr: 'inherit', env: { XDG_STATE_HOME: state },
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
console.log(`1..${n}`);
process.exit(failed ? 1 : 0);
