import type { VarSpec } from './vars.ts';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the variance of VarSpec<T> needs `any` here only
export type EnvSpec = Record<string, VarSpec<any>>;
export type Config<S extends EnvSpec> = {
  readonly [K in keyof S]: S[K] extends VarSpec<infer T> ? T : never;
};

/** Every problem found, each naming its variable, so a user fixes them all in one go. */
export class ConfigError extends Error {
  readonly problems: readonly { variable: string; message: string }[];
  constructor(problems: { variable: string; message: string }[]) {
    super(`invalid configuration:\n${problems.map((p) => `  ${p.variable}: ${p.message}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

/** Reads and validates the variables of `spec` from `env`; throws ConfigError listing every problem. */
export function parseEnv<S extends EnvSpec>(spec: S, env: Record<string, string | undefined>): Config<S> {
  const problems: { variable: string; message: string }[] = [];
  const out: Record<string, unknown> = {};
  for (const [name, declared] of Object.entries(spec)) {
    const raw = env[name];
    if (raw === undefined || raw === '') {
      if (declared.required)
        problems.push({ variable: name, message: `is required (${declared.description})` });
      else out[name] = declared.fallback();
      continue;
    }
    try {
      out[name] = declared.parse(raw);
    } catch (err) {
      problems.push({ variable: name, message: err instanceof Error ? err.message : String(err) });
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return out as Config<S>;
}

/**
 * For main.ts: `fn()`, or — when it throws a ConfigError — the problems on stderr and exit 2 (a usage
 * error, not a crash). Other errors pass through.
 */
export function exitOnConfigError<T>(app: string, fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${app}: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
}

/** Markdown rows `| NAME | default | description |` for the README's configuration table. */
export function describeEnv(spec: EnvSpec): string[] {
  return Object.entries(spec).map(([name, v]) => {
    const def = v.required
      ? '*(required)*'
      : v.defaultText === undefined || v.defaultText === ''
        ? '—'
        : `\`${v.defaultText}\``;
    return `| \`${name}\` | ${def} | ${v.description} |`;
  });
}
