// The one child-process supervisor: output kept and logged, a line waited for, SIGTERM honoured, and
// SIGKILL after the grace period for a child that ignores it; a node child shares Node's compile cache.
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { Proc } from '../src/index.ts';
import { compileCacheEnv, withCompileCache } from '../src/proc.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'proc-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function node(name: string, script: string, logFile?: string): Proc {
  return new Proc({
    name,
    command: process.execPath,
    args: ['-e', script],
    env: process.env,
    ...(logFile !== undefined ? { logFile } : {}),
  });
}

test('output: tail, lines and the log file; the exit code', async () => {
  const logFile = path.join(dir, 'out.log');
  const p = node(
    'printer',
    'for (let i = 1; i <= 5; i++) console.log("line " + i); console.error("oops"); process.exit(3)',
    logFile,
  );
  assert.deepEqual(await p.exited, { code: 3, signal: null });
  assert.equal(p.running, false);
  assert.match(p.tail(2), /oops|line 5/);
  assert.ok(p.lines().includes('line 1'));
  assert.match(readFileSync(logFile, 'utf8'), /line 3/);
  assert.match(p.describe(), /printer: exited \(code 3/);
});

test('waitForLine returns the match; it gives up when the process exits first', async () => {
  const p = node('server', 'console.log("listening on http://127.0.0.1:4321"); setInterval(() => {}, 1000)');
  const m = await p.waitForLine(/listening on (http:\/\/\S+)/);
  assert.equal(m[1], 'http://127.0.0.1:4321');
  await p.stop();

  const q = node('quitter', 'console.log("bye")');
  await assert.rejects(q.waitForLine(/listening/), /gave up waiting for quitter .*: it exited/);
});

test('stop(): SIGTERM is honoured; a child that ignores it is SIGKILLed after the grace period', async () => {
  const polite = node(
    'polite',
    'process.on("SIGTERM", () => process.exit(0)); console.log("up"); setInterval(() => {}, 1000)',
  );
  await polite.waitForLine(/up/);
  assert.deepEqual(await polite.stop(5_000), { code: 0, signal: null });

  const stubborn = node(
    'stubborn',
    'process.on("SIGTERM", () => {}); console.log("up"); setInterval(() => {}, 1000)',
  );
  await stubborn.waitForLine(/up/);
  assert.deepEqual(await stubborn.stop(200), { code: null, signal: 'SIGKILL' });
});

test('a command that does not exist: exits with the reason in the output', async () => {
  const p = new Proc({ name: 'missing', command: path.join(dir, 'no-such-command') });
  assert.deepEqual(await p.exited, { code: null, signal: null });
  assert.match(p.tail(), /ENOENT/);
});

test('a node child given an env of its own gets this process’s NODE_COMPILE_CACHE, absolute, and uses it', async () => {
  const saved = process.env.NODE_COMPILE_CACHE;
  const cache = path.relative(process.cwd(), path.join(dir, 'compile-cache'));
  process.env.NODE_COMPILE_CACHE = cache;
  try {
    const p = new Proc({
      name: 'cached',
      command: process.execPath,
      args: [
        '-e',
        'console.log(process.env.NODE_COMPILE_CACHE); console.log(require("node:module").getCompileCacheDir())',
      ],
      env: { PATH: process.env.PATH ?? '' },
    });
    assert.deepEqual(await p.exited, { code: 0, signal: null }, p.describe());
    assert.equal(p.lines()[0], path.resolve(cache), p.describe());
    assert.ok(p.lines()[1]?.startsWith(path.resolve(cache)), `the cache in use: ${p.describe()}`);
    assert.ok(readdirSync(path.resolve(cache)).length > 0, 'the child wrote its compiled code there');
  } finally {
    if (saved === undefined) delete process.env.NODE_COMPILE_CACHE;
    else process.env.NODE_COMPILE_CACHE = saved;
  }
});

test('withCompileCache and compileCacheEnv: only for node, only when set, and an env that names its own keeps it', () => {
  const env = { PATH: '/bin' };
  const abs = path.resolve('cc');
  assert.deepEqual(withCompileCache('/x/node_modules/.bin/node', env, 'cc'), {
    PATH: '/bin',
    NODE_COMPILE_CACHE: abs,
  });
  assert.equal(withCompileCache('redis-server', env, 'cc'), env);
  assert.equal(withCompileCache('/x/node', env, undefined), env);
  assert.equal(withCompileCache('/x/node', env, ''), env);
  const saved = process.env.NODE_COMPILE_CACHE;
  process.env.NODE_COMPILE_CACHE = 'cc';
  assert.deepEqual(compileCacheEnv(), { NODE_COMPILE_CACHE: abs });
  delete process.env.NODE_COMPILE_CACHE;
  assert.deepEqual(compileCacheEnv(), {});
  if (saved !== undefined) process.env.NODE_COMPILE_CACHE = saved;
  const own = { NODE_COMPILE_CACHE: '/elsewhere' };
  assert.equal(withCompileCache('/x/node', own, 'cc'), own);
});
