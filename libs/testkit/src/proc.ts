// One supervisor for the child processes that tests, benchmarks and the demo start (the operator's
// apps, kube-sim, redis-server): output to a log file and the last lines kept for failure messages,
// a promise of the exit, SIGTERM-then-SIGKILL stop, and a wait for a line (a server's "listening on").
// Every live one is SIGKILLed when this process exits, so none outlives a test run that ends early.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, type WriteStream } from 'node:fs';
import path from 'node:path';
import { waitFor } from './wait.ts';

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ProcOptions {
  /** A short name for messages (and the log file's, by the caller's choice). */
  name: string;
  command: string;
  args?: readonly string[];
  /**
   * The whole environment of the child (nothing is inherited that is not here), but for Node's compile
   * cache: a node child gets this process's NODE_COMPILE_CACHE, made absolute (see withCompileCache).
   */
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Output (stdout and stderr) is appended here too. */
  logFile?: string;
  /**
   * In a process group (and session) of its own, so a terminal's Ctrl-C reaches only the parent, which
   * then stops the child with one signal. Such a child must notice by itself when the parent dies.
   */
  detached?: boolean;
}

/** Lines kept for tail() and lines(); trimmed to half when exceeded. */
const KEEP_LINES = 400;

/**
 * `env` plus NODE_COMPILE_CACHE (absolute) when `command` is node and this process has one: a cache
 * location, never a setting, that spares each app, kube-sim and bench process most of its compile time
 * (a suite starts hundreds of them from the same sources). An env that sets it itself keeps its own.
 */
export function withCompileCache(
  command: string,
  env: Record<string, string | undefined>,
  cacheDir: string | undefined,
): Record<string, string | undefined> {
  if (cacheDir === undefined || cacheDir === '' || 'NODE_COMPILE_CACHE' in env) return env;
  if (path.basename(command) !== 'node') return env;
  return { ...env, NODE_COMPILE_CACHE: path.resolve(cacheDir) };
}

/**
 * NODE_COMPILE_CACHE of this process, absolute, as an env fragment ({} without one): for a node child
 * started with an env of its own by execFile or spawn rather than a Proc.
 */
export function compileCacheEnv(): Record<string, string> {
  const dir = process.env.NODE_COMPILE_CACHE;
  return dir === undefined || dir === '' ? {} : { NODE_COMPILE_CACHE: path.resolve(dir) };
}

const live = new Set<Proc>();
process.once('exit', () => {
  for (const p of live) p.child.kill('SIGKILL');
});

export class Proc {
  readonly name: string;
  readonly child: ChildProcess;
  readonly logFile: string | undefined;
  readonly exited: Promise<Exit>;
  #exit: Exit | undefined;
  #lines: string[] = [];
  #partial = '';
  #log: WriteStream | undefined;

  constructor(options: ProcOptions) {
    this.name = options.name;
    this.logFile = options.logFile;
    this.#log =
      options.logFile === undefined ? undefined : createWriteStream(options.logFile, { flags: 'a' });
    this.child = spawn(options.command, [...(options.args ?? [])], {
      ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
      ...(options.env !== undefined
        ? { env: withCompileCache(options.command, options.env, process.env.NODE_COMPILE_CACHE) }
        : {}),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: options.detached === true,
    });
    live.add(this);
    const take = (chunk: Buffer) => {
      this.#log?.write(chunk);
      const parts = (this.#partial + chunk.toString()).split('\n');
      this.#partial = parts.pop() ?? '';
      this.#lines.push(...parts);
      if (this.#lines.length > KEEP_LINES) this.#lines.splice(0, this.#lines.length - KEEP_LINES / 2);
    };
    this.child.stdout?.on('data', take);
    this.child.stderr?.on('data', take);
    this.exited = new Promise((resolve) => {
      const settle = (exit: Exit) => {
        if (this.#exit !== undefined) return;
        live.delete(this);
        this.#exit = exit;
        this.#log?.end();
        resolve(exit);
      };
      this.child.once('exit', (code, signal) => settle({ code, signal }));
      // Could not start at all (e.g. the command is not installed): an exit with the reason in the output.
      this.child.once('error', (err) => {
        this.#lines.push(`${this.name}: ${err.message}`);
        settle({ code: null, signal: null });
      });
    });
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  /** The last `n` lines of output (stdout and stderr interleaved). */
  tail(n = 15): string {
    return [...this.#lines, this.#partial]
      .filter((l) => l !== '')
      .slice(-n)
      .join('\n');
  }

  /** Output lines seen so far (the last few hundred). */
  lines(): string[] {
    return [...this.#lines];
  }

  describe(): string {
    const state = this.#exit
      ? `exited (code ${this.#exit.code}, signal ${this.#exit.signal})`
      : `running (pid ${this.pid})`;
    const log = this.logFile === undefined ? '' : `; log ${this.logFile}`;
    const tail = this.tail()
      .split('\n')
      .map((l) => `    ${l}`)
      .join('\n');
    return `${this.name}: ${state}${log}; last lines:\n${tail}`;
  }

  /** The first match of `pattern` in the output; fails early if the process exits first. */
  async waitForLine(pattern: RegExp, timeoutMs = 30_000): Promise<RegExpExecArray> {
    return await waitFor(
      `${this.name} to print ${pattern}`,
      () => {
        for (const line of [...this.#lines, this.#partial]) {
          const m = pattern.exec(line);
          if (m) return m;
        }
        return undefined;
      },
      {
        timeoutMs,
        giveUp: () => (this.running ? undefined : 'it exited'),
        describe: () => this.describe(),
      },
    );
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 15_000): Promise<Exit> {
    if (this.#exit) return this.#exit;
    const timer = setTimeout(() => this.child.kill('SIGKILL'), graceMs);
    this.child.kill('SIGTERM');
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }

  async kill(): Promise<Exit> {
    if (this.#exit) return this.#exit;
    this.child.kill('SIGKILL');
    return await this.exited;
  }
}
