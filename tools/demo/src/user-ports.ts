// The ports a user chooses with a flag (--port, --dashboard-port): checked before anything starts, so a
// taken one is one line naming the flag and exit 2, instead of a stack trace from deep in a start-up,
// or an app that dies after the rest was started.
import net from 'node:net';
import { exitOnListenError, listenError } from '@podset/runtime';

/** Binds `port` at `host` for a moment; resolves when it could, rejects with what listen() said. */
function tryListen(port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** Each of `ports` (flag → port; 0, a free one, is not checked) bindable at `host`, else exit 2 with one line. */
export async function requireFreePorts(
  command: string,
  host: string,
  ports: Record<string, number>,
): Promise<void> {
  for (const [flag, port] of Object.entries(ports)) {
    if (port === 0) continue;
    await tryListen(port, host).catch((err: unknown) =>
      exitOnListenError(command, listenError(err, port, host, `${flag} (0: a free port)`)),
    );
  }
}

/** A server the process started itself failed to listen on a flag's port: the same line and exit 2. */
export function exitOnTakenPort(
  command: string,
  err: unknown,
  port: number,
  host: string,
  flag: string,
): never {
  return exitOnListenError(command, listenError(err, port, host, `${flag} (0: a free port)`));
}
