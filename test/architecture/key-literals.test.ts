// Every Redis key family is spelled in keyspace.ts only: this greps the sources of apps/ and libs/
// (TypeScript and Lua, tests left out: they may spell a key to check where it is) for a string literal
// that spells one — a key segment next to a `:` (`'de:'`, `${base}:proj`), a bare BullMQ key name joined
// to a prefix (`jobPrefix .. 'active'`, `${p}active`), or the `${prefix}:${queue}` base itself.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isTestFile, read, repoFiles } from './walker.ts';

const OWNER = 'libs/redis/src/keyspace.ts';

/** Key segments: BullMQ's and ours. A literal that spells one beside a `:` names a key. */
const SEGMENTS = [
  // BullMQ's, under the job prefix
  'de',
  'dn',
  'rl',
  'active',
  'wait',
  'waiting-children',
  'paused',
  'delayed',
  'prioritized',
  'completed',
  'failed',
  'stalled',
  'stalled-check',
  'limiter',
  'meta',
  'marker',
  'pc',
  'metrics',
  'repeat',
  // ours
  'proj',
  'ps',
  'pods',
  'exp',
  'req',
  'epoch',
  'keys',
  'ready',
  'watcher',
  'sentinel',
  'parked',
];
/** BullMQ key names that are also plain words: a key only when joined right after a prefix. */
const BARE = ['active', 'wait', 'delayed', 'prioritized', 'completed', 'failed', 'stalled', 'meta', 'marker'];

const seg = SEGMENTS.map((s) => s.replace(/-/g, '\\-')).join('|');
// `\0` stands for an interpolation (`${…}`), the way a key is usually built.
const NEXT_TO_COLON = new RegExp(`(?:^|[:\\0])(?:${seg}):|:(?:${seg})(?:$|[:\\0])`);
const AFTER_PREFIX = new RegExp(`\\0(?:${BARE.join('|')})$`);
const BASE = /\$\{[^}]*prefix[^}]*\}:\$\{[^}]*queue/i;
const LUA_JOINED = new RegExp(`\\.\\.\\s*'(?:${BARE.join('|')})'|'(?:${BARE.join('|')})'\\s*\\.\\.`);

/** The string literals of a TypeScript or Lua source, comments left out; `${…}` becomes `\0`. */
function literals(source: string, lua: boolean): string[] {
  const comment = lua ? /(^|\s)--.*$/gm : /(^|\s)\/\/.*$|\/\*[\s\S]*?\*\//gm;
  const code = source.replace(comment, '$1');
  const out: string[] = [];
  for (const m of code.matchAll(/'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`/g)) {
    const text = m[0].slice(1, -1).replace(/\$\{[^}]*\}/g, '\0');
    if (!/\s/.test(text)) out.push(text); // a key has no space: a literal with one is prose (a log line)
  }
  return out;
}

/** The lines of `source` that spell a key family, as `line: text`. */
export function keyLiterals(source: string, lua: boolean): string[] {
  const found: string[] = [];
  source.split('\n').forEach((line, i) => {
    if (!lua && /^\s*(\/\*|\*)/.test(line)) return; // a doc comment's line
    const spelled =
      BASE.test(line) ||
      (lua && LUA_JOINED.test(line.replace(/--.*$/, ''))) ||
      literals(line, lua).some((l) => NEXT_TO_COLON.test(l) || AFTER_PREFIX.test(l));
    if (spelled) found.push(`${i + 1}: ${line.trim()}`);
  });
  return found;
}

/** The TypeScript and Lua sources of apps/ and libs/, tests and test folders left out. */
function sources(): string[] {
  return repoFiles(['apps/**/*.{ts,lua}', 'libs/**/*.{ts,lua}']).filter(
    (f) => !isTestFile(f) && !/(^|\/)test\//.test(f),
  );
}

test('the detector finds a key family spelled outside keyspace.ts, and passes what is not one', () => {
  const ts = [
    'const dedup = `${p}de:${key}`;',
    'const base = `${cfg.QUEUE_PREFIX}:${cfg.QUEUE_NAME}`;',
    'const pods = `${base}:pods:${key}`;',
    "const parked = prefix + 'parked:';",
    'const active = `${jobPrefix}active`;',
  ];
  for (const line of ts) assert.equal(keyLiterals(line, false).length, 1, line);
  const lua = [
    "local id = redis.call('GET', jobPrefix .. 'de:' .. key)",
    "redis.call('LPOS', p .. 'active', id)",
  ];
  for (const line of lua) assert.equal(keyLiterals(line, true).length, 1, line);
  const fine = [
    "import { hash } from 'node:crypto';",
    "const url = 'redis://127.0.0.1:6379';",
    "return 'active', 'active'",
    '// the stored next job (dn:<key>)',
    "log.info({ state: 'failed' }, 'job failed: retrying')",
  ];
  for (const line of fine) assert.deepEqual(keyLiterals(line, line.startsWith('return')), [], line);
});

test('no source in apps/ or libs/ spells a Redis key family outside libs/redis/src/keyspace.ts', () => {
  const files = sources().filter((f) => f !== OWNER);
  assert.ok(files.includes('libs/queue/src/lua/live-cover.lua'), 'the Lua scripts are looked at');
  assert.ok(files.includes('libs/state/src/projection-writer.ts'), 'the TypeScript sources are looked at');
  const spelled = files.flatMap((f) => keyLiterals(read(f), f.endsWith('.lua')).map((l) => `${f}:${l}`));
  assert.deepEqual(spelled, [], 'spell these keys in libs/redis/src/keyspace.ts and take them from there');
});
