// What test fixtures hand out at module level for a thing that exists only once their before() hook ran.
import { after } from 'node:test';

/**
 * A stand-in for the object `get` returns once it exists: every property read, write and method call goes
 * to that object (methods bound to it), so a test file can keep `const kube = cluster.kube` at its top and
 * use it in its tests. Using it before then throws, naming `what`.
 */
export function lateBound<T extends object>(what: string, get: () => T | undefined): T {
  const target = (): T => {
    const value = get();
    if (value === undefined) throw new Error(`${what} is used before its before() hook ran`);
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
 * Registers `fn` as an after() hook once the current synchronous block (a test file's top level, a
 * describe() body) has registered its own: node:test runs after() hooks in the order they were added, and a
 * fixture's teardown (stopping Redis) must come after the file's own (closing its queues on that Redis).
 */
export function afterTheRest(fn: () => Promise<void>): void {
  queueMicrotask(() => after(fn));
}
