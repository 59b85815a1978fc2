// Our Lua scripts: each is kept in .lua files beside the code (read once, when the module loads, as
// BullMQ keeps its commands) and run by EVALSHA (sent once per Redis), falling back to EVAL when Redis
// doesn't know it yet (NOSCRIPT: a fresh or restarted server, or another node of a cluster).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Cluster, Redis } from 'ioredis';

/** A client of either kind; both speak the same commands. */
export type RedisClient = Redis | Cluster;

export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/** The text of a .lua file, by URL (`new URL('./x.lua', import.meta.url)`). */
export function readLua(url: URL): string {
  return readFileSync(url, 'utf8');
}

/**
 * One script from parts, concatenated in order: the rules and helpers it uses first (Lua source that
 * defines local functions), the script's body last (a .lua file).
 */
export function luaScriptOf(...parts: readonly (string | URL)[]): LuaScript {
  return luaScript(parts.map((p) => (typeof p === 'string' ? p : readLua(p))).join('\n'));
}

export async function runScript(
  client: RedisClient,
  script: LuaScript,
  keys: readonly string[],
  argv: readonly string[],
): Promise<unknown> {
  try {
    return await client.evalsha(script.sha, keys.length, ...keys, ...argv);
  } catch (err) {
    if (!(err instanceof Error) || !err.message.includes('NOSCRIPT')) throw err;
    return await client.eval(script.source, keys.length, ...keys, ...argv);
  }
}
