// The kube-sim benchmark (bench/kube-sim.ts) in its small --smoke mode: it runs end to end (server in a
// child process, creates, lists, watch fan-out, RSS) and prints every figure. No timing asserts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const BENCH = join(import.meta.dirname, '..', '..', '..', 'bench', 'kube-sim.ts');

test('bench/kube-sim.ts --smoke runs and prints the figures', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'bench-smoke-'));
  try {
    const json = join(dir, 'out.json');
    const { stdout } = await exec(process.execPath, [BENCH, '--smoke', '--json', json], {
      timeout: 180_000,
      maxBuffer: 1 << 20,
    });
    for (const label of [
      /^creates\/s \(32 keep-alive clients, 2,000 pods\)\s+[\d,]+\s/m,
      /^ {2}create latency p50 \/ p99\s+[\d.,]+ \/ [\d.,]+ ms/m,
      /^list 2,000 pods, one request \([\d,]+ MiB\)\s+[\d,]+ ms/m,
      /^list 2,000 pods, paged limit=500 \(4 pages\)\s+[\d,]+ ms/m,
      /^watch fan-out: 10 watchers x 500 changes\s+[\d,]+ events\/s/m,
      /^server RSS at 2,000 pods\s+[\d,]+ MiB/m,
    ]) {
      assert.match(stdout, label);
    }
    const r = JSON.parse(readFileSync(json, 'utf8')) as {
      smoke: boolean;
      create: { pods: number; perSecond: number };
      list: { items: number; pages: number; wholeMs: number; pagedTotalMs: number };
      watch: { watchers: number; events: number; delivered: number; deliveredPerSecond: number };
      rss: { afterCreateBytes: number; peakBytes: number };
    };
    assert.equal(r.smoke, true);
    assert.equal(r.create.pods, 2_000);
    assert.ok(r.create.perSecond > 0);
    assert.equal(r.list.items, 2_000);
    assert.equal(r.list.pages, 4);
    assert.ok(r.list.wholeMs > 0 && r.list.pagedTotalMs > 0);
    assert.equal(r.watch.watchers, 10);
    assert.ok(r.watch.delivered >= r.watch.watchers * r.watch.events, 'every watcher got every change');
    assert.ok(r.watch.deliveredPerSecond > 0);
    assert.ok(r.rss.afterCreateBytes > 10 * 1024 ** 2 && r.rss.peakBytes > 10 * 1024 ** 2);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
