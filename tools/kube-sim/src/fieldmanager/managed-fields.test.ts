import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fromFieldsV1 } from './fieldset.ts';
import { typeViewOf } from './field-types.ts';
import {
  conflictError,
  decodeManagedFields,
  managerFromUserAgent,
  type Manager,
  recordUpdate,
  type RecordUpdate,
} from './managed-fields.ts';
import type { Json, KubeObject, ResourceType } from '../apimachinery/types.ts';

const cmType = { group: '', version: 'v1', kind: 'ConfigMap', subresources: {} } as unknown as ResourceType;
const view = typeViewOf(cmType, false);
const cm = (data: Record<string, string>, managedFields?: Json[]): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name: 'c', namespace: 'd', ...(managedFields ? { managedFields } : {}) },
  data,
});
const write = (w: Partial<RecordUpdate> & Pick<RecordUpdate, 'next' | 'manager'>): Json[] =>
  recordUpdate({
    live: undefined,
    requested: undefined,
    apiVersion: 'v1',
    subresource: '',
    part: 'main',
    view,
    time: '2026-11-25T10:00:00Z',
    ...w,
  }).managedFields ?? [];

test('the manager of a write without fieldManager: the User-Agent before its first "/"', () => {
  assert.equal(managerFromUserAgent('kubectl/v1.32.4 (linux/amd64) kubernetes/4cb5f07'), 'kubectl');
  assert.equal(managerFromUserAgent('kubernetes-client-javascript/2.0.1'), 'kubernetes-client-javascript');
  assert.equal(managerFromUserAgent('a\u0007b/1'), 'ab');
  assert.equal(managerFromUserAgent('x'.repeat(200)).length, 128);
});

test('updates own what they change; a later writer takes changed fields; [{}] resets', () => {
  const created = write({ next: cm({ a: '1', b: '2' }), manager: 'creator' });
  assert.deepEqual(created, [
    {
      manager: 'creator',
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-11-25T10:00:00Z',
      fieldsType: 'FieldsV1',
      fieldsV1: { 'f:data': { '.': {}, 'f:a': {}, 'f:b': {} } },
    },
  ]);
  const live = cm({ a: '1', b: '2' }, created);
  const changed = write({
    live,
    next: cm({ a: '9', b: '2' }),
    manager: 'editor',
    time: '2026-11-25T10:00:05Z',
  });
  assert.deepEqual(
    changed.map((e) => [(e as { manager: string }).manager, (e as { fieldsV1: Json }).fieldsV1]),
    [
      ['creator', { 'f:data': { '.': {}, 'f:b': {} } }],
      ['editor', { 'f:data': { 'f:a': {} } }],
    ],
  );
  const noop = recordUpdate({
    live,
    next: cm({ a: '1', b: '2' }, JSON.parse(JSON.stringify(created)) as Json[]),
    requested: JSON.parse(JSON.stringify(created)) as Json[],
    manager: 'x',
    apiVersion: 'v1',
    subresource: '',
    part: 'main',
    view,
    time: '2026-11-25T10:00:09Z',
  });
  assert.equal(noop.same, true);
  assert.equal(noop.managedFields, live.metadata.managedFields);
  const reset = write({ live, next: cm({ a: '1', b: '3' }), requested: [{}], manager: 'resetter' });
  assert.deepEqual(
    reset.map((e) => (e as { manager: string }).manager),
    ['resetter'],
  );
});

test('more than 10 Update entries: the oldest fold into ancient-changes', () => {
  let mf: Json[] = [];
  let data: Record<string, string> = {};
  for (let i = 0; i < 12; i++) {
    const live = cm(data, mf);
    data = { ...data, [`k${i}`]: 'v' };
    mf = write({ live, next: cm(data), manager: `m${i}`, time: `2026-11-25T10:00:${String(10 + i)}Z` });
  }
  const managers = (decodeManagedFields(mf) ?? []).map((m) => m.manager);
  assert.equal(managers.length, 10);
  assert.deepEqual(managers.slice(0, 2), ['ancient-changes', 'm3']);
  const ancient = decodeManagedFields(mf)?.[0] as Manager;
  assert.ok(ancient.set.has(['f:data', 'f:k0']) && ancient.set.has(['f:data', 'f:k2']));
});

test('conflicts of several managers are listed by manager, as the API server lists them', () => {
  const m = (manager: string, operation: 'Apply' | 'Update'): Manager => ({
    manager,
    operation,
    apiVersion: 'apps/v1',
    time: undefined,
    subresource: '',
    set: fromFieldsV1({}),
    entry: undefined,
  });
  const e = conflictError([
    { manager: m('b', 'Update'), path: ['f:spec', 'f:replicas'] },
    { manager: m('a', 'Apply'), path: ['f:spec', 'f:paused'] },
    { manager: m('b', 'Update'), path: ['f:metadata', 'f:labels', 'f:x'] },
  ]);
  assert.equal(e.code, 409);
  assert.equal(
    e.message,
    'Apply failed with 3 conflicts: conflicts with "a":\n- .spec.paused\nconflicts with "b" using apps/v1:\n- .spec.replicas\n- .metadata.labels.x',
  );
  assert.deepEqual(e.causes[0], {
    reason: 'FieldManagerConflict',
    message: 'conflict with "b" using apps/v1',
    field: '.spec.replicas',
  });
});
