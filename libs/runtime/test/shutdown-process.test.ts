// Shutdown in a real process: the signal arrives while the app is still starting.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';

test('a real process: SIGTERM while it is still starting exits 0 after its stop ran', async () => {
  // The child installs the handlers, then "starts" until the test's signal has reached it, so the signal
  // lands mid-start however late either process runs (a fixed start-up time races the test on a busy machine).
  const script = `
    import { Shutdown } from ${JSON.stringify(path.join(import.meta.dirname, '../src/shutdown.ts'))};
    const shutdown = new Shutdown({ name: 'child' });
    // Keeps the process alive while it waits, as an app's open sockets do.
    setInterval(() => undefined, 1000);
    process.stdout.write('starting\\n');
    await new Promise((r) => shutdown.signal.addEventListener('abort', r, { once: true }));
    // Start-up goes on a little after the signal, as an app's would.
    await new Promise((r) => setTimeout(r, 50));
    shutdown.onStop(async () => { process.stdout.write('stopped cleanly\\n'); });
  `;
  // A file, not `-e`: eval mode handles signals differently from how the apps run.
  const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-shutdown-'));
  const file = path.join(dir, 'child.mjs');
  writeFileSync(file, script);
  const child = spawn(process.execPath, [file], { stdio: ['ignore', 'pipe', 'pipe'] });
  let signalled = false;
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    if (!signalled && out.includes('starting')) {
      signalled = true;
      child.kill('SIGTERM');
    }
  });
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const exit = await new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  rmSync(dir, { recursive: true, force: true });
  assert.deepEqual(exit, { code: 0, signal: null }, `stdout: ${out}\nstderr: ${err}`);
  assert.match(out, /stopped cleanly/);
  assert.match(err, /child: SIGTERM received during start-up/);
});
