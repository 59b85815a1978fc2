// Reading and writing JSON objects by `.spec.replicas`-style paths (a scale subresource's paths).
import type { Json, JsonObject } from '../apimachinery/types.ts';
import { isObject } from '../apimachinery/json.ts';

export function getPath(obj: unknown, path: string): Json | undefined {
  let cur: unknown = obj;
  for (const part of path.replace(/^\./, '').split('.')) {
    if (!isObject(cur)) return undefined;
    cur = cur[part];
  }
  return cur as Json | undefined;
}

/** Sets the value at `path`, copying (never mutating) the objects on the way. */
export function setPath(obj: JsonObject, path: string, value: Json): void {
  const parts = path.replace(/^\./, '').split('.');
  let cur = obj;
  for (let i = 0; i < parts.length - 1; i++) {
    const p = parts[i] as string;
    const next = cur[p];
    if (isObject(next)) {
      const copy = { ...next };
      cur[p] = copy;
      cur = copy;
    } else {
      const fresh: JsonObject = {};
      cur[p] = fresh;
      cur = fresh;
    }
  }
  cur[parts[parts.length - 1] as string] = value;
}
