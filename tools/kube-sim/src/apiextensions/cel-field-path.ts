// A rule's fieldPath (`.a.b`, `['a.b']`), resolved against its node's schema as the API server does.
import type { JSONSchemaProps } from '../apimachinery/types.ts';
import { additional } from './cel-values.ts';
import { propOf } from './structural.ts';

const FIELD_PATH_DELIMS = new Set(['.', '[', ']']);

/** The field path a rule's `fieldPath` names under its node (`maxSurge`, `a.b`, `labels[x]`), or why it is invalid. */
export function resolveFieldPath(
  fieldPath: string,
  schema: JSONSchemaProps,
): { path: string; schema: JSONSchemaProps } | { error: string } {
  let s = schema;
  let out = '';
  let i = 0;
  const token = (): string | undefined => {
    if (i >= fieldPath.length) return undefined;
    const c = fieldPath[i] as string;
    if (FIELD_PATH_DELIMS.has(c)) {
      i++;
      return c;
    }
    if (c === "'") {
      let j = i + 1;
      while (j < fieldPath.length && !(fieldPath[j] === "'" && fieldPath[j - 1] !== '\\')) j++;
      const t = fieldPath.slice(i, j + 1);
      i = j + 1;
      return t;
    }
    let j = i;
    while (j < fieldPath.length && !FIELD_PATH_DELIMS.has(fieldPath[j] as string)) j++;
    const t = fieldPath.slice(i, j);
    i = j;
    return t;
  };
  const step = (name: string): string | undefined => {
    if (s.properties) {
      const p = propOf(s, name);
      if (!p) return 'does not refer to a valid field';
      out = out === '' ? name : `${out}.${name}`;
      s = p;
      return undefined;
    }
    const addl = additional(s);
    if (!addl) return 'does not refer to a valid field';
    out = `${out}[${name}]`;
    s = addl;
    return undefined;
  };
  for (let tok = token(); tok !== undefined; tok = token()) {
    let err: string | undefined;
    if (tok === '.') {
      const name = token();
      if (name === undefined) return { error: 'unexpected end of JSON path' };
      err = step(name);
    } else if (tok === '[') {
      const quoted = token();
      if (quoted === undefined) return { error: 'unexpected end of JSON path' };
      if (quoted.length < 2 || !quoted.startsWith("'") || !quoted.endsWith("'")) {
        return { error: `expected single quoted string but got ${quoted}` };
      }
      const name = unescapeSingleQuoted(quoted.slice(1, -1));
      if (name === undefined) return { error: 'invalid string literal' };
      err = step(name);
      const close = token();
      if (close === undefined) return { error: 'unexpected end of JSON path' };
      if (close !== ']') return { error: `expected ] but got ${close}` };
    } else {
      return { error: `expected [ or . but got: ${tok}` };
    }
    if (err) return { error: err };
  }
  return { path: out, schema: s };
}

const SINGLE_QUOTE_ESCAPES: Record<string, string> = {
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  "'": "'",
  '\\': '\\',
};

function unescapeSingleQuoted(s: string): string | undefined {
  let ok = true;
  const out = s.replace(/\\./g, (m) => {
    const r = SINGLE_QUOTE_ESCAPES[m[1] as string];
    if (r === undefined) ok = false;
    return r ?? '';
  });
  return ok ? out : undefined;
}
