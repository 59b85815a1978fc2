// Query parameters converted as the API server's parameter codec converts them.
import { ApiError } from '../../apimachinery/types.ts';

/**
 * A boolean query parameter as the API server converts one (apimachinery's string-slice-to-bool
 * conversion): absent → undefined; "0" and "false" in any case → false; anything else — "True" as the
 * Python client sends it, "", "yes" — → true.
 */
export function boolParam(v: string | null): boolean | undefined {
  if (v === null) return undefined;
  return !(v === '0' || v.toLowerCase() === 'false');
}

export function intParam(q: URLSearchParams, name: string): number | undefined {
  const v = q.get(name);
  if (v === null || v === '') return undefined;
  if (!/^-?\d+$/.test(v)) throw new ApiError(400, 'BadRequest', `invalid value for ${name}: "${v}"`);
  return Number(v);
}
