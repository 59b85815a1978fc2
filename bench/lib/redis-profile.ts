// Where Redis's CPU goes over one window of a run: INFO commandstats (calls and microseconds by command,
// scripts' inner commands included in their EVALSHA's time and also counted on their own) and the slow
// log with a threshold of 0 — every command with its duration and arguments, a script's own logged just
// before it — summed by top-level call, scripts by sha and named (BullMQ's by its command name, ours by
// their .lua file; the merge script's by mode too), with what each script ran inside, and the fold's
// events per call. The slow log costs Redis a little per command (an entry with up to 32 arguments of 128
// bytes), so a run that profiles Redis reports a slightly higher Redis CPU than one that does not. Its
// durations are elapsed time, not CPU: on a loaded machine a script's "own" time holds its waits too.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { operatorScripts } from '../../apps/redis-init/src/redis-scripts.ts';

/** One command's (or script's) share of the window. */
export interface RedisCost {
  name: string;
  calls: number;
  usec: number;
}

export interface RedisProfile {
  /** By command, from INFO commandstats, most microseconds first. */
  commands: RedisCost[];
  /**
   * Top-level commands from the slow log, EVALSHA and EVALSHA_RO split by script, each with the commands it
   * ran inside (their time is part of its own). Most microseconds first.
   */
  topLevel: (RedisCost & { inner: RedisCost[]; items?: number })[];
  /** The slow log reached its length: topLevel misses the oldest calls. */
  slowlogFull: boolean;
}

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const SLOWLOG_MAX = 2_000_000;

/** Parses INFO commandstats's `cmdstat_<name>:calls=N,usec=U,...` lines. */
export function parseCommandCosts(info: string): Map<string, { calls: number; usec: number }> {
  const out = new Map<string, { calls: number; usec: number }>();
  for (const line of info.split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/.exec(line.trim());
    if (m !== null) out.set(m[1]!, { calls: Number(m[2]), usec: Number(m[3]) });
  }
  return out;
}

/** sha → a name: BullMQ's scripts by their command, ours by the .lua file their text starts as. */
export function scriptNames(): Map<string, string> {
  const names = new Map<string, string>();
  const require = createRequire(import.meta.url);
  const bull = require('bullmq/dist/cjs/scripts/index.js') as Record<
    string,
    { name?: string; content?: unknown }
  >;
  for (const s of Object.values(bull))
    if (typeof s.content === 'string' && typeof s.name === 'string')
      names.set(createHash('sha1').update(s.content).digest('hex'), `bullmq:${s.name}`);
  return names;
}

/** Our .lua files by their first line (a script's text starts with its file's, includes resolved after). */
function luaFilesByFirstLine(): Map<string, string> {
  const out = new Map<string, string>();
  for (const dir of ['libs/state/src/lua', 'libs/queue/src/lua', 'libs/event-log/src/lua']) {
    let files: string[];
    try {
      files = readdirSync(path.join(REPO, dir));
    } catch {
      continue;
    }
    for (const f of files.filter((n) => n.endsWith('.lua'))) {
      const first = readFileSync(path.join(REPO, dir, f), 'utf8').split('\n')[0]!;
      if (!first.startsWith('-- @include')) out.set(first, f.replace(/\.lua$/, ''));
    }
  }
  return out;
}

/** Starts profiling Redis at `url`; the returned function ends it and answers the window's costs. */
export async function profileRedis(url: string): Promise<() => Promise<RedisProfile>> {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  const before = parseCommandCosts(await client.info('commandstats'));
  await client.config('SET', 'slowlog-max-len', String(SLOWLOG_MAX));
  await client.config('SET', 'slowlog-log-slower-than', '0');
  await client.slowlog('RESET');
  return async () => {
    try {
      await client.config('SET', 'slowlog-log-slower-than', '-1');
      const after = parseCommandCosts(await client.info('commandstats'));
      const commands: RedisCost[] = [];
      for (const [name, a] of after) {
        const b = before.get(name) ?? { calls: 0, usec: 0 };
        if (a.calls > b.calls) commands.push({ name, calls: a.calls - b.calls, usec: a.usec - b.usec });
      }
      commands.sort((x, y) => y.usec - x.usec);
      const log = (await client.slowlog('GET', String(SLOWLOG_MAX))) as unknown[];
      const byCall = new Map<string, RedisCost & { items: number; inner: Map<string, RedisCost> }>();
      // Newest first; a script's own commands are logged (client "?:0") just before the script itself.
      let inner: RedisCost[] = [];
      for (const entry of log.reverse()) {
        if (!Array.isArray(entry)) continue;
        const usec = Number(entry[2]);
        const args = (entry[3] as unknown[]).map(String);
        const cmd = (args[0] ?? '?').toLowerCase();
        if (String(entry[4]) === '?:0') {
          inner.push({ name: cmd, calls: 1, usec });
          continue;
        }
        const script = cmd === 'evalsha' || cmd === 'evalsha_ro';
        // The merge script's calls by mode (its ARGV[3]; its KEYS[1] is the key's deduplication key).
        const keys = Number(args[2]);
        const mode = script && String(args[3]).includes(':de:') ? args[3 + keys + 2] : undefined;
        const key = script ? `${cmd} ${args[1] ?? '?'}${mode !== undefined ? ` ${mode}` : ''}` : cmd;
        const c = byCall.get(key) ?? {
          name: key,
          calls: 0,
          usec: 0,
          items: 0,
          inner: new Map<string, RedisCost>(),
        };
        c.calls++;
        c.usec += usec;
        // fold-each's events (its ARGV[1]); a script whose ARGV[1] is no count adds nothing.
        if (script) c.items += Number(/^\d+$/.exec(args[3 + keys] ?? '')?.[0] ?? 0);
        for (const i of inner) {
          const ic = c.inner.get(i.name) ?? { name: i.name, calls: 0, usec: 0 };
          ic.calls++;
          ic.usec += i.usec;
          c.inner.set(i.name, ic);
        }
        inner = [];
        byCall.set(key, c);
      }
      const names = scriptNames();
      const firstLines = luaFilesByFirstLine();
      for (const { sha, source: text } of await operatorScripts()) {
        const file = firstLines.get(text.split('\n')[0]!);
        if (file !== undefined) names.set(sha, file);
      }
      const topLevel = [...byCall.values()]
        .map((c) => {
          const m = /^(evalsha(?:_ro)?) (\S+)( .*)?$/.exec(c.name);
          const script = m ? (names.get(m[2]!) ?? m[2]!.slice(0, 8)) : undefined;
          const name = m ? `${m[1]!} ${script!}${m[3] ?? ''}` : c.name;
          return {
            name,
            calls: c.calls,
            usec: c.usec,
            ...(script === 'fold-each' ? { items: c.items } : {}),
            inner: [...c.inner.values()].sort((x, y) => y.usec - x.usec),
          };
        })
        .sort((x, y) => y.usec - x.usec);
      return {
        commands,
        topLevel,
        slowlogFull: log.length >= SLOWLOG_MAX,
      };
    } finally {
      client.disconnect();
    }
  };
}

/** The profile's top lines, per unit (e.g. per converged pod): calls and µs per unit, µs per call. */
export function describeProfile(p: RedisProfile, per: number, unit: string, top: number): string[] {
  const line = (c: RedisCost): string =>
    `  ${c.name.padEnd(40)} ${(c.calls / per).toFixed(2).padStart(8)} calls/${unit} ` +
    `${(c.usec / Math.max(1, c.calls)).toFixed(1).padStart(7)} µs/call ${(c.usec / per).toFixed(1).padStart(7)} µs/${unit}`;
  const sum = (cs: readonly RedisCost[]): number => cs.reduce((s, c) => s + c.usec, 0);
  const innerOf = (c: { calls: number; usec: number; inner: RedisCost[]; items?: number }): string => {
    const items =
      c.items !== undefined && c.items > 0
        ? `\n      ${(c.items / c.calls).toFixed(1)} events/call, ${(c.usec / c.items).toFixed(1)} µs/event`
        : '';
    if (c.inner.length === 0) return items;
    const own = c.usec - sum(c.inner);
    const parts = c.inner
      .slice(0, 5)
      .map((i) => `${i.name} ${(i.calls / c.calls).toFixed(1)}×${(i.usec / i.calls).toFixed(1)}`);
    return `${items}\n      inside, per call: ${parts.join(', ')}; the script's own ${(own / c.calls).toFixed(1)} µs`;
  };
  return [
    `Redis INFO commandstats (a script's time includes its commands', which are also counted on their own):`,
    ...p.commands.slice(0, top).map(line),
    `Redis top-level calls (slow log at 0 µs), scripts by name: ${(sum(p.topLevel) / per).toFixed(1)} µs/${unit} in all` +
      (p.slowlogFull ? '; the log was full, the first calls are missing' : ''),
    ...p.topLevel.slice(0, top).map((c) => line(c) + innerOf(c)),
  ];
}

let reportTop = 0;

/** converge's --redis-stats N: report the top N lines of the operator's Redis over its run (0: none). */
export function setRedisStats(top: number): void {
  reportTop = top;
}

/**
 * With --redis-stats: starts profiling the Redis at `url`; the returned function logs its CPU per pod
 * (`cpuSeconds`, from /proc) and the profile's top lines. Without: does nothing.
 */
export async function reportRedis(
  url: string,
  pods: number,
  log: (s: string) => void,
): Promise<(cpuSeconds: number | undefined) => Promise<void>> {
  const top = reportTop;
  if (top <= 0) return async () => undefined;
  const profile = await profileRedis(url);
  return async (cpuSeconds) => {
    const ms = (((cpuSeconds ?? NaN) * 1000) / pods).toFixed(3);
    log(`operator: Redis CPU ${ms} ms per pod (the slow log's own cost included)`);
    for (const line of describeProfile(await profile(), pods, 'pod', top)) log(line);
  };
}
