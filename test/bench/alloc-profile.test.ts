// bench's --alloc-profile preload (bench/lib/alloc-profile-preload.ts), in a process of its own: what the
// process allocated, freed objects included, written at exit under the app's name.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { summarizeHeap, type HeapProfile } from '../../bench/lib/heap-profile-summary.ts';

const REPO = path.resolve(import.meta.dirname, '../..');
const NODE = path.join(REPO, 'node_modules/.bin/node');

test('the profile holds what the process allocated and freed, not only what it kept', () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'alloc-profile-'));
  try {
    const out = path.join(tmp, 'profiles');
    mkdirSync(out);
    // An app that makes ~200 MB of short-lived strings and keeps ~1 MB: only a profile of freed objects
    // can come near 200.
    const main = path.join(tmp, 'app', 'main.js');
    mkdirSync(path.dirname(main));
    writeFileSync(
      main,
      `let kept = [];
       function churn(i) { return JSON.stringify({ i, pad: 'x'.repeat(1000) }); }
       for (let i = 0; i < 200_000; i++) { const s = churn(i); if (i % 200 === 0) kept.push(s); }
       console.log(kept.length);`,
    );
    const preload = pathToFileURL(path.join(REPO, 'bench/lib/alloc-profile-preload.ts'));
    preload.searchParams.set('dir', out);
    execFileSync(NODE, ['--import', preload.href, main], { encoding: 'utf8' });
    const files = readdirSync(out);
    assert.equal(files.length, 1, files.join(', '));
    assert.match(files[0]!, /^app-\d+\.heapprofile$/, 'named by the directory of its main module');
    const h = summarizeHeap(JSON.parse(readFileSync(path.join(out, files[0]!), 'utf8')) as HeapProfile);
    assert.ok(h.bytes > 150e6, `${(h.bytes / 1e6).toFixed(1)} MB sampled: freed objects are missing`);
    assert.ok(
      h.total.some((t) => t.label.includes('app/main.js') && t.bytes > 150e6),
      `the churn is placed in the code that made it: ${JSON.stringify(h.total.slice(0, 4))}`,
    );
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
