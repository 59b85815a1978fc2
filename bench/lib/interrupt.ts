// Ctrl-C (SIGINT) or SIGTERM during a bench run: the load stops (`interrupted` is aborted; loops check it),
// every world still open is closed (its apps stopped, what it made on the cluster removed) by the same
// close() a normal end calls, and the bench exits 130 (SIGINT) or 143 (SIGTERM). A second signal exits at
// once and names what is left.

/** Something the bench opened that must be closed before it exits. */
export interface Closable {
  /** What close() stops and removes, for the messages (e.g. "namespace x: PodSets, pods; the CRD"). */
  describe(): string;
  /** The same promise on every call (a close under way is waited for, not started again). */
  close(): Promise<void>;
}

const live = new Set<Closable>();
const controller = new AbortController();
let handled: Promise<never> | undefined;

/** Aborted at the first SIGINT or SIGTERM: the bench's load stops taking new work. */
export const interrupted: AbortSignal = controller.signal;

/** Throws when the run was interrupted (before starting more work). */
export function throwIfInterrupted(): void {
  if (interrupted.aborted) throw new Error('interrupted');
}

/** Tracks `c` until its close() settles. */
export function track(c: Closable): void {
  live.add(c);
}

export function untrack(c: Closable): void {
  live.delete(c);
}

function exitCodeOf(signal: NodeJS.Signals): number {
  return signal === 'SIGINT' ? 130 : 143;
}

/** Installs the SIGINT and SIGTERM handlers; `say` prints a line (stderr). */
export function cleanUpOnSignals(say: (line: string) => void): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const)
    process.on(signal, () => {
      if (handled !== undefined) {
        const left = [...live].map((c) => c.describe());
        say(
          `bench: ${signal} again: exiting now; left as it is: ${left.length > 0 ? left.join('; ') : 'nothing'}`,
        );
        process.exit(exitCodeOf(signal));
      }
      controller.abort(new Error(`interrupted by ${signal}`));
      handled = closeAll(signal, say);
    });
}

async function closeAll(signal: NodeJS.Signals, say: (line: string) => void): Promise<never> {
  say(`bench: ${signal}: stopping the bench's processes and load, then cleaning up (again to exit at once)`);
  const results = await Promise.allSettled(
    [...live].map(async (c) => {
      say(`bench: cleaning up ${c.describe()}`);
      await c.close();
    }),
  );
  const failed = results.filter((r) => r.status === 'rejected');
  for (const r of failed)
    say(`bench: cleanup failed: ${r.reason instanceof Error ? r.reason.message : String(r.reason)}`);
  say(failed.length === 0 ? 'bench: cleaned up; exiting' : 'bench: exiting with the above left');
  process.exit(exitCodeOf(signal));
}

/** After an interruption, never settles (the handler exits once it cleaned up); else resolves at once. */
export async function awaitInterruptCleanup(): Promise<void> {
  if (handled !== undefined) await handled;
}
