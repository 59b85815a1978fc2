// Freezes an object and everything it holds, so that one value can be handed out many times: whoever
// tries to change it throws instead of changing every other holder's copy.
export function deepFreeze<T extends object>(value: T): T {
  for (const v of Object.values(value)) {
    if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) deepFreeze(v as object);
  }
  return Object.freeze(value);
}
