import assert from 'node:assert/strict';
import { test } from 'node:test';
import { revisionManifest, templateHash, type PodSet, type RevisionObject } from '@podset/reconcile';
import { historyTable, undoChoice } from './history.ts';

function podSet(image: string, revision?: number): PodSet {
  return {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: {
      name: 'web',
      namespace: 'default',
      uid: 'u1',
      ...(revision !== undefined ? { annotations: { 'podset.io/revision': String(revision) } } : {}),
    },
    spec: { replicas: 1, template: { spec: { containers: [{ name: 'app', image }] } } },
  };
}

function revision(image: string, n: number, cause?: string): RevisionObject {
  const ps = podSet(image);
  if (cause !== undefined) ps.metadata.annotations = { 'kubernetes.io/change-cause': cause };
  return revisionManifest(ps, templateHash(ps), n);
}

const history = [revision('a', 1, 'first'), revision('b', 2), revision('c', 3, 'third')];

test('history: the PodSet’s revisions in order, with their change-cause', () => {
  const foreign = { ...revision('z', 9), metadata: { ...revision('z', 9).metadata, ownerReferences: [] } };
  assert.equal(
    historyTable(podSet('c', 3), [history[2]!, foreign, history[0]!, history[1]!]),
    'podset.podset.io/web\nREVISION  CHANGE-CAUSE\n1         first\n2         <none>\n3         third\n',
  );
});

test('undo: the revision before the current one, or the one asked for; nothing when it is current', () => {
  const back = undoChoice(podSet('c', 3), history, undefined);
  assert.equal(back.kind, 'rollback');
  assert.equal(back.kind === 'rollback' && back.revision, 2);
  assert.deepEqual(back.kind === 'rollback' && back.template, podSet('b').spec!.template);
  const to1 = undoChoice(podSet('c', 3), history, 1);
  assert.equal(to1.kind === 'rollback' && to1.revision, 1);
  assert.deepEqual(undoChoice(podSet('c', 3), history, 3), { kind: 'skip', revision: 3 });
  assert.equal(undoChoice(podSet('c', 3), history, 7).kind, 'error');
  assert.equal(undoChoice(podSet('a', 1), [history[0]!], undefined).kind, 'error');
});
