// Our Lua scripts: each is kept in .lua files beside the code (read once, when the module loads, as
// BullMQ keeps its commands) and run by EVALSHA, falling back to EVAL when Redis doesn't know it yet
// (NOSCRIPT: a fresh or restarted server, or another node of a cluster). The apps' Redis users may not
// EVAL (an arbitrary script could block Redis or fill its memory): for them the script loader
// (libs/runtime's redis-scripts.ts) puts every script made here into Redis's cache beforehand, so each
// script made is also recorded, for the loader to find.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Cluster, Redis } from 'ioredis';

/** A client of either kind; both speak the same commands. */
export type RedisClient = Redis | Cluster;

export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

const made = new Map<string, LuaScript>();

export function luaScript(source: string): LuaScript {
  const script = { source, sha: createHash('sha1').update(source).digest('hex') };
  made.set(script.sha, script);
  return script;
}

/** Every script this process has made so far (the modules that define them imported, writers built). */
export function scriptsMade(): LuaScript[] {
  return [...made.values()];
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
    try {
      return await client.eval(script.source, keys.length, ...keys, ...argv);
    } catch (evalErr) {
      if (evalErr instanceof Error && /NOPERM/.test(evalErr.message)) throw notLoaded(script, evalErr);
      throw evalErr;
    }
  }
}

/** NOSCRIPT for a user that may not EVAL: the loader has not (yet, or again after a restart) loaded it. */
export function notLoaded(script: { sha: string }, cause: Error): Error {
  return new Error(
    `NOSCRIPT script ${script.sha} is not in Redis's script cache and this Redis user may not EVAL it: ` +
      'the script loader (redis-scripts) loads every script of the operator; is it running?',
    { cause },
  );
}
