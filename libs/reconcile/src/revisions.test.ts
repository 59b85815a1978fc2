import assert from 'node:assert/strict';
import { test } from 'node:test';
import { podSet, UID } from '../test/fixtures.ts';
import { reconcile } from './plan.ts';
import {
  ownRevisions,
  revisionManifest,
  revisionPlan,
  revisionsMayBeStale,
  revisionTemplate,
  type RevisionObject,
} from './revisions.ts';
import { templateHash } from './template-hash.ts';
import type { PodSet } from './types.ts';

const T = new Date('2026-01-01T00:00:00Z');

function withImage(
  image: string,
  over: { annotations?: Record<string, string>; limit?: number } = {},
): PodSet {
  const ps = podSet();
  ps.spec!.template!.spec.containers[0]!.image = image;
  if (over.annotations) ps.metadata.annotations = over.annotations;
  if (over.limit !== undefined) ps.spec!.revisionHistoryLimit = over.limit;
  return ps;
}

/** A stored revision of `ps`'s template, as the worker would have created it. */
function stored(ps: PodSet, revision: number): RevisionObject {
  const r = revisionManifest(ps, templateHash(ps), revision);
  return { ...r, metadata: { ...r.metadata, uid: `cr-${revision}` } };
}

test('a first template gets revision 1 and the annotation; then nothing more to write', () => {
  const ps = withImage('nginx:1', { annotations: { 'kubernetes.io/change-cause': 'first' } });
  const hash = templateHash(ps);
  const plan = revisionPlan(ps, [], hash);
  assert.deepEqual(plan, {
    current: 1,
    create: { name: `web-${hash}`, revision: 1 },
    prune: [],
    annotate: true,
  });
  const r = revisionManifest(ps, hash, 1);
  assert.deepEqual(r.metadata.labels, { 'podset.io/name': 'web', 'podset.io/template-hash': hash });
  assert.equal(r.metadata.annotations?.['kubernetes.io/change-cause'], 'first');
  assert.deepEqual(r.metadata.ownerReferences?.[0], {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    name: 'web',
    uid: UID,
    controller: true,
    blockOwnerDeletion: true,
  });
  assert.deepEqual(revisionTemplate(r), ps.spec!.template);

  ps.metadata.annotations = { 'podset.io/revision': '1' };
  assert.deepEqual(revisionPlan(ps, [stored(ps, 1)], hash), { current: 1, prune: [], annotate: false });
});

test('a new template is the next revision; going back to an old one renumbers it as the newest', () => {
  const a = withImage('nginx:1');
  const b = withImage('nginx:2');
  const history = [stored(a, 1), stored(b, 2)];
  const c = withImage('nginx:3');
  c.metadata.annotations = { 'podset.io/revision': '2' };
  assert.equal(revisionPlan(c, history, templateHash(c)).create?.revision, 3);

  const back = withImage('nginx:1');
  back.metadata.annotations = { 'podset.io/revision': '2' };
  const plan = revisionPlan(back, history, templateHash(back));
  assert.equal(plan.create, undefined, 'no second revision for a template that has one');
  assert.deepEqual(plan.renumber, { name: `web-${templateHash(a)}`, uid: 'cr-1', revision: 3 });
  assert.equal(plan.current, 3);
  assert.equal(plan.annotate, true);
});

test('history is pruned to revisionHistoryLimit old revisions, oldest first, never the current one', () => {
  const images = ['nginx:1', 'nginx:2', 'nginx:3', 'nginx:4'];
  const history = images.map((img, i) => stored(withImage(img), i + 1));
  const next = withImage('nginx:5', { limit: 2 });
  const plan = revisionPlan(next, history, templateHash(next));
  assert.deepEqual(
    plan.prune.map((p) => p.uid),
    ['cr-1', 'cr-2'],
  );
  // Limit 0 with the current template the oldest revision: every other goes, the current stays.
  const first = withImage('nginx:1', { limit: 0 });
  const back = revisionPlan(first, history, templateHash(first));
  assert.deepEqual(
    back.prune.map((p) => p.uid),
    ['cr-2', 'cr-3', 'cr-4'],
  );
  assert.equal(back.renumber?.uid, 'cr-1');
});

test('only revisions this PodSet controls (same UID) count', () => {
  const ps = withImage('nginx:1');
  const mine = stored(ps, 1);
  const namesake = { ...stored(ps, 7), metadata: { ...stored(ps, 7).metadata, ownerReferences: [] } };
  const other = stored({ ...ps, metadata: { ...ps.metadata, uid: 'another' } }, 9);
  assert.deepEqual(ownRevisions(ps, [other, namesake, mine]), [mine]);
});

test('the history is looked at only when the spec moved on or no revision is annotated', () => {
  const ps = withImage('nginx:1');
  assert.equal(revisionsMayBeStale(ps), true, 'no revision yet');
  ps.metadata.annotations = { 'podset.io/revision': '1' };
  ps.metadata.generation = 1;
  assert.equal(revisionsMayBeStale(ps), false, 'never changed, its one revision annotated, no status yet');
  ps.metadata.generation = 2;
  assert.equal(revisionsMayBeStale(ps), true, 'changed, no status yet');
  ps.metadata.generation = 1;
  ps.status = reconcile(ps, [], T).status;
  assert.equal(revisionsMayBeStale(ps), false, 'status written for this generation and template');
  ps.metadata.generation = 2;
  assert.equal(revisionsMayBeStale(ps), true, 'a spec change');
});

test('paused: Progressing says so, with no deadline', () => {
  const ps = withImage('nginx:1');
  ps.spec!.paused = true;
  const progressing = reconcile(ps, [], T).status.conditions?.find((c) => c.type === 'Progressing');
  assert.equal(progressing?.status, 'Unknown');
  assert.equal(progressing?.reason, 'PodSetPaused');
});
