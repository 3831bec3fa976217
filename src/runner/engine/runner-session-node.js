// Sandpad's JavaScript session driver: one node process that runs snippet
// after snippet in the same vm context, so variables, functions and
// required modules stay between runs (a REPL's way). It is the child of
// runner-session-node.py, in the session's sandbox; its stdout and stderr
// reach the run that is going. The relay writes a run's directory (its
// snippet and run.json, read-only) and the number of its fd of the run's
// stdin, as one JSON line on fd RFD; this answers
// with one JSON line on WFD: {"exit": N} or {"signal": 2}, and "cpu_ns".
// The script's completion value (what the node REPL prints: `x = 4; x`
// gives 4) is shown as a display event, unless it is undefined.
//
//   node runner-session-node.js RFD WFD
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const { createRequire } = require('module');

const [rfd, wfd] = process.argv.slice(-2).map(Number);

// Top-level await, as node's REPL has it: its own rewrite of a snippet
// Script refuses for an await (declarations hoisted so they stay in the
// context, the body an async function whose last expression is the
// value; lines unchanged). Only with --expose-internals (the relay gives
// it); without, a snippet with a top-level await fails as before.
let rewriteAwait = null;
try {
  rewriteAwait = require('internal/repl/await').processTopLevelAwait;
} catch {
  // an older or newer node without it
}
const DRIVER = __filename;
let onInterrupt = null;

// Between runs SIGINT is nothing; during one it stops the snippet (the
// runner's interrupt for a time limit or a cancel).
process.on('SIGINT', () => {
  if (onInterrupt) onInterrupt();
});

const sandbox = {
  console, process, Buffer, URL, URLSearchParams, TextEncoder, TextDecoder,
  setTimeout, clearTimeout, setInterval, clearInterval, setImmediate, clearImmediate,
  queueMicrotask, structuredClone, fetch: globalThis.fetch, AbortController,
};
sandbox.global = sandbox;
sandbox.globalThis = sandbox;
const context = vm.createContext(sandbox);

class Interrupted extends Error {}

// The run's stdin. node cannot take an fd over a socket, so it opens the
// relay's fd of the run's pipe through /proc/<relay>/fd/N: the same pipe
// (an anonymous pipe's open never waits for a writer), so what the run
// is given arrives, its EOF too, and the runner's input_wait sees node
// blocked reading it. fd 0 is made that pipe for the run (node has no
// dup2: closing 0 makes it the lowest free fd, which open takes), so
// fs.readFileSync(0) and fs.readSync(0, ...) read it; process.stdin is a
// stream of its own on another fd of the same pipe, made when the
// snippet first asks for it and destroyed when the run ends, so what a
// run leaves unread is not the next one's. Between runs fd 0 is
// /dev/null again, so the session holds none of an ended run's pipe.
function setStdin(target) {
  try {
    fs.closeSync(0);
  } catch {
    // already closed
  }
  let fd;
  try {
    fd = fs.openSync(target, 'r');
  } catch {
    fd = fs.openSync('/dev/null', 'r');
  }
  if (fd !== 0) fs.closeSync(fd); // another thread took 0 meanwhile
}

let runStdin = null;
function attachStdin(source) {
  setStdin(source);
  runStdin = null;
  let stream = null;
  Object.defineProperty(process, 'stdin', {
    configurable: true,
    enumerable: true,
    get() {
      if (stream) return stream;
      const fd = fs.openSync(source, 'r');
      const stat = fs.fstatSync(fd);
      stream = stat.isFIFO() || stat.isSocket()
        ? new (require('net').Socket)({ fd, readable: true, writable: false })
        : fs.createReadStream(null, { fd });
      runStdin = stream;
      return stream;
    },
  });
}

function detachStdin() {
  if (runStdin) runStdin.destroy();
  runStdin = null;
  setStdin('/dev/null');
}

// The value goes out as a Python session's does: the display marker with
// the session's token on stdout, in its place among the prints, and the
// runner turns it into a `display` event with `text/plain` (the REPL's
// util.inspect text). Without a token it is printed, as the REPL would.
function show(value) {
  if (value === undefined) return;
  const text = require('util').inspect(value);
  const token = process.env.SANDPAD_DISPLAY_TOKEN;
  if (!token) {
    process.stdout.write(`${text}\n`);
    return;
  }
  const bundle = JSON.stringify({ 'text/plain': text });
  process.stdout.write(`\x1b]sandpad-display;${token};${bundle}\x07`);
}

function report(error) {
  let text;
  if (error instanceof Error || (error && typeof error.stack === 'string')) {
    // The driver's own frames are not the snippet's.
    text = String(error.stack).split('\n').filter((l) => !l.includes(DRIVER)
      && !l.includes('node:vm') && !l.includes('node:internal')).join('\n');
  } else {
    text = `Uncaught ${require('util').inspect(error)}`;
  }
  process.stderr.write(`${text}\n`);
}

async function runOne(message) {
  const { dir, stdin } = JSON.parse(message);
  attachStdin(`/proc/${process.ppid}/fd/${stdin}`);
  try {
    return await runSnippet(dir);
  } finally {
    detachStdin();
  }
}

// The snippet as a Script, or node's REPL rewrite of it when Script
// refuses it for a top-level await. A snippet Script takes runs as sent.
function compile(code, file) {
  try {
    return { script: new vm.Script(code, { filename: file }), awaited: false };
  } catch (error) {
    const rewritten = error instanceof SyntaxError && rewriteAwait && code.includes('await')
      ? rewriteAwait(code) : null;
    if (!rewritten)
      throw error;
    return { script: new vm.Script(rewritten, { filename: file }), awaited: true };
  }
}

// Sets each variable (undefined: unset); answers what they were.
function setEnv(values) {
  const was = {};
  for (const [name, value] of Object.entries(values)) {
    was[name] = process.env[name];
    if (value === undefined)
      delete process.env[name];
    else
      process.env[name] = value;
  }
  return was;
}

async function runSnippet(dir) {
  const request = JSON.parse(fs.readFileSync(path.join(dir, 'run.json'), 'utf8'));
  // The run's env over the session's, for this run only: put back after.
  const was = setEnv(request.env || {});
  try {
    return await runRequest(request);
  } finally {
    setEnv(was);
  }
}

async function runRequest(request) {
  const file = request.file;
  const code = fs.readFileSync(file, 'utf8');
  const before = process.cpuUsage();
  let result = { exit: 0 };
  process.argv = [process.argv[0], file, ...(request.args || [])];
  sandbox.__filename = file;
  sandbox.__dirname = path.dirname(file);
  // Relative requires resolve from the working directory, as a REPL's do.
  sandbox.require = createRequire(path.join(process.cwd(), '[session]'));
  sandbox.module = { exports: {} };
  sandbox.exports = sandbox.module.exports;
  try {
    const { script, awaited } = compile(code, file);
    let value = script.runInContext(context, { breakOnSigint: true });
    if (value && typeof value.then === 'function') {
      value = await new Promise((resolve, reject) => {
        onInterrupt = () => reject(new Interrupted('Interrupted'));
        value.then(resolve, reject);
      });
    }
    // The rewrite's async body answers { value } when it ends in an
    // expression.
    show(awaited ? value?.value : value);
  } catch (error) {
    if (error instanceof Interrupted || error?.code === 'ERR_SCRIPT_EXECUTION_INTERRUPTED') {
      process.stderr.write('Interrupted (SIGINT)\n');
      result = { signal: 2 };
    } else {
      report(error);
      result = { exit: 1 };
    }
  } finally {
    onInterrupt = null;
  }
  const used = process.cpuUsage(before);
  result.cpu_ns = (used.user + used.system) * 1000;
  return result;
}

// One run at a time, in the order the relay sends them.
let queue = Promise.resolve();
let partial = '';
// A libuv pipe, not fs.createReadStream: that one leaves a read blocked in
// the thread pool, and process.exit() in a snippet would wait for it.
const input = new (require('net').Socket)({ fd: rfd, readable: true, writable: false });
input.setEncoding('utf8');
input.on('data', (chunk) => {
  partial += chunk;
  let nl;
  while ((nl = partial.indexOf('\n')) >= 0) {
    const line = partial.slice(0, nl);
    partial = partial.slice(nl + 1);
    queue = queue.then(async () => {
      let result;
      try {
        result = await runOne(line);
      } catch (error) {
        report(error);
        result = { exit: 1, cpu_ns: 0 };
      }
      fs.writeSync(wfd, `${JSON.stringify(result)}\n`);
    });
  }
});
input.on('end', () => process.exit(0));
// An error the snippet left behind (a rejected promise, a throwing
// timer) is reported, not the end of the session.
process.on('uncaughtException', report);
process.on('unhandledRejection', report);
