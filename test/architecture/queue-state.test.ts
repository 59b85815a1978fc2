// libs/queue and libs/state both stand on libs/redis and on neither of each other: the queue knows nothing of
// the projection, the projection nothing of the queue (the watcher composes the projection's fold with the
// queue's cover rule, through the writer's generic owed-key hook). This greps both libraries, tests included,
// for an import of the other, and libs/state for the names of the queue's keys and Lua.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { read, repoFiles } from './walker.ts';

/** The lines of `file` that import `lib` (by package name or by a path into it). */
export function importsOf(source: string, lib: 'queue' | 'state'): string[] {
  const by = new RegExp(`from '(?:@podset/${lib}|[./]*libs/${lib}/[^']*)'|import\\('(?:@podset/${lib})'\\)`);
  return source.split('\n').filter((line) => by.test(line));
}

test('the check finds an import of the other library, by name or by path', () => {
  assert.equal(importsOf("import { Projection } from '@podset/state';", 'state').length, 1);
  assert.equal(importsOf("import { x } from '../../../libs/queue/src/index.ts';", 'queue').length, 1);
  assert.deepEqual(importsOf("import { runScript } from '@podset/redis';", 'state'), []);
});

for (const [lib, other] of [
  ['queue', 'state'],
  ['state', 'queue'],
] as const) {
  test(`libs/${lib} does not import libs/${other}`, () => {
    const files = repoFiles(`libs/${lib}/**/*.ts`);
    assert.ok(files.length > 3, `sources of libs/${lib}`);
    const found = files.flatMap((f) => importsOf(read(f), other).map((l) => `${f}: ${l.trim()}`));
    assert.deepEqual(found, []);
  });
}

/**
 * The queue's concepts as the projection would spell them if it knew them again: BullMQ's key names (the
 * keyspace's BULL_* Lua names, bullKeys, a job prefix), the queue's cover rule, its merge and their Lua, its
 * hint.
 */
const QUEUE_WORDS =
  /\bBULL_[A-Z_]+|\bbullKeys\b|\bjobPrefix(?:Of)?\b|\bliveCover\b|live-cover|liveRequestCovered|liveRequestSettled|LIVE_REQUEST_LUA|merge-job|coverAt\b|COVER_RULE_LUA|LIVE_COVER_LUA|\bnoJob\b|\bdedup/;

/** The lines of `source` that name one of the queue's keys or its Lua. */
export function queueWordsIn(source: string): string[] {
  return source.split('\n').filter((line) => QUEUE_WORDS.test(line));
}

test('the check finds the queue’s keys and Lua by name', () => {
  assert.equal(queueWordsIn("local id = redis.call('GET', jobPrefix .. BULL_DEDUP .. key)").length, 1);
  assert.equal(queueWordsIn('-- @include live-cover').length, 1);
  assert.equal(queueWordsIn('  liveCover?: { lua: LuaModule };').length, 1);
  assert.equal(queueWordsIn("import { COVER_RULE_LUA } from './x.ts';").length, 1);
  assert.equal(queueWordsIn('  return liveRequestSettled(jobPrefix, key, now, windowMs, true)').length, 1);
  assert.equal(queueWordsIn('-- @include merge-job').length, 1);
  assert.deepEqual(queueWordsIn('local settled, hint = onOwedKey(hookArg1, hookArg2, key, false, now)'), []);
});

test('libs/state names none of the queue’s keys nor its Lua (its fold takes a generic owed-key hook)', () => {
  const files = repoFiles(['libs/state/**/*.ts', 'libs/state/**/*.lua']);
  assert.ok(
    files.some((f) => f.endsWith('fold-each.lua')),
    'the Lua is looked at',
  );
  const found = files.flatMap((f) => queueWordsIn(read(f)).map((l) => `${f}: ${l.trim()}`));
  assert.deepEqual(found, []);
});
