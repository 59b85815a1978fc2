import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { isAlive } from './alive.ts';

/**
 * Where the kernel picks the local ports of outgoing connections (and of `listen(0)`). A port handed out
 * from inside this range can be taken by any client's connect() before the server that asked for it binds
 * it (seen: a dashboard failing with EADDRINUSE), so test ports come from below it.
 */
function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const start = Number(low);
    if (Number.isInteger(start) && start > 12_000) return start;
  } catch {
    // not Linux: the IANA dynamic range starts at 49152
  }
  return 49_152;
}

const LOWEST_TEST_PORT = 10_000;
const rangeEnd = ephemeralRangeStart();
/** Ports this process handed out already: a second caller never gets the same one before it binds it. */
const handedOut = new Set<number>();

/**
 * Where each port handed out is claimed for the machine, a file named by the port holding the pid of the
 * process that claimed it: test files run side by side, each with its own `handedOut`, and a port one of
 * them handed out stays free until its server binds it (an app's start-up: a second or more), so another
 * could hand it out too (seen: a bench's watcher finding its port taken). A claim holds while its process
 * lives; one whose process is gone is taken over. Per user: another user's files are not ours to take over.
 */
export const CLAIMS_DIR = path.join(os.tmpdir(), `podset-test-ports-${process.getuid?.() ?? 'any'}`);

/**
 * Claims `port` for this process on this machine: false when a live process holds it. A claim that cannot
 * be written (no such directory can be made) claims nothing and lets the port go, as before claims were.
 */
export function claimPort(port: number): boolean {
  const file = path.join(CLAIMS_DIR, String(port));
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      mkdirSync(CLAIMS_DIR, { recursive: true });
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return true;
    }
    let holder: number;
    try {
      holder = Number(readFileSync(file, 'utf8'));
    } catch {
      continue; // gone in between: try to claim it again
    }
    if (holder === process.pid || (Number.isInteger(holder) && holder > 0 && isAlive(holder))) return false;
    try {
      unlinkSync(file); // its process is gone: taken over
    } catch {
      // another process took it over first; the next attempt finds its claim
    }
  }
  return false;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A TCP port on 127.0.0.1 that was free a moment ago (for servers that can't bind port 0 themselves). It lies
 * below the ephemeral range, so only another server can take it in between, never an outgoing connection;
 * no other process of ours is handed it while this one lives (claimPort); the start is random so that test
 * files running side by side rarely try the same port.
 */
export async function freePort(): Promise<number> {
  const span = rangeEnd - LOWEST_TEST_PORT;
  let port = LOWEST_TEST_PORT + Math.floor(Math.random() * span);
  for (let tried = 0; tried < span; tried++, port = port + 1 >= rangeEnd ? LOWEST_TEST_PORT : port + 1) {
    if (handedOut.has(port)) continue;
    if (!(await canListen(port))) continue;
    // Claimed after the look, so that a port some server holds is not claimed for nothing.
    if (claimPort(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free TCP port on 127.0.0.1 between ${LOWEST_TEST_PORT} and ${rangeEnd - 1}`);
}
