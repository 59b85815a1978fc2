// Graceful shutdown that holds from the first moment of the process. Kubernetes may send SIGTERM
// while an app is still loading its modules or connecting (a rollout right after a start, a scale-down
// of a replica that just started). Node's default for SIGTERM is to die by the signal, which a
// supervisor records as a crash and which skips the app's cleanup. So the handlers are installed
// before anything heavy loads; a signal that arrives during start-up is remembered, and the app's
// stop routine runs as soon as the app has started. A guard bounds the whole stop.
import type { Logger } from '@podset/log';

export type ShutdownSignal = 'SIGTERM' | 'SIGINT';

export interface ShutdownOptions {
  /** The app's name, for the lines written before its logger exists. */
  name: string;
  /** Bound on start-up plus stop after a signal, until `onStop` sets its own (default 30 s). */
  timeoutMs?: number;
  /** Exit code when the guard fires (default 1: the stop did not finish). */
  timeoutExitCode?: number;
  /** Tests: instead of process.exit. */
  exit?: (code: number) => void;
  /** Tests: instead of process.stderr. */
  write?: (line: string) => void;
  /** Tests: a stand-in for `process` to listen on. */
  emitter?: Pick<NodeJS.Process, 'on' | 'off'>;
}

export interface StopOptions {
  /** Bound on the stop routine, counted from when it starts. */
  timeoutMs?: number;
  /** Where progress goes once the app has a logger. */
  log?: Pick<Logger, 'info' | 'error'>;
}

export class Shutdown {
  readonly #options: ShutdownOptions;
  readonly #abort = new AbortController();
  readonly #handlers = new Map<ShutdownSignal, () => void>();
  #stop: ((signal: ShutdownSignal) => Promise<void>) | undefined;
  #stopOptions: StopOptions = {};
  #received: ShutdownSignal | undefined;
  #guard: NodeJS.Timeout | undefined;
  #running = false;
  #exited = false;

  constructor(options: ShutdownOptions) {
    this.#options = options;
    const emitter = options.emitter ?? process;
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const handler = () => this.#onSignal(signal);
      this.#handlers.set(signal, handler);
      emitter.on(signal, handler);
    }
  }

  /** Aborted at the first signal: start-up steps that wait (connecting, electing) can give up early. */
  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  /** The first signal received, if any. */
  get received(): ShutdownSignal | undefined {
    return this.#received;
  }

  /**
   * The app has started. `stop` runs at the first signal, or at once when one came during start-up;
   * the process then exits 0, or 1 when `stop` throws.
   */
  onStop(stop: (signal: ShutdownSignal) => Promise<void>, options: StopOptions = {}): void {
    this.#stop = stop;
    this.#stopOptions = options;
    if (this.#received !== undefined) this.#runStop(this.#received);
  }

  #onSignal(signal: ShutdownSignal): void {
    if (this.#received !== undefined) {
      // A second signal (Ctrl-C pressed again) means: do not wait for the stop to finish.
      this.#write(`${signal} received again; exiting without waiting`);
      this.#exit(this.#options.timeoutExitCode ?? 1);
      return;
    }
    this.#received = signal;
    this.#abort.abort(new Error(signal));
    if (this.#stop === undefined) {
      this.#write(`${signal} received during start-up; stopping as soon as started`);
      this.#arm(this.#options.timeoutMs ?? 30_000);
    } else {
      this.#runStop(signal);
    }
  }

  #runStop(signal: ShutdownSignal): void {
    if (this.#running || this.#stop === undefined) return;
    this.#running = true;
    const log = this.#stopOptions.log;
    if (log) log.info({ signal }, 'shutting down');
    else this.#write(`${signal}: shutting down`);
    this.#arm(this.#stopOptions.timeoutMs ?? this.#options.timeoutMs ?? 30_000);
    this.#stop(signal).then(
      () => this.#exit(0),
      (err: unknown) => {
        const message = err instanceof Error ? err.message : String(err);
        if (log) log.error({ err: message }, 'error while shutting down');
        else this.#write(`error while shutting down: ${message}`);
        this.#exit(1);
      },
    );
  }

  #arm(ms: number): void {
    clearTimeout(this.#guard);
    this.#guard = setTimeout(() => {
      const message = `shutdown did not finish within ${ms} ms; exiting`;
      if (this.#stopOptions.log) this.#stopOptions.log.error({ afterMs: ms }, message);
      else this.#write(message);
      this.#exit(this.#options.timeoutExitCode ?? 1);
    }, ms);
    // The guard alone must not keep a process alive that has nothing left to do.
    this.#guard.unref();
  }

  #exit(code: number): void {
    if (this.#exited) return;
    this.#exited = true;
    clearTimeout(this.#guard);
    for (const [signal, handler] of this.#handlers) (this.#options.emitter ?? process).off(signal, handler);
    (this.#options.exit ?? ((c: number) => process.exit(c)))(code);
  }

  #write(message: string): void {
    (this.#options.write ?? ((line: string) => process.stderr.write(line)))(
      `${this.#options.name}: ${message}\n`,
    );
  }
}
