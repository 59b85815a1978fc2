import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Job } from 'bullmq';
import { escapeHtml, overviewPage } from './html.ts';
import { summarizeJobs, type Overview } from './overview.ts';

function job(fields: Partial<Job> & { id: string; name: string }): Job {
  return { attemptsMade: 0, timestamp: 0, ...fields } as unknown as Job;
}

test('summarizeJobs: newest finished job is the last reconcile; pending job wins the link; retries count', () => {
  const facts = summarizeJobs([
    {
      state: 'completed',
      job: job({
        id: 'a1',
        name: 'ns/a',
        processedOn: 100,
        finishedOn: 130,
        attemptsMade: 1,
        returnvalue: { requeueAfterMs: 500 },
      }),
    },
    {
      state: 'completed',
      job: job({ id: 'a0', name: 'ns/a', processedOn: 10, finishedOn: 20, attemptsMade: 1 }),
    },
    {
      state: 'failed',
      job: job({
        id: 'a-1',
        name: 'ns/a',
        processedOn: 1,
        finishedOn: 5,
        attemptsMade: 8,
        failedReason: 'quota exceeded',
      }),
    },
    { state: 'prioritized', job: job({ id: 'a2', name: 'ns/a' }) },
    {
      state: 'delayed',
      job: job({ id: 'b1', name: 'ns/b', processedOn: 300, attemptsMade: 2, failedReason: '503 from API' }),
    },
    {
      state: 'failed',
      job: job({
        id: 'c1',
        name: 'ns/c',
        processedOn: 50,
        finishedOn: 90,
        attemptsMade: 8,
        failedReason: 'forbidden',
      }),
    },
  ]);
  const a = facts.get('ns/a')!;
  assert.deepEqual(a.lastReconcile, {
    jobId: 'a1',
    result: 'completed',
    at: 130,
    attempt: 1,
    durationMs: 30,
    requeueAfterMs: 500,
  });
  assert.deepEqual(a.lastError, { jobId: 'a-1', message: 'quota exceeded', at: 5, attempt: 8 });
  assert.deepEqual(a.pending, { id: 'a2', state: 'prioritized' });
  const b = facts.get('ns/b')!;
  assert.deepEqual(b.lastReconcile, { jobId: 'b1', result: 'retry', at: 300, attempt: 2 });
  assert.equal(b.lastError?.message, '503 from API');
  const c = facts.get('ns/c')!;
  assert.equal(c.lastReconcile?.result, 'failed');
  assert.equal(c.lastReconcile?.durationMs, 40);
  assert.equal(c.pending, undefined);
});

test('the overview page escapes every value it shows', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  const evil = '<script>alert(1)</script>';
  const o: Overview = {
    generatedAt: 1_000_000,
    podSets: [
      {
        namespace: 'ns',
        name: 'web',
        key: 'ns/web',
        desired: 3,
        current: 2,
        ready: 1,
        updated: 1,
        available: 1,
        rollout: evil,
        conditions: [],
        lastError: { jobId: 'j', message: evil, at: 999_000, attempt: 2 },
        job: { id: `j"><img src=x>`, state: 'delayed' },
        events: [
          {
            id: '1-0',
            t: new Date(999_000).toISOString(),
            type: 'MODIFIED',
            kind: 'Pod',
            key: 'ns/web',
            name: evil,
            rv: '7',
          },
        ],
      },
    ],
    orphanKeys: [],
    counts: { waiting: 4 },
    recentEvents: [],
    errors: [`kubernetes: ${evil}`],
  };
  const html = overviewPage(o, {
    boardPath: '/queues',
    queueName: 'podset-reconcile',
    readOnly: true,
    cookieSession: false,
  });
  assert.ok(!html.includes('<script>alert'), 'no raw script');
  assert.ok(!html.includes('<img src=x>'), 'no raw attribute break-out');
  assert.match(html, /data-col="desired">3</);
  assert.match(
    html,
    /data-role="rollout-text">1\/3 updated · 1 available</,
    'a rolling PodSet shows its progress',
  );
  assert.match(html, /href="\/queues\/queue\/podset-reconcile\/j%22%3E%3Cimg%20src%3Dx%3E"/);
});
