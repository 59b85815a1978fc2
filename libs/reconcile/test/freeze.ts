// Deep-freezes a value, so a test fails if the planner mutates its input.
export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !(v instanceof Date) && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}
