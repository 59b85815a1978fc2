// The script loader caches every script the apps run: the apps' Redis users may only EVALSHA, so a script
// it missed would fail in production (NOPERM for the EVAL ioredis then tries) while passing every test that
// runs as the `default` user. Each module of the libraries and apps that makes a script is loaded here, and
// every script made must be one the loader knows; BullMQ's, as its connections define them, too.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { Redis } from 'ioredis';
import { Queue } from 'bullmq';
import { scriptsMade } from '@podset/redis';
import { operatorScripts } from '../src/redis-scripts.ts';

const REPO = path.resolve(import.meta.dirname, '../../..');
/** A call that makes a script: ours (libs/redis) or ioredis's defineCommand. */
const MAKES_SCRIPT = /\bluaScript(Of)?\(|\.defineCommand\(/;

function sources(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory() && entry.name !== 'node_modules') out.push(...sources(full));
    else if (
      entry.isFile() &&
      full.endsWith('.ts') &&
      !full.endsWith('.test.ts') &&
      !full.endsWith('main.ts')
    )
      out.push(full);
  }
  return out;
}

test('every script a module of the libraries or apps makes is one the loader caches', async () => {
  const known = new Set((await operatorScripts()).map((s) => s.sha));
  const makers = ['libs', 'apps']
    .flatMap((top) => readdirSync(path.join(REPO, top)).map((d) => path.join(REPO, top, d, 'src')))
    .flatMap((dir) => {
      try {
        return sources(dir);
      } catch {
        return [];
      }
    })
    .filter((file) => MAKES_SCRIPT.test(readFileSync(file, 'utf8')))
    .filter((file) => !file.includes(`${path.sep}testkit${path.sep}`));
  // Not vacuous: the projection's, the queue's and the event log's modules make scripts.
  assert.ok(makers.length >= 5, makers.join('\n'));
  for (const file of makers) await import(pathToFileURL(file).href);
  const missing = scriptsMade().filter((s) => !known.has(s.sha));
  assert.deepEqual(
    missing.map((s) => s.source.slice(0, 120)),
    [],
    'scripts the loader does not cache (add their module or variant to redis-scripts.ts)',
  );
});

test("BullMQ's commands, as its connection defines them, are all cached by the loader", async () => {
  const known = new Set((await operatorScripts()).map((s) => s.sha));
  const client = new Redis({ lazyConnect: true, maxRetriesPerRequest: null });
  const queue = new Queue('loader-check', { connection: client });
  try {
    const backend = await queue.getBackend().client.catch(() => undefined);
    const defined = (backend ?? client) as unknown as { scriptsSet?: Record<string, { lua: string }> };
    const scripts = Object.values(defined.scriptsSet ?? {});
    assert.ok(scripts.length > 30, `BullMQ defined ${scripts.length} commands`);
    const missing = scripts.filter((s) => !known.has(createHash('sha1').update(s.lua).digest('hex')));
    assert.deepEqual(missing.length, 0, `${missing.length} of BullMQ's commands are not cached`);
  } finally {
    await queue.close().catch(() => undefined);
    client.disconnect();
  }
});
