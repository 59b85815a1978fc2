// Typed declarations of environment variables. Each declaration knows how to parse its raw string
// and says what it is, so the same list drives validation, the README table and the manifest checks.
import { redactUrl } from './redact.ts';

export interface VarSpec<T> {
  readonly type: string;
  readonly description: string;
  /** The default as a user would write it in the environment; undefined means required or optional. */
  readonly defaultText: string | undefined;
  readonly required: boolean;
  /** Turns the raw value into T or throws an Error whose message says what was expected. */
  parse(raw: string): T;
  /** The value when the variable is unset (only called when not required). */
  fallback(): T;
}

interface Common<T> {
  description: string;
  default?: T;
}

function spec<T>(
  type: string,
  opts: Common<T> & { required?: boolean },
  parse: (raw: string) => T,
  show: (value: T) => string,
  empty: T,
): VarSpec<T> {
  const required = opts.required === true;
  return {
    type,
    description: opts.description,
    defaultText: opts.default === undefined ? undefined : show(opts.default),
    required,
    parse,
    fallback: () => (opts.default === undefined ? empty : opts.default),
  };
}

export function str(opts: Common<string> & { required?: boolean; pattern?: RegExp }): VarSpec<string> {
  return spec(
    'string',
    opts,
    (raw) => {
      if (opts.pattern !== undefined && !opts.pattern.test(raw)) {
        throw new Error(`must match ${String(opts.pattern)}`);
      }
      return raw;
    },
    (v) => v,
    '',
  );
}

export function optionalStr(opts: { description: string }): VarSpec<string | undefined> {
  return spec<string | undefined>(
    'string',
    opts,
    (raw) => raw,
    (v) => v ?? '',
    undefined,
  );
}

export function int(opts: Common<number> & { min?: number; max?: number }): VarSpec<number> {
  return spec(
    'integer',
    opts,
    (raw) => {
      if (!/^-?\d+$/.test(raw.trim())) throw new Error(`must be a whole number, got "${raw}"`);
      const value = Number(raw.trim());
      checkRange(value, opts.min, opts.max);
      return value;
    },
    String,
    0,
  );
}

/** An integer that may be left unset (undefined): for a default derived from other variables. */
export function optionalInt(opts: {
  description: string;
  min?: number;
  max?: number;
}): VarSpec<number | undefined> {
  const whole = int(opts);
  return spec<number | undefined>(
    'integer',
    opts,
    (raw) => whole.parse(raw),
    (v) => String(v ?? ''),
    undefined,
  );
}

export function num(opts: Common<number> & { min?: number; max?: number }): VarSpec<number> {
  return spec(
    'number',
    opts,
    (raw) => {
      const value = Number(raw.trim());
      if (raw.trim() === '' || !Number.isFinite(value)) throw new Error(`must be a number, got "${raw}"`);
      checkRange(value, opts.min, opts.max);
      return value;
    },
    String,
    0,
  );
}

export function bool(opts: Common<boolean>): VarSpec<boolean> {
  return spec(
    'boolean',
    opts,
    (raw) => {
      const value = raw.trim().toLowerCase();
      if (['1', 'true', 'yes', 'on'].includes(value)) return true;
      if (['0', 'false', 'no', 'off'].includes(value)) return false;
      throw new Error(`must be true or false, got "${raw}"`);
    },
    String,
    false,
  );
}

export function oneOf<const V extends string>(values: readonly V[], opts: Common<V>): VarSpec<V> {
  return spec(
    values.join('|'),
    opts,
    (raw) => {
      const value = raw.trim();
      if (!(values as readonly string[]).includes(value)) {
        throw new Error(`must be one of ${values.join(', ')}, got "${raw}"`);
      }
      return value as V;
    },
    (v) => v,
    values[0] as V,
  );
}

/** One of `values`, or undefined when unset: for a setting whose absence means "not said". */
export function optionalOneOf<const V extends string>(
  values: readonly V[],
  opts: { description: string },
): VarSpec<V | undefined> {
  const one = oneOf(values, opts);
  return spec<V | undefined>(
    values.join('|'),
    opts,
    (raw) => one.parse(raw),
    (v) => v ?? '',
    undefined,
  );
}

/** Comma-separated list; blanks dropped. */
export function list(opts: Common<string[]> & { item?: RegExp }): VarSpec<string[]> {
  return spec(
    'list',
    opts,
    (raw) => {
      const items = raw
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '');
      for (const item of items) {
        if (opts.item !== undefined && !opts.item.test(item)) {
          // Without userinfo: a sentinel or Cluster node given as a URL may carry the password.
          throw new Error(`item "${redactUrl(item)}" must match ${String(opts.item)}`);
        }
      }
      return items;
    },
    (v) => v.join(','),
    [],
  );
}

export function url(
  opts: Common<string> & { required?: boolean; protocols: readonly string[] },
): VarSpec<string> {
  return spec(
    'url',
    opts,
    (raw) => {
      let parsed: URL;
      try {
        parsed = new URL(raw.trim());
      } catch {
        // Echoed without its userinfo: the password must not reach a log.
        throw new Error(`must be a URL such as ${opts.protocols[0]}//host:port, got "${redactUrl(raw)}"`);
      }
      if (!opts.protocols.includes(parsed.protocol)) {
        throw new Error(`must use ${opts.protocols.join(' or ')}, got "${parsed.protocol}"`);
      }
      return raw.trim();
    },
    (v) => v,
    '',
  );
}

function checkRange(value: number, min: number | undefined, max: number | undefined): void {
  if (min !== undefined && value < min) throw new Error(`must be at least ${min}, got ${value}`);
  if (max !== undefined && value > max) throw new Error(`must be at most ${max}, got ${value}`);
}
