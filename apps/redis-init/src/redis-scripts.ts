// The script loader: the apps' Redis users may run only scripts already in Redis's script cache (EVALSHA;
// no EVAL, no SCRIPT LOAD: one script of their own could keep Redis busy for everyone or fill its memory).
// This puts every script the operator runs there, as its own user (SCRIPT LOAD and SCRIPT EXISTS only),
// and keeps them there: Redis empties the cache at each restart (nor does a replica promoted by a
// failover have them), so it asks which are missing every interval and loads those again.
import { createRequire } from 'node:module';
import { Cluster } from 'ioredis';
import { int, optionalStr } from '@podset/config';
import type { RedisClient } from '@podset/redis';
import { queueEnv } from '@podset/queue';
import { OPS_USERNAME, redisEnv } from '@podset/redis';
import { scriptsMade } from '@podset/redis';
import { makeFoldScripts } from '@podset/watcher/queue-cover';

/** The loader's variables (redis-scripts-main.ts): where Redis is, as its own user, and how often. */
export const redisScriptsEnv = {
  ...redisEnv,
  ...queueEnv,
  REDIS_SCRIPTS_INTERVAL_SECONDS: int({
    description: 'How often the script loader asks Redis which of the operator’s scripts it lacks (seconds)',
    default: 1,
    min: 1,
    max: 60,
  }),
  REDIS_OPS_USERNAME: optionalStr({
    description: `The BUSY watchdog’s Redis user (${OPS_USERNAME} in k8s/, the chart and compose: SCRIPT KILL, FUNCTION KILL, PING); unset: the \`default\` user (a Redis without ACLs)`,
  }),
  REDIS_OPS_PASSWORD: optionalStr({
    description:
      'Password of REDIS_OPS_USERNAME, e.g. from a Secret: set, the loader also runs the BUSY watchdog (a script busy past REDIS_BUSY_KILL_SECONDS is killed); unset, no watchdog',
  }),
  REDIS_BUSY_KILL_SECONDS: int({
    description:
      'How long Redis may answer BUSY (a script running past its busy-reply-threshold, 5 s by default) before the watchdog sends SCRIPT KILL (seconds)',
    default: 5,
    min: 1,
    max: 3600,
  }),
  HTTP_PORT: int({
    description:
      'Port of the loader’s /healthz, /readyz (every script cached) and /metrics (the watchdog’s kills); 0: none',
    default: 0,
    min: 0,
    max: 65535,
  }),
};

export interface CachedScript {
  sha: string;
  source: string;
}

interface BullScript {
  name: string;
  content: string;
}

/** BullMQ's commands, as it defines them on each connection (ioredis takes sha1 of `content`). */
function bullScripts(): CachedScript[] {
  const require = createRequire(import.meta.url);
  const all = require('bullmq/dist/cjs/scripts/index.js') as Record<string, BullScript>;
  return Object.values(all)
    .filter((s) => typeof s.content === 'string')
    .map((s) => ({ sha: '', source: s.content }));
}

/**
 * Ours: those the libraries make when their modules load, and the watcher's fold of a batch, which the
 * watcher composes from the projection's fold, the queue's cover rule and the event log (queue-cover.ts).
 */
function ourScripts(): CachedScript[] {
  makeFoldScripts();
  return scriptsMade();
}

/** Every script an app of the operator runs, by sha. */
export async function operatorScripts(): Promise<CachedScript[]> {
  const { createHash } = await import('node:crypto');
  const bySha = new Map<string, CachedScript>();
  for (const s of [...bullScripts(), ...ourScripts()]) {
    const sha = createHash('sha1').update(s.source).digest('hex');
    bySha.set(sha, { sha, source: s.source });
  }
  return [...bySha.values()];
}

/** Loads those of `scripts` Redis (each node of a Cluster) does not have; the number it loaded. */
export async function loadMissing(client: RedisClient, scripts: readonly CachedScript[]): Promise<number> {
  if (!(client instanceof Cluster)) return await loadMissingOn(client, scripts);
  await client.ping();
  let loaded = 0;
  // Replicas too: a failover makes one of them the node the apps' scripts run on.
  for (const node of client.nodes('all')) loaded += await loadMissingOn(node, scripts);
  return loaded;
}

async function loadMissingOn(client: RedisClient, scripts: readonly CachedScript[]): Promise<number> {
  if (scripts.length === 0) return 0;
  const cached = (await client.script('EXISTS', ...scripts.map((s) => s.sha))) as number[];
  const missing = scripts.filter((_, i) => cached[i] !== 1);
  for (const script of missing) {
    const sha = (await client.script('LOAD', script.source)) as string;
    if (sha !== script.sha) throw new Error(`redis-scripts: Redis gave sha ${sha} for script ${script.sha}`);
  }
  return missing.length;
}
