// Running our Lua scripts: EVALSHA (the script is sent once per Redis), falling back to EVAL when Redis
// doesn't know it yet (NOSCRIPT: a fresh or restarted server, or another node of a cluster).
import { createHash } from 'node:crypto';
import type { RedisClient } from './connection.ts';

export interface LuaScript {
  readonly source: string;
  readonly sha: string;
}

export function luaScript(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
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
