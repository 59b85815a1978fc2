import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { freshLogDir } from './log-dir.ts';

test('each run starts with no log files; the run before is NAME.1, the one before that is gone', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'podset-log-dir-'));
  const dir = path.join(root, 'logs');
  try {
    assert.deepEqual(freshLogDir(dir), []);
    writeFileSync(path.join(dir, 'watcher.log'), 'run 1\n');
    writeFileSync(path.join(dir, 'dashboard.log'), 'run 1\n');
    assert.deepEqual(freshLogDir(dir).sort(), ['dashboard.log', 'watcher.log']);
    assert.deepEqual(readdirSync(dir).sort(), ['dashboard.log.1', 'watcher.log.1']);
    // The second run wrote no dashboard.log: the first run's dashboard.log.1 does not outlive the next.
    writeFileSync(path.join(dir, 'watcher.log'), 'run 2\n');
    assert.deepEqual(freshLogDir(dir), ['watcher.log']);
    assert.deepEqual(readdirSync(dir), ['watcher.log.1']);
    assert.equal(readFileSync(path.join(dir, 'watcher.log.1'), 'utf8'), 'run 2\n');
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
