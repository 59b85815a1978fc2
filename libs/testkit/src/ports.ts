import { readFileSync } from 'node:fs';
import net from 'node:net';

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
 * the start is random so that test files running side by side rarely try the same port.
 */
export async function freePort(): Promise<number> {
  const span = rangeEnd - LOWEST_TEST_PORT;
  let port = LOWEST_TEST_PORT + Math.floor(Math.random() * span);
  for (let tried = 0; tried < span; tried++, port = port + 1 >= rangeEnd ? LOWEST_TEST_PORT : port + 1) {
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free TCP port on 127.0.0.1 between ${LOWEST_TEST_PORT} and ${rangeEnd - 1}`);
}
