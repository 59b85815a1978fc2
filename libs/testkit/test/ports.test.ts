import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { CLAIMS_DIR, claimPort, freePort } from '../src/ports.ts';

test('freePort: distinct, bindable ports below the range the kernel gives outgoing connections', async () => {
  const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
  const ports: number[] = [];
  for (let i = 0; i < 50; i++) ports.push(await freePort());
  assert.equal(new Set(ports).size, ports.length, `no port handed out twice: ${ports.join(' ')}`);
  for (const port of ports) {
    assert.ok(
      port >= 10_000 && port < Number(low),
      `${port} lies below the ephemeral range starting at ${low}`,
    );
  }
  // Each one can be bound right away by the server that asked for it.
  const servers = await Promise.all(
    ports.map(
      (port) =>
        new Promise<net.Server>((resolve, reject) => {
          const server = net.createServer();
          server.once('error', reject);
          server.listen(port, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
});

test('a port another live process was handed is not handed out here; once that process is gone, it is', async () => {
  const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
  const rangeEnd = Number(low) > 12_000 ? Number(low) : 49_152;
  const span = rangeEnd - 10_000;
  // Three consecutive ports free now, well inside the range, claimed by a child process that stays alive.
  let first = 0;
  for (let p = 10_000 + Math.floor(Math.random() * (span - 100)); first === 0; p += 4) {
    if ((await Promise.all([0, 1, 2].map((k) => listenable(p + k)))).every(Boolean) && !claimed(p, 3))
      first = p;
  }
  const mine = [first, first + 1, first + 2];
  const ports = fileURLToPath(new URL('../src/ports.ts', import.meta.url));
  const holder = spawn(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `import { claimPort } from ${JSON.stringify(ports)};
       const ok = ${JSON.stringify(mine)}.every((p) => claimPort(p));
       process.stdout.write(ok ? 'claimed\\n' : 'refused\\n');
       process.stdin.resume();`,
    ],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  );
  const said = await new Promise<string>((resolve) =>
    holder.stdout.once('data', (b: Buffer) => resolve(String(b))),
  );
  assert.equal(said.trim(), 'claimed');
  try {
    // This process starts its look at the first of them (as if its random start fell there): the three are
    // free, yet handed out to the child, so it walks past them.
    const random = Math.random;
    Math.random = () => (first - 10_000 + 0.5) / span;
    let got: number;
    try {
      got = await freePort();
    } finally {
      Math.random = random;
    }
    assert.ok(!mine.includes(got), `${got} was handed out to the other process (${mine.join(', ')})`);
    assert.ok(got > first + 2, `${got} lies past the claimed ports`);
  } finally {
    holder.kill();
    await new Promise((resolve) => holder.once('exit', resolve));
  }
  // Its process gone, a claim is taken over: the file names this process now.
  assert.equal(claimPort(first), true);
  assert.equal(readFileSync(path.join(CLAIMS_DIR, String(first)), 'utf8'), String(process.pid));
  assert.equal(claimPort(first), false, 'a port this process claimed is not claimed again');
});

function listenable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** Whether any of the `n` ports from `from` has a claim file (another test file may hold it). */
function claimed(from: number, n: number): boolean {
  for (let k = 0; k < n; k++) if (existsSync(path.join(CLAIMS_DIR, String(from + k)))) return true;
  return false;
}
