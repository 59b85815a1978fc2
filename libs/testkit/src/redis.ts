import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { freePort } from './ports.ts';
import { Proc } from './proc.ts';
import { waitFor } from './wait.ts';

export interface RedisServer {
  readonly port: number;
  /** redis://127.0.0.1:port, with the password in it when the server requires one. */
  readonly url: string;
  /** The `requirepass` password, when started with one. */
  readonly password: string | undefined;
  readonly process: ChildProcess;
  /** The processes it runs as: the server (its current pid) and the watchdog beside it. */
  readonly pids: { server: number | undefined; watchdog: number | undefined };
  /** Stop the server (SIGKILL when `hard`, to simulate a crash) and wait for it to exit. */
  stop(opts?: { hard?: boolean }): Promise<void>;
  /** Stop (if running) and start again on the same port and data dir (AOF survives when enabled). */
  restart(opts?: { hard?: boolean }): Promise<void>;
  /** Stop, delete its data dir, and wait for the watchdog to end: no process of it is left. */
  close(): Promise<void>;
}

export interface RedisOptions {
  /** Append-only file persistence, so queued jobs survive a restart. Default false. */
  appendOnly?: boolean;
  port?: number;
  /** Started with `--requirepass` this password. */
  password?: string;
  /**
   * The `default` user's password as an ACL file in `args` sets it (no `--requirepass`, which any user
   * allowed CONFIG GET could read): used for the readiness check and in `url`.
   */
  defaultUserPassword?: string;
  /** More redis-server arguments, e.g. ['--maxmemory-policy', 'allkeys-lru']. */
  args?: string[];
  /**
   * The server in a process group of its own, so a terminal's Ctrl-C does not stop it under the processes
   * still draining into it (the watchdog still ends it when this process dies). Default false.
   */
  detached?: boolean;
}

/** Start a real `redis-server` on a free loopback port, in its own temp dir. */
export async function startRedis(options: RedisOptions = {}): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const dir = await mkdtemp(path.join(os.tmpdir(), 'podset-redis-'));
  const pidFile = path.join(dir, 'redis.pid');
  const watchdog = startWatchdog(dir, pidFile);
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    options.appendOnly === true ? 'yes' : 'no',
    '--appendfsync',
    'always',
    '--dir',
    dir,
    '--daemonize',
    'no',
    '--pidfile',
    pidFile,
    ...(options.password !== undefined ? ['--requirepass', options.password] : []),
    // The apps refuse a Redis without a maxmemory (redis-server's default is none): a limit no test or
    // benchmark comes near (a limit, not an allocation); `args` may override it.
    '--maxmemory',
    '1gb',
    ...(options.args ?? []),
  ];
  const password = options.password ?? options.defaultUserPassword;
  let proc: Proc;
  try {
    proc = await launch(args, port, password, options.detached === true);
  } catch (err) {
    watchdog.stdin?.end();
    throw err;
  }
  const server: RedisServer = {
    port,
    url:
      password === undefined
        ? `redis://127.0.0.1:${port}`
        : `redis://:${encodeURIComponent(password)}@127.0.0.1:${port}`,
    password,
    get process() {
      return proc.child;
    },
    get pids() {
      return { server: proc.pid, watchdog: watchdog.pid };
    },
    async stop(opts = {}) {
      if (!proc.running) return;
      await (opts.hard === true ? proc.kill() : proc.stop());
      // A SIGKILLed server leaves its pid file; the watchdog must not kill whoever reuses that pid.
      await rm(pidFile, { force: true });
    },
    async restart(opts = {}) {
      await server.stop(opts);
      proc = await launch(args, port, password, options.detached === true);
    },
    async close() {
      await server.stop();
      await rm(dir, { recursive: true, force: true });
      await endWatchdog(watchdog);
    },
  };
  return server;
}

/**
 * Removes `dir` if this process dies without cleaning up (SIGKILL, a crash): the same watchdog as a
 * Redis server's, with no server to kill. `release` at a normal end: the dir goes (or, with `keep`, stays).
 */
export function removeWhenParentDies(dir: string): { release(opts?: { keep?: boolean }): void } {
  const watchdog = startWatchdog(dir, path.join(dir, '.no-server.pid'));
  return {
    release(opts = {}) {
      if (opts.keep === true) watchdog.kill('SIGKILL');
      else watchdog.stdin?.end();
    },
  };
}

/**
 * A detached node process that kills the server and removes `dir` when this process goes away (its
 * stdin pipe closes), so a test killed mid-run leaves nothing behind. Unreferenced: it never keeps the
 * test process alive.
 */
function startWatchdog(dir: string, pidFile: string): ChildProcess {
  const script = fileURLToPath(new URL('./redis-watchdog.ts', import.meta.url));
  const watchdog = spawn(process.execPath, [script, dir, pidFile], {
    detached: true,
    // As redis-server's: no secret of this process's environment.
    env: { PATH: process.env.PATH ?? '' },
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  watchdog.on('error', () => {});
  watchdog.stdin?.on('error', () => {});
  watchdog.unref();
  (watchdog.stdin as (Writable & { unref?: () => void }) | null)?.unref?.();
  return watchdog;
}

/**
 * Ends the watchdog (its stdin closed: it finds no server and removes nothing more) and waits until it is
 * gone, SIGKILLing it after 5 s; referenced meanwhile, so this process stays up to see it end.
 */
async function endWatchdog(watchdog: ChildProcess): Promise<void> {
  if (watchdog.pid === undefined || watchdog.exitCode !== null || watchdog.signalCode !== null) return;
  const gone = new Promise<void>((resolve) => watchdog.once('exit', () => resolve()));
  watchdog.ref();
  watchdog.stdin?.end();
  const kill = setTimeout(() => watchdog.kill('SIGKILL'), 5_000);
  await gone;
  clearTimeout(kill);
}

async function launch(
  args: string[],
  port: number,
  password: string | undefined,
  detached: boolean,
): Promise<Proc> {
  const proc = new Proc({
    name: `redis-server :${port}`,
    command: 'redis-server',
    args,
    // Nothing of this process's environment but PATH: the demo's and the operator's hold the apps'
    // secrets (PROJECTION_HMAC_KEY, DASHBOARD_TOKEN), which are no business of Redis.
    env: { PATH: process.env.PATH ?? '' },
    detached,
  });
  try {
    await waitFor(`redis-server to answer PING on port ${port}`, () => ping(port, '127.0.0.1', password), {
      timeoutMs: 10_000,
      giveUp: () => (proc.running ? undefined : 'it exited (is redis-server installed?)'),
      describe: () => proc.describe(),
    });
  } catch (err) {
    await proc.kill();
    throw err;
  }
  return proc;
}

/** One PING over a raw socket (after AUTH when given a password): true when the server answers PONG. */
export function ping(port: number, host = '127.0.0.1', password?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once('error', () => done(false));
    const auth = password === undefined ? '' : `AUTH ${JSON.stringify(password)}\r\n`;
    socket.once('connect', () => socket.write(`${auth}PING\r\n`));
    let replies = '';
    socket.on('data', (data) => {
      replies += data.toString();
      if (replies.includes('+PONG')) done(true);
      else if (replies.startsWith('-') || replies.includes('\r\n-')) done(false);
    });
  });
}
