import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namespaceDeletionConditions, type RemainingContent } from './namespace-conditions.ts';

const left = (resources: [string, number][], finalizers: [string, number][] = []): RemainingContent => ({
  resources: new Map(resources),
  finalizers: new Map(finalizers),
});

test('the first pass writes the five conditions; what remains is True with counts, sorted', () => {
  const out = namespaceDeletionConditions(
    undefined,
    left(
      [
        ['pods', 2],
        ['deployments.apps', 1],
      ],
      [
        ['z.io/b', 1],
        ['a.io/a', 2],
      ],
    ),
    '2026-01-01T00:00:00Z',
  );
  assert.deepEqual(
    out?.map((c) => [c.type, c.status, c.reason]),
    [
      ['NamespaceDeletionDiscoveryFailure', 'False', 'ResourcesDiscovered'],
      ['NamespaceDeletionGroupVersionParsingFailure', 'False', 'ParsedGroupVersions'],
      ['NamespaceDeletionContentFailure', 'False', 'ContentDeleted'],
      ['NamespaceContentRemaining', 'True', 'SomeResourcesRemain'],
      ['NamespaceFinalizersRemaining', 'True', 'SomeFinalizersRemain'],
    ],
  );
  // A core resource prints with a trailing dot (resource.group with an empty group), as the real one.
  assert.equal(
    out?.[3]?.message,
    'Some resources are remaining: deployments.apps has 1 resource instances, pods. has 2 resource instances',
  );
  assert.equal(
    out?.[4]?.message,
    'Some content in the namespace has finalizers remaining: a.io/a in 2 resource instances, z.io/b in 1 resource instances',
  );
});

test('unchanged conditions: nothing to write; a changed status moves lastTransitionTime, a changed message does not', () => {
  const first = namespaceDeletionConditions(undefined, left([['pods', 2]]), 't1')!;
  assert.equal(namespaceDeletionConditions(first, left([['pods', 2]]), 't2'), undefined);
  const fewer = namespaceDeletionConditions(first, left([['pods', 1]]), 't2')!;
  assert.equal(fewer[3]?.lastTransitionTime, 't1');
  assert.match(String(fewer[3]?.message), /pods\. has 1 resource/);
  const done = namespaceDeletionConditions(fewer, left([]), 't3')!;
  assert.deepEqual(
    [done[3]?.status, done[3]?.reason, done[3]?.message, done[3]?.lastTransitionTime],
    ['False', 'ContentRemoved', 'All content successfully removed', 't3'],
  );
});

test('conditions of other types are kept', () => {
  const out = namespaceDeletionConditions([{ type: 'Other', status: 'True' }], left([]), 't')!;
  assert.deepEqual(out[0], { type: 'Other', status: 'True' });
  assert.equal(out.length, 6);
});
