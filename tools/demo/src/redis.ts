// The Redis of `npm run demo` and `npm run operator`: REDIS_URL when set, else a redis-server of our own
// on a free port, with a password made for this run (as in a cluster: whoever reaches the port, another
// user of the machine or a container, cannot read or write the queue without it). The apps get it in
// REDIS_URL; the banner shows the URL without it.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { redactUrl } from '@podset/config';
import { startRedis } from '@podset/testkit';

export interface DemoRedis {
  url: string;
  /** The URL for the banner: without its password. */
  shown: string;
  /** How the URL was obtained, for the banner. */
  origin: string;
  close(): Promise<void>;
}

export async function demoRedis(
  env: Record<string, string | undefined>,
  command: 'demo' | 'operator' = 'demo',
): Promise<DemoRedis> {
  const fromEnv = env['REDIS_URL'];
  if (fromEnv !== undefined && fromEnv !== '') {
    return { url: fromEnv, shown: redactUrl(fromEnv), origin: 'REDIS_URL', close: async () => {} };
  }
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined) {
    throw new Error(
      'no Redis: REDIS_URL is not set and redis-server is not on PATH.\n' +
        '  Either install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis)\n' +
        `  or point the ${command} at one: REDIS_URL=redis://127.0.0.1:6379 npm run ${command}`,
    );
  }
  // Out of the terminal's process group: Ctrl-C must not stop it under the workers still draining into it.
  const server = await startRedis({ detached: true, password: randomBytes(24).toString('base64url') });
  return {
    url: server.url,
    shown: redactUrl(server.url),
    origin: `a redis-server started for the ${command}`,
    close: () => server.close(),
  };
}
