// libs/queue and libs/state both stand on libs/redis and on neither of each other: the queue knows nothing of
// the projection, the projection nothing of BullMQ (the watcher hands the queue's live-cover Lua to the
// projection's writer). This greps both libraries, tests included, for an import of the other.
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
