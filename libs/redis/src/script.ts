// Our Lua scripts: each is kept in .lua files beside the code (read once, when the module loads, as
// BullMQ keeps its commands) and run by EVALSHA, falling back to EVAL when Redis doesn't know it yet
// (NOSCRIPT: a fresh or restarted server, or another node of a cluster). The apps' Redis users may not
// EVAL (an arbitrary script could block Redis or fill its memory): for them the script loader
// (apps/redis-init's redis-scripts.ts) puts every script made here into Redis's cache beforehand, so each
// script made is also recorded, for the loader to find.
import { createHash } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import { readLua, resolveLua, type LuaModule } from './lua-include.ts';

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

/**
 * One script: its body (a .lua file, or Lua text) with its `-- @include` lines resolved from `modules`
 * (lua-include.ts).
 */
export function luaScriptOf(body: string | URL, modules: readonly LuaModule[] = []): LuaScript {
  const source = typeof body === 'string' ? body : readLua(body);
  return luaScript(resolveLua(source, modules, typeof body === 'string' ? 'the script' : body.pathname));
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
