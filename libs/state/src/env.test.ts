// PROJECTION_HMAC_KEY and its _FILE: one of them, read (a Secret's file: its trailing newline ignored),
// at least 32 characters; a previous key only with a current one. Every problem names its variable.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ConfigError } from '@podset/config';
import { projectionHmacKeys } from './env.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'projection-key-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const KEY = 'k'.repeat(32);
const none = {
  PROJECTION_HMAC_KEY: undefined,
  PROJECTION_HMAC_KEY_FILE: undefined,
  PROJECTION_HMAC_PREVIOUS_KEY: undefined,
};

function problems(cfg: Partial<Record<keyof typeof none, string>>): string[] {
  try {
    projectionHmacKeys({ ...none, ...cfg });
  } catch (err) {
    assert.ok(err instanceof ConfigError);
    return err.problems.map((p) => `${p.variable}: ${p.message}`);
  }
  return [];
}

test('unset: no keys; set: the key, or the file without its trailing newline', () => {
  assert.equal(projectionHmacKeys(none), undefined);
  assert.deepEqual(projectionHmacKeys({ ...none, PROJECTION_HMAC_KEY: KEY }), { current: KEY });
  const file = path.join(dir, 'key');
  writeFileSync(file, `${KEY}\n`);
  assert.deepEqual(
    projectionHmacKeys({
      ...none,
      PROJECTION_HMAC_KEY_FILE: file,
      PROJECTION_HMAC_PREVIOUS_KEY: 'p'.repeat(40),
    }),
    {
      current: KEY,
      previous: 'p'.repeat(40),
    },
  );
});

test('bad input is named: too short, both, an unreadable file, a previous key alone', () => {
  assert.deepEqual(problems({ PROJECTION_HMAC_KEY: 'short' }), [
    'PROJECTION_HMAC_KEY: is 5 characters, at least 32 needed (e.g. openssl rand -base64 32)',
  ]);
  const file = path.join(dir, 'both');
  writeFileSync(file, KEY);
  assert.deepEqual(problems({ PROJECTION_HMAC_KEY: KEY, PROJECTION_HMAC_KEY_FILE: file }), [
    'PROJECTION_HMAC_KEY_FILE: set together with PROJECTION_HMAC_KEY: give one of them',
  ]);
  assert.deepEqual(problems({ PROJECTION_HMAC_KEY_FILE: path.join(dir, 'missing') }), [
    `PROJECTION_HMAC_KEY_FILE: cannot read ${path.join(dir, 'missing')} (ENOENT)`,
  ]);
  assert.deepEqual(problems({ PROJECTION_HMAC_PREVIOUS_KEY: KEY }), [
    'PROJECTION_HMAC_PREVIOUS_KEY: set without PROJECTION_HMAC_KEY (or its _FILE): a previous key goes with a current one',
  ]);
  assert.deepEqual(problems({ PROJECTION_HMAC_KEY: KEY, PROJECTION_HMAC_PREVIOUS_KEY: 'x' }), [
    'PROJECTION_HMAC_PREVIOUS_KEY: is 1 characters, at least 32 needed (e.g. openssl rand -base64 32)',
  ]);
});
