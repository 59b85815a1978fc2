// The Redis of `npm run demo` and `npm run operator`: REDIS_URL when set, else a redis-server of our own
// on a free port, set up as a cluster's should be: each app with its own Redis user and a password made
// for this run (libs/redis's acl.ts), so whoever reaches the port (another user of the machine, a
// container) cannot read or write the queue, and the dashboard cannot write it. The `default` user keeps
// a password of its own for the demo's own reads, set in the ACL file: no `--requirepass`, so no
// password in redis-server's arguments or configuration. The apps run their scripts by EVALSHA only, so the
// script loader (apps/redis-init's redis-scripts-main.ts) runs beside it, as its own user.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { redactUrl } from '@podset/config';
import { DEFAULT_PREFIX, DEFAULT_QUEUE_NAME } from '@podset/queue';
import { aclFile, aclUsername, APP_USERS, OPS_USERNAME, SCRIPTS_USERNAME, type AppUser } from '@podset/redis';
import { Proc, startRedis, type RedisServer } from '@podset/testkit';
import { keepRedis, type KeeperReport, type RedisKeeper } from './redis-keeper.ts';

const LOADER = path.resolve(import.meta.dirname, '../../../apps/redis-init/src/redis-scripts-main.ts');
const DIE_WITH_PARENT = pathToFileURL(path.join(import.meta.dirname, 'die-with-parent.ts')).href;

const password = () => randomBytes(24).toString('base64url');

export interface DemoRedis {
  url: string;
  /** The URL for the banner: without its password. */
  shown: string;
  /** How the URL was obtained, for the banner. */
  origin: string;
  /** An app's REDIS_URL (no password in it), REDIS_USERNAME and REDIS_PASSWORD; none with REDIS_URL set. */
  appEnv(app: AppUser): Record<string, string>;
  /** The processes started for it (none with REDIS_URL set), each as "name pid", for saying what stopped. */
  processes(): string[];
  /** From now on, a redis-server of its own that dies is reported and restarted (redis-keeper.ts). */
  keep(report: KeeperReport): void;
  /** Stops every one of them, and returns once each is gone. */
  close(): Promise<void>;
}

export async function demoRedis(
  env: Record<string, string | undefined>,
  command: 'demo' | 'operator' = 'demo',
): Promise<DemoRedis> {
  const fromEnv = env['REDIS_URL'];
  if (fromEnv !== undefined && fromEnv !== '') {
    return {
      url: fromEnv,
      shown: redactUrl(fromEnv),
      origin: 'REDIS_URL',
      appEnv: () => ({}),
      processes: () => [],
      keep: () => undefined,
      close: async () => {},
    };
  }
  const probe = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined) {
    throw new Error(
      'no Redis: REDIS_URL is not set and redis-server is not on PATH.\n' +
        '  Either install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis)\n' +
        `  or point the ${command} at one: REDIS_URL=redis://127.0.0.1:6379 npm run ${command}`,
    );
  }
  const passwords = Object.fromEntries(APP_USERS.map((app) => [app, password()])) as Record<AppUser, string>;
  const admin = password();
  const scripts = password();
  // The operations user, for the loader's BUSY watchdog only (no person is given it here).
  const ops = password();
  const dir = mkdtempSync(path.join(tmpdir(), `podset-${command}-redis-`));
  const file = path.join(dir, 'users.acl');
  const scope = {
    prefix: env['QUEUE_PREFIX'] || DEFAULT_PREFIX,
    queueName: env['QUEUE_NAME'] || DEFAULT_QUEUE_NAME,
    eventLogKey: env['EVENT_LOG_KEY'] || undefined,
    dashboardWrites: env['DASHBOARD_READ_ONLY'] === 'false',
  };
  const acl = aclFile(scope, passwords, { scripts, ops }).replace(
    /^user default .*$/m,
    `user default on >${admin} ~* &* +@all`,
  );
  writeFileSync(file, acl, { mode: 0o600 });
  // Out of the terminal's process group: Ctrl-C must not stop it under the workers still draining into it.
  let server: RedisServer;
  try {
    server = await startRedis({ detached: true, defaultUserPassword: admin, args: ['--aclfile', file] });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const loader = await startLoader(server.port, { scripts, ops }, dir);
  let keeper: RedisKeeper | undefined;
  return {
    url: server.url,
    shown: redactUrl(server.url),
    origin: `a redis-server started for the ${command}, one ACL user per app`,
    appEnv: (app) => ({
      REDIS_URL: `redis://127.0.0.1:${server.port}`,
      REDIS_USERNAME: aclUsername(app),
      REDIS_PASSWORD: passwords[app],
    }),
    processes: () => [
      `redis-server ${server.pids.server ?? '?'}`,
      `redis-watchdog ${server.pids.watchdog ?? '?'}`,
      `${loader.name} ${loader.pid ?? '?'}`,
    ],
    keep: (report) => {
      keeper ??= keepRedis(command, server, report);
    },
    close: async () => {
      keeper?.stop();
      await loader.stop(5_000);
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The script loader with its user's variables and its watchdog's (the operations user's) only; resolves
 * once it has cached the scripts.
 */
async function startLoader(
  port: number,
  passwords: { scripts: string; ops: string },
  dir: string,
): Promise<Proc> {
  const loader = new Proc({
    name: 'redis-scripts',
    command: process.execPath,
    args: ['--import', DIE_WITH_PARENT, LOADER],
    env: {
      PATH: process.env.PATH ?? '',
      REDIS_URL: `redis://127.0.0.1:${port}`,
      REDIS_USERNAME: SCRIPTS_USERNAME,
      REDIS_PASSWORD: passwords.scripts,
      REDIS_OPS_USERNAME: OPS_USERNAME,
      REDIS_OPS_PASSWORD: passwords.ops,
    },
    logFile: path.join(dir, 'redis-scripts.log'),
    detached: true,
  });
  await loader.waitForLine(/loaded \d+ scripts/, 60_000);
  return loader;
}
