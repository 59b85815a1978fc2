// Freezing an object and everything it holds, so that one value can be handed out many times: whoever
// tries to change it throws instead of changing every other holder's copy. A deep-frozen value can never
// change, so what is computed from it can be remembered by the object itself (template-hash.ts).

export function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) {
    if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) deepFreeze(v as object);
  }
  return Object.freeze(value);
}

/** Whether `v` and everything it holds is frozen (then nothing can change it, ever). */
export function isDeepFrozen(v: object): boolean {
  if (!Object.isFrozen(v)) return false;
  for (const x of Object.values(v)) {
    if (typeof x === 'object' && x !== null && !isDeepFrozen(x as object)) return false;
  }
  return true;
}
