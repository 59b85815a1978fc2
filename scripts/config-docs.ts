// Keeps the configuration tables of docs/configuration.md (CONFIG_DOC) generated from the apps' env
// specs (one source).
//   npm run gen:config-docs             rewrite the tables in docs/configuration.md
//   npm run gen:config-docs -- --check  exit 1 if they are stale
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describeEnv, type EnvSpec } from '@podset/config';
import { dashboardEnv } from '../apps/dashboard/src/config.ts';
import { watcherEnv } from '../apps/watcher/src/config.ts';
import { workerEnv } from '../apps/worker/src/config.ts';
import { redisAclEnv } from '../apps/redis-init/src/redis-acl-file.ts';
import { redisScriptsEnv } from '../apps/redis-init/src/redis-scripts.ts';

export const CONFIG_DOC = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '..',
  'docs',
  'configuration.md',
);

export const SECTIONS: Record<string, EnvSpec> = {
  watcher: watcherEnv,
  worker: workerEnv,
  dashboard: dashboardEnv,
  'redis-acl': redisAclEnv,
  'redis-scripts': redisScriptsEnv,
};

export function table(spec: EnvSpec): string {
  return ['| variable | default | meaning |', '| --- | --- | --- |', ...describeEnv(spec)].join('\n');
}

/** CONFIG_DOC text with every `<!-- config:NAME -->…<!-- /config:NAME -->` block regenerated. */
export function renderConfigDoc(text: string): string {
  let out = text;
  for (const [name, spec] of Object.entries(SECTIONS)) {
    const open = `<!-- config:${name} -->`;
    const close = `<!-- /config:${name} -->`;
    const start = out.indexOf(open);
    const end = out.indexOf(close);
    if (start < 0 || end < start) throw new Error(`docs/configuration.md lacks the ${open} … ${close} block`);
    out = `${out.slice(0, start + open.length)}\n${table(spec)}\n${out.slice(end)}`;
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const current = readFileSync(CONFIG_DOC, 'utf8');
  const wanted = renderConfigDoc(current);
  if (process.argv.includes('--check')) {
    if (wanted !== current) {
      process.stderr.write(
        'docs/configuration.md: its configuration tables are stale: run npm run gen:config-docs\n',
      );
      process.exit(1);
    }
  } else if (wanted !== current) {
    writeFileSync(CONFIG_DOC, wanted);
  }
}
