// The apps' declared environments (their config modules' env specs), and one check used for both
// docker-compose.yml and k8s/: every variable a deployment sets is declared by the app, every required
// one is set, every literal value parses, and the port the app listens on is the one probed/published.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { EnvSpec } from '@podset/config';
import { REPO } from './support.ts';

export interface AppEnv {
  app: string;
  spec: EnvSpec;
  /** The variable holding the port of /healthz, /readyz and /metrics (no authentication). */
  probeVar: string;
  /** The variable holding the port users reach (the dashboard's UI; the probe port for the others). */
  serveVar: string;
}

const CONFIG_FILES: Record<string, { file: string; probeVar: string; serveVar: string }> = {
  watcher: { file: 'apps/watcher/src/config.ts', probeVar: 'HTTP_PORT', serveVar: 'HTTP_PORT' },
  worker: { file: 'apps/worker/src/config.ts', probeVar: 'HTTP_PORT', serveVar: 'HTTP_PORT' },
  dashboard: { file: 'apps/dashboard/src/config.ts', probeVar: 'HTTP_PORT', serveVar: 'DASHBOARD_PORT' },
};

function isEnvSpec(v: unknown): v is EnvSpec {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const values = Object.values(v as Record<string, unknown>);
  return (
    values.length > 0 &&
    values.every(
      (s) =>
        s !== null &&
        typeof s === 'object' &&
        typeof (s as { parse?: unknown }).parse === 'function' &&
        typeof (s as { description?: unknown }).description === 'string',
    )
  );
}

/** The app's env spec, or a reason why there is none yet (the dashboard may not be written). */
export async function loadAppEnv(app: string): Promise<AppEnv | string> {
  const where = CONFIG_FILES[app];
  if (where === undefined) throw new Error(`no config module known for ${app}`);
  const file = path.join(REPO, where.file);
  if (!existsSync(file)) return `${where.file} does not exist yet`;
  const mod = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  const specs = Object.entries(mod).filter(([, v]) => isEnvSpec(v));
  if (specs.length !== 1) {
    throw new Error(
      `${where.file} should export exactly one env spec, found: ${specs.map(([k]) => k).join(', ')}`,
    );
  }
  return { app, spec: specs[0]?.[1] as EnvSpec, probeVar: where.probeVar, serveVar: where.serveVar };
}

/**
 * Variables that Node reads itself, not the app's config: set by deployments, declared by no env spec.
 * NODE_OPTIONS carries the heap bounds, checked by heap.test.ts (by running node with them).
 */
export const RUNTIME_ENV: ReadonlySet<string> = new Set(['NODE_OPTIONS']);

/** A variable as a deployment sets it: a literal, or a reference (secret, field, interpolation). */
export type Setting = { literal: string } | { from: string };

/** A port a deployment expects the app on, and which of the app's variables must hold it. */
export interface PortUse {
  variable: string;
  port: number;
  what: string;
}

/** Problems with how a deployment sets an app's environment and the ports it expects the app on. */
export function envProblems(
  env: AppEnv,
  set: Map<string, Setting>,
  uses: PortUse[],
  where: string,
): string[] {
  const problems: string[] = [];
  for (const [name, setting] of set) {
    if (RUNTIME_ENV.has(name)) continue;
    const declared = env.spec[name];
    if (declared === undefined) {
      problems.push(
        `${where}: sets ${name}, which ${env.app} does not declare (typo, or a missing declaration)`,
      );
      continue;
    }
    if ('literal' in setting) {
      try {
        declared.parse(setting.literal);
      } catch (err) {
        problems.push(`${where}: ${name}=${JSON.stringify(setting.literal)}: ${(err as Error).message}`);
      }
    }
  }
  for (const [name, declared] of Object.entries(env.spec)) {
    if (declared.required && !set.has(name))
      problems.push(`${where}: ${name} is required by ${env.app} but not set`);
  }
  for (const use of uses) {
    const declared = env.spec[use.variable];
    if (declared === undefined) {
      problems.push(`${where}: ${env.app} does not declare its port variable ${use.variable}`);
      continue;
    }
    const setting = set.get(use.variable);
    const port =
      setting === undefined
        ? Number(declared.defaultText)
        : 'literal' in setting
          ? Number(setting.literal)
          : Number.NaN;
    if (port !== use.port) {
      problems.push(
        `${where}: ${use.what} expects ${env.app} on port ${use.port}, but ${use.variable} is ${String(port)}`,
      );
    }
  }
  return problems;
}
