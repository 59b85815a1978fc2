import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { test } from 'node:test';
import { freePort } from '../src/ports.ts';

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
