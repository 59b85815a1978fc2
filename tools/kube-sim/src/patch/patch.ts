// Patches as the kube-apiserver applies them: JSON merge patch (RFC 7386), JSON patch (RFC 6902) and strategic
// merge patch (strategic.ts). All functions are pure: inputs are never mutated and the result shares no
// objects with them.
//
// Status codes follow staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go:
// - JSON patch that does not decode as a list of operation objects → 400 BadRequest (jsonpatch.DecodePatch);
// - more than 10,000 operations → 413 RequestEntityTooLarge;
// - an operation that cannot be applied (missing path, failed test, unknown op, bad index, ...) → 422 Invalid
//   with the generic message "the server rejected our request due to an error in our request" and no causes,
//   exactly as the API server answers (NewGenericServerResponse drops the jsonpatch error text). The jsonpatch
//   error text is kept on the thrown error's `cause` for debugging.
// - merge patch that is not a JSON object → 400 BadRequest "Invalid JSON Patch" (jsonpatch.ErrBadJSONPatch).
import { ApiError, type Json, type JsonObject } from '../apimachinery/types.ts';
import { cloneJson, deepEqual, hasOwn, isObject, setOwn } from '../apimachinery/json.ts';
import { strategicMerge } from './strategic.ts';

// ---------------------------------------------------------------------------------------------------------------
// JSON merge patch

/** RFC 7386 MergePatch(target, patch), for any JSON values (a non-object patch replaces the target). */
export function mergePatch(target: Json | undefined, patch: Json): Json {
  if (!isObject(patch)) return cloneJson(patch);
  const out: JsonObject = isObject(target) ? { ...target } : {};
  for (const key of Object.keys(patch)) {
    const value = patch[key]!;
    if (value === null) {
      delete out[key];
    } else {
      const current = hasOwn(out, key) ? out[key] : undefined;
      setOwn(out, key, mergePatch(current, value));
    }
  }
  // Untouched members are shared with target above; copy them so the result is independent.
  if (isObject(target)) {
    for (const key of Object.keys(out)) {
      if (!hasOwn(patch, key)) setOwn(out, key, cloneJson(out[key]!));
    }
  }
  return out;
}

/** RFC 7386, as the API server applies `application/merge-patch+json`: the patch must be an object (else 400). */
export function applyMergePatch(original: Json, patch: Json): Json {
  if (!isObject(patch)) throw new ApiError(400, 'BadRequest', 'Invalid JSON Patch');
  return mergePatch(original, patch);
}

/**
 * A merge patch that turns `from` into `to` (the inverse of mergePatch where one exists): changed members,
 * `null` for removed ones, arrays and scalars whole. Members whose value is null in `to` cannot be expressed
 * (RFC 7386 reads null as delete); they are left out.
 */
export function createMergePatch(from: Json, to: Json): Json {
  if (!isObject(from) || !isObject(to)) return cloneJson(to);
  const patch: JsonObject = {};
  for (const key of Object.keys(from)) {
    if (!hasOwn(to, key) || to[key] === null) {
      if (from[key] !== null || !hasOwn(to, key)) setOwn(patch, key, null);
    }
  }
  for (const key of Object.keys(to)) {
    const b = to[key]!;
    if (b === null) continue;
    const a = hasOwn(from, key) ? from[key] : undefined;
    if (a !== undefined && deepEqual(a, b)) continue;
    if (isObject(a) && isObject(b)) {
      setOwn(patch, key, createMergePatch(a, b));
    } else {
      setOwn(patch, key, isObject(b) ? createMergePatch({}, b) : cloneJson(b));
    }
  }
  return patch;
}

// ---------------------------------------------------------------------------------------------------------------
// JSON patch

const MAX_JSON_PATCH_OPERATIONS = 10000;
const GENERIC_422 = 'the server rejected our request due to an error in our request';

class PatchOpError extends Error {}

function invalid(detail: string): ApiError {
  const err = new ApiError(422, 'Invalid', GENERIC_422);
  Object.defineProperty(err, 'cause', { value: new Error(detail), enumerable: false });
  return err;
}

/** Parses an RFC 6901 pointer into its reference tokens (`~1` → `/`, `~0` → `~`). */
export function parseJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw new PatchOpError(`invalid JSON pointer ${JSON.stringify(pointer)}`);
  return pointer
    .slice(1)
    .split('/')
    .map((t) => {
      if (/~[^01]|~$/.test(t))
        throw new PatchOpError(`invalid escape in JSON pointer ${JSON.stringify(pointer)}`);
      return t.replace(/~1/g, '/').replace(/~0/g, '~');
    });
}

/** Formats reference tokens as an RFC 6901 pointer. */
export function formatJsonPointer(tokens: readonly string[]): string {
  return tokens.map((t) => `/${t.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
}

/** An array index token: digits (a leading `-` allowed as evanphx/json-patch does, counting from the end). */
function arrayIndex(token: string, length: number, forInsert: boolean, pointer: string): number {
  if (!/^-?\d+$/.test(token))
    throw new PatchOpError(`invalid array index ${JSON.stringify(token)} in ${pointer}`);
  let i = Number(token);
  if (i < 0) {
    if (i < -length) throw new PatchOpError(`Unable to access invalid index: ${i} in ${pointer}`);
    i += length;
  }
  if (forInsert ? i > length : i >= length) {
    throw new PatchOpError(`Unable to access invalid index: ${i} in ${pointer}`);
  }
  return i;
}

type Container = JsonObject | Json[];

/** The container holding the last token of `tokens`, walking from `doc`. */
function parentOf(doc: Json, tokens: string[], pointer: string): Container {
  let cur: Json = doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    const t = tokens[i]!;
    if (Array.isArray(cur)) {
      cur = cur[arrayIndex(t, cur.length, false, pointer)]!;
    } else if (isObject(cur) && hasOwn(cur, t)) {
      cur = cur[t]!;
    } else {
      throw new PatchOpError(`doc is missing path: ${JSON.stringify(pointer)}`);
    }
  }
  if (!Array.isArray(cur) && !isObject(cur)) {
    throw new PatchOpError(`doc is missing path: ${JSON.stringify(pointer)}`);
  }
  return cur;
}

function getAt(doc: Json, pointer: string): Json {
  const tokens = parseJsonPointer(pointer);
  if (tokens.length === 0) return doc;
  const parent = parentOf(doc, tokens, pointer);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) return parent[arrayIndex(last, parent.length, false, pointer)]!;
  if (!hasOwn(parent, last)) throw new PatchOpError(`doc is missing key: ${pointer}`);
  return parent[last]!;
}

function addAt(doc: Json, pointer: string, value: Json): void {
  const tokens = parseJsonPointer(pointer);
  if (tokens.length === 0) throw new PatchOpError('add operation does not apply: doc is missing path: ""');
  const parent = parentOf(doc, tokens, pointer);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    const i = last === '-' ? parent.length : arrayIndex(last, parent.length, true, pointer);
    parent.splice(i, 0, value);
  } else {
    setOwn(parent, last, value);
  }
}

function removeAt(doc: Json, pointer: string): Json {
  const tokens = parseJsonPointer(pointer);
  if (tokens.length === 0) throw new PatchOpError('remove operation does not apply: doc is missing path: ""');
  const parent = parentOf(doc, tokens, pointer);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    const i = arrayIndex(last, parent.length, false, pointer);
    return parent.splice(i, 1)[0]!;
  }
  if (!hasOwn(parent, last))
    throw new PatchOpError(`Unable to remove nonexistent key: ${last}: missing value`);
  const old = parent[last]!;
  delete parent[last];
  return old;
}

function replaceAt(doc: Json, pointer: string, value: Json): void {
  const tokens = parseJsonPointer(pointer);
  if (tokens.length === 0)
    throw new PatchOpError('replace operation does not apply: doc is missing path: ""');
  const parent = parentOf(doc, tokens, pointer);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) {
    parent[arrayIndex(last, parent.length, false, pointer)] = value;
  } else {
    // As evanphx/json-patch v4 (the API server's): a missing member of an existing object is added, not an
    // error (RFC 6902 says otherwise; clients rely on the server's behaviour).
    setOwn(parent, last, value);
  }
}

/** The value `test` compares: a missing member of an existing object reads as null (evanphx/json-patch). */
function testedValue(doc: Json, pointer: string): Json {
  const tokens = parseJsonPointer(pointer);
  if (tokens.length === 0) return doc;
  const parent = parentOf(doc, tokens, pointer);
  const last = tokens[tokens.length - 1]!;
  if (Array.isArray(parent)) return parent[arrayIndex(last, parent.length, false, pointer)]!;
  return hasOwn(parent, last) ? parent[last]! : null;
}

function stringField(op: JsonObject, name: string, index: number): string {
  const v = op[name];
  if (typeof v !== 'string') throw new PatchOpError(`operation ${index} is missing a string '${name}' field`);
  return v;
}
function valueField(op: JsonObject, index: number): Json {
  if (!hasOwn(op, 'value')) throw new PatchOpError(`operation ${index} is missing 'value'`);
  return op.value!;
}

/** RFC 6902; a failed `test` or a bad path throws ApiError (422 / 400 as the API server does). */
export function applyJsonPatch(original: Json, operations: Json): Json {
  if (!Array.isArray(operations)) {
    throw new ApiError(
      400,
      'BadRequest',
      `json: cannot unmarshal ${describeJsonType(operations)} into Go value of type jsonpatch.Patch`,
    );
  }
  for (const op of operations) {
    if (!isObject(op) && op !== null) {
      throw new ApiError(
        400,
        'BadRequest',
        `json: cannot unmarshal ${describeJsonType(op)} into Go value of type jsonpatch.Operation`,
      );
    }
  }
  if (operations.length > MAX_JSON_PATCH_OPERATIONS) {
    throw new ApiError(
      413,
      'RequestEntityTooLarge',
      `The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${operations.length}`,
    );
  }
  // As evanphx/json-patch (which the API server uses), add/remove/replace of the root path "" are errors.
  const doc: Json = cloneJson(original);
  try {
    operations.forEach((raw, index) => {
      const op: JsonObject = raw === null ? {} : (raw as JsonObject);
      const kind = op.op;
      switch (kind) {
        case 'add':
          addAt(doc, stringField(op, 'path', index), cloneJson(valueField(op, index)));
          break;
        case 'remove':
          removeAt(doc, stringField(op, 'path', index));
          break;
        case 'replace':
          replaceAt(doc, stringField(op, 'path', index), cloneJson(valueField(op, index)));
          break;
        case 'move': {
          const from = stringField(op, 'from', index);
          const path = stringField(op, 'path', index);
          if (path !== from && path.startsWith(`${from}/`)) {
            throw new PatchOpError(`move operation cannot move ${from} into its own child ${path}`);
          }
          if (path === from) {
            getAt(doc, from);
            break;
          }
          const value = removeAt(doc, from);
          addAt(doc, path, value);
          break;
        }
        case 'copy': {
          const from = stringField(op, 'from', index);
          const path = stringField(op, 'path', index);
          addAt(doc, path, cloneJson(getAt(doc, from)));
          break;
        }
        case 'test': {
          const path = stringField(op, 'path', index);
          if (!deepEqual(testedValue(doc, path), valueField(op, index))) {
            throw new PatchOpError(`testing value ${path} failed: test failed`);
          }
          break;
        }
        default:
          throw new PatchOpError(
            `Unexpected kind: ${typeof kind === 'string' ? kind : JSON.stringify(kind)}`,
          );
      }
    });
  } catch (e) {
    if (e instanceof PatchOpError) throw invalid(e.message);
    throw e;
  }
  return doc;
}

function describeJsonType(v: Json): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

// ---------------------------------------------------------------------------------------------------------------
// Strategic merge patch

/** Strategic merge patch for built-in kinds (`Pod`, `Deployment`, ...), with merge keys and $patch directives. */
export function applyStrategicMergePatch(original: Json, patch: Json, kind: string): Json {
  return strategicMerge(original, patch, kind);
}
