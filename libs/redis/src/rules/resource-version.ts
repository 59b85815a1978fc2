// Ordering of resourceVersions, for the TypeScript callers and, as a Lua snippet, for the scripts that
// run inside Redis. Kubernetes says resourceVersions are opaque, but etcd's (and kube-sim's) are decimal
// integers: those are compared numerically, as strings, with no precision loss past 2^53.
// The Lua twin (resource-version.lua) says the same as rvNewer; one case table tests both.
import { luaModule } from '../lua-include.ts';

const DECIMAL = /^[0-9]+$/;

/** -1, 0 or 1 when both are decimal resourceVersions; undefined when either is not. */
export function compareRv(a: string, b: string): -1 | 0 | 1 | undefined {
  if (!DECIMAL.test(a) || !DECIMAL.test(b)) return undefined;
  const x = a.replace(/^0+(?=.)/, '');
  const y = b.replace(/^0+(?=.)/, '');
  if (x.length !== y.length) return x.length > y.length ? 1 : -1;
  return x === y ? 0 : x > y ? 1 : -1;
}

/**
 * Whether `candidate` should replace `current`: it is numerically newer, or either is opaque (then the
 * later one seen wins), or there is no current one.
 */
export function rvNewer(candidate: string, current: string | undefined): boolean {
  if (current === undefined) return true;
  const order = compareRv(candidate, current);
  return order === undefined || order > 0;
}

/** The newer of two resourceVersions; one that is not decimal is ignored. */
export function rvMax(a: string | undefined, b: string | undefined): string | undefined {
  const ok = (x: string | undefined): x is string => x !== undefined && DECIMAL.test(x);
  if (!ok(a)) return ok(b) ? b : undefined;
  if (!ok(b)) return a;
  return compareRv(a, b)! >= 0 ? a : b;
}

/** `rvNewer(c, cur)` in Lua (cur may be nil), for the scripts that compare resourceVersions in Redis. */
export const RV_NEWER_LUA = luaModule('resource-version', new URL('./resource-version.lua', import.meta.url));
