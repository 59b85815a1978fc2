// What test fixtures hand out at module level for a thing that exists only once their before() hook ran.
import { after, before } from 'node:test';

/**
 * A stand-in for the object `get` returns once it exists: every property read, write and method call goes
 * to that object (methods bound to it), so a test file can keep `const kube = cluster.kube` at its top and
 * use it in its tests. Using it before then throws, naming `what`.
 */
export function lateBound<T extends object>(what: string, get: () => T | undefined): T {
  const target = (): T => {
    const value = get();
    if (value === undefined) {
      throw new Error(
        `${what} is used before its before() hook ran (at a file's top level node:test starts every ` +
          "before() hook at once: await the fixture's `ready` first)",
      );
    }
    return value;
  };
  return new Proxy({} as T, {
    get(_, prop) {
      const real = target();
      const value: unknown = Reflect.get(real, prop, real);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(real) : value;
    },
    set: (_, prop, value) => Reflect.set(target(), prop, value),
    has: (_, prop) => Reflect.has(target(), prop),
    getPrototypeOf: () => Reflect.getPrototypeOf(target()),
  });
}

/**
 * Registers `start` as a before() hook and returns a promise of its end, for other hooks to await (without
 * an unhandled rejection when none does: the hook itself reports the failure).
 */
export function beforeHook(start: () => Promise<void>): Promise<void> {
  let resolve: () => void = () => undefined;
  let reject: (err: unknown) => void = () => undefined;
  const ended = new Promise<void>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  ended.catch(() => undefined);
  before(async () => {
    try {
      await start();
      resolve();
    } catch (err) {
      reject(err);
      throw err;
    }
  });
  return ended;
}

/**
 * Registers `fn` as an after() hook once the current synchronous block (a test file's top level, a
 * describe() body) has registered its own: node:test runs after() hooks in the order they were added, and a
 * fixture's teardown (stopping Redis) must come after the file's own (closing its queues on that Redis).
 */
export function afterTheRest(fn: () => Promise<void>): void {
  queueMicrotask(() => after(fn));
}
