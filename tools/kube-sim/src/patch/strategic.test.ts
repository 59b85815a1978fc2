// Strategic merge patch: applyStrategicMergePatch on built-in kinds, and the list strategies it merges by.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Json, JsonObject } from '../apimachinery/types.ts';
import { applyStrategicMergePatch, mergePatch } from './patch.ts';
import { listStrategy } from './strategic.ts';
import { assertApiError, frozen, scalar } from '../../test/unit-support/patches.ts';

function smp(original: unknown, patch: unknown, kind = 'Pod'): Json {
  return applyStrategicMergePatch(frozen(original as Json), frozen(patch as Json), kind);
}

const basePod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web',
    labels: { app: 'web', tier: 'fe' },
    finalizers: ['a.io/x', 'b.io/y'],
    ownerReferences: [
      { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true },
      { apiVersion: 'v1', kind: 'Thing', name: 't', uid: 'u2' },
    ],
  },
  spec: {
    containers: [
      {
        name: 'app',
        image: 'app:1',
        args: ['--a', '--b'],
        env: [
          { name: 'A', value: '1' },
          { name: 'B', value: '2' },
        ],
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        volumeMounts: [{ name: 'data', mountPath: '/data' }],
      },
      { name: 'sidecar', image: 'side:1' },
    ],
    volumes: [{ name: 'data', emptyDir: {} }],
    tolerations: [{ key: 'k1', operator: 'Exists' }],
  },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: 'True' },
      { type: 'Initialized', status: 'True' },
    ],
  },
};

describe('strategic merge patch', () => {
  it('maps merge recursively; null deletes; scalars replace (kubectl label/annotate)', () => {
    const out = smp(basePod, {
      metadata: { labels: { tier: null, env: 'prod' }, annotations: { note: 'x' } },
      status: { phase: 'Succeeded' },
    }) as typeof basePod & { metadata: { annotations: Record<string, string> } };
    assert.deepEqual(out.metadata.labels, { app: 'web', env: 'prod' });
    assert.deepEqual(out.metadata.annotations, { note: 'x' });
    assert.equal(out.status.phase, 'Succeeded');
    assert.deepEqual(out.spec, basePod.spec);
  });

  it('containers merge by name: one field changes, the rest stays', () => {
    const out = smp(basePod, {
      spec: { containers: [{ name: 'sidecar', image: 'side:2' }] },
    }) as typeof basePod;
    assert.deepEqual(out.spec.containers[1], { name: 'sidecar', image: 'side:2' });
    assert.deepEqual(out.spec.containers[0], basePod.spec.containers[0]);
  });

  it('a new container is added (patch items first, as Kubernetes orders them)', () => {
    const out = smp(basePod, { spec: { containers: [{ name: 'new', image: 'n:1' }] } }) as typeof basePod;
    assert.deepEqual(
      out.spec.containers.map((c) => c.name),
      ['new', 'app', 'sidecar'],
    );
  });

  it('env by name, ports by containerPort, volumeMounts by mountPath, volumes by name', () => {
    const out = smp(basePod, {
      spec: {
        containers: [
          {
            name: 'app',
            env: [{ name: 'B', value: '3' }],
            ports: [{ containerPort: 80, name: 'http' }],
            volumeMounts: [{ mountPath: '/data', readOnly: true }],
          },
        ],
        volumes: [{ name: 'data', emptyDir: { medium: 'Memory' } }],
      },
    }) as typeof basePod;
    const app = out.spec.containers[0]!;
    assert.deepEqual(app.env, [
      { name: 'A', value: '1' },
      { name: 'B', value: '3' },
    ]);
    assert.deepEqual(app.ports, [{ containerPort: 80, protocol: 'TCP', name: 'http' }]);
    assert.deepEqual(app.volumeMounts, [{ name: 'data', mountPath: '/data', readOnly: true }]);
    assert.deepEqual(out.spec.volumes, [{ name: 'data', emptyDir: { medium: 'Memory' } }]);
  });

  it('lists without a merge key replace: args, tolerations', () => {
    const out = smp(basePod, {
      spec: {
        containers: [{ name: 'app', args: ['--c'] }],
        tolerations: [{ key: 'k2', operator: 'Exists' }],
      },
    }) as typeof basePod;
    assert.deepEqual(out.spec.containers[0]!.args, ['--c']);
    assert.deepEqual(out.spec.tolerations, [{ key: 'k2', operator: 'Exists' }]);
  });

  it('finalizers merge as a set; $deleteFromPrimitiveList removes', () => {
    let out = smp(basePod, { metadata: { finalizers: ['c.io/z', 'a.io/x'] } }) as typeof basePod;
    assert.deepEqual(out.metadata.finalizers, ['c.io/z', 'a.io/x', 'b.io/y']);
    out = smp(basePod, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.io/x'] } }) as typeof basePod;
    assert.deepEqual(out.metadata.finalizers, ['b.io/y']);
    assert.ok(!('$deleteFromPrimitiveList' in out.metadata));
    out = smp(basePod, { metadata: { finalizers: null } }) as typeof basePod;
    assert.ok(!('finalizers' in out.metadata));
  });

  it('ownerReferences merge by uid, conditions by type', () => {
    const out = smp(basePod, {
      metadata: { ownerReferences: [{ uid: 'u2', blockOwnerDeletion: true }] },
      status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Crash' }] },
    }) as typeof basePod;
    assert.deepEqual(out.metadata.ownerReferences[1], {
      apiVersion: 'v1',
      kind: 'Thing',
      name: 't',
      uid: 'u2',
      blockOwnerDeletion: true,
    });
    assert.deepEqual(out.status.conditions, [
      { type: 'Ready', status: 'False', reason: 'Crash' },
      { type: 'Initialized', status: 'True' },
    ]);
  });

  it('service ports merge by port', () => {
    const svc = {
      kind: 'Service',
      spec: {
        selector: { app: 'web' },
        ports: [
          { port: 80, targetPort: 8080, name: 'http' },
          { port: 443, targetPort: 8443, name: 'https' },
        ],
      },
    };
    const out = smp(svc, { spec: { ports: [{ port: 443, targetPort: 9443 }] } }, 'Service') as typeof svc;
    assert.deepEqual(out.spec.ports, [
      { port: 80, targetPort: 8080, name: 'http' },
      { port: 443, targetPort: 9443, name: 'https' },
    ]);
  });

  it('$patch: delete removes a list item by merge key', () => {
    const out = smp(basePod, {
      spec: {
        containers: [
          { name: 'app', env: [{ name: 'A', $patch: 'delete' }] },
          { name: 'sidecar', $patch: 'delete' },
        ],
      },
    }) as typeof basePod;
    assert.deepEqual(
      out.spec.containers.map((c) => c.name),
      ['app'],
    );
    assert.deepEqual(out.spec.containers[0]!.env, [{ name: 'B', value: '2' }]);
  });

  it('$patch: replace in a list replaces it with the other items', () => {
    const out = smp(basePod, {
      spec: { containers: [{ $patch: 'replace' }, { name: 'only', image: 'o:1', dropped: null }] },
    }) as typeof basePod;
    assert.deepEqual(out.spec.containers, [{ name: 'only', image: 'o:1' }]);
  });

  it('$patch: replace / delete in a map', () => {
    let out = smp(basePod, { metadata: { labels: { $patch: 'replace', only: 'this' } } }) as typeof basePod;
    assert.deepEqual(out.metadata.labels, { only: 'this' });
    out = smp(basePod, { metadata: { labels: { $patch: 'delete' } } }) as typeof basePod;
    assert.deepEqual(out.metadata.labels, {});
    assertApiError(
      () => smp(basePod, { metadata: { labels: { $patch: 'bogus' } } }),
      400,
      'BadRequest',
      'Unknown patch type',
    );
    assertApiError(
      () => smp(basePod, { spec: { containers: [{ name: 'app', $patch: 'merge' }] } }),
      400,
      'BadRequest',
      'merging lists cannot yet be specified',
    );
  });

  it('$retainKeys clears the keys not listed (deployment strategy switch)', () => {
    const deploy = {
      kind: 'Deployment',
      spec: {
        replicas: 2,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      },
    };
    const out = smp(
      deploy,
      { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate', rollingUpdate: null } } },
      'Deployment',
    ) as typeof deploy;
    assert.deepEqual(out.spec, { replicas: 2, strategy: { type: 'Recreate' } });
    assertApiError(
      () =>
        smp(
          deploy,
          { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: { maxSurge: 2 } } } },
          'Deployment',
        ),
      400,
      'BadRequest',
      'retainKeys',
    );
  });

  it('$setElementOrder orders the merged list', () => {
    const out = smp(basePod, {
      spec: {
        '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }],
        containers: [{ name: 'app', image: 'app:2' }],
      },
    }) as typeof basePod;
    assert.deepEqual(
      out.spec.containers.map((c) => [c.name, c.image]),
      [
        ['sidecar', 'side:1'],
        ['app', 'app:2'],
      ],
    );
    const out2 = smp(basePod, {
      metadata: { '$setElementOrder/finalizers': ['b.io/y', 'n.io/new', 'a.io/x'], finalizers: ['n.io/new'] },
    }) as typeof basePod;
    assert.deepEqual(out2.metadata.finalizers, ['b.io/y', 'n.io/new', 'a.io/x']);
    assertApiError(
      () =>
        smp(basePod, {
          spec: {
            '$setElementOrder/containers': [{ name: 'sidecar' }, { name: 'app' }],
            containers: [{ name: 'app' }, { name: 'sidecar' }],
          },
        }),
      400,
      'BadRequest',
      "doesn't match $setElementOrder list",
    );
  });

  it('a kubectl apply three-way patch (image change, env removal, annotation)', () => {
    const deploy = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'web', annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}' } },
      spec: {
        replicas: 3,
        template: {
          metadata: { labels: { app: 'web' } },
          spec: {
            containers: [
              {
                name: 'web',
                image: 'nginx:1',
                env: [
                  { name: 'KEEP', value: 'a' },
                  { name: 'DROP', value: 'b' },
                ],
                ports: [{ containerPort: 80 }],
              },
            ],
          },
        },
      },
    };
    const patch = {
      metadata: { annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{"new":1}' } },
      spec: {
        template: {
          spec: {
            '$setElementOrder/containers': [{ name: 'web' }],
            containers: [
              {
                '$setElementOrder/env': [{ name: 'KEEP' }],
                env: [{ $patch: 'delete', name: 'DROP' }],
                image: 'nginx:2',
                name: 'web',
              },
            ],
          },
        },
      },
    };
    const out = smp(deploy, patch, 'Deployment') as typeof deploy;
    assert.deepEqual(out.spec.template.spec.containers, [
      { name: 'web', image: 'nginx:2', env: [{ name: 'KEEP', value: 'a' }], ports: [{ containerPort: 80 }] },
    ]);
    assert.equal(out.metadata.annotations['kubectl.kubernetes.io/last-applied-configuration'], '{"new":1}');
    assert.equal(out.spec.replicas, 3);
  });

  it('kubectl apply removing a container and switching a volume source ($retainKeys in a list item)', () => {
    const out = smp(basePod, {
      spec: {
        '$setElementOrder/containers': [{ name: 'app' }],
        containers: [{ $patch: 'delete', name: 'sidecar' }],
        '$setElementOrder/volumes': [{ name: 'data' }],
        volumes: [
          { $retainKeys: ['configMap', 'name'], name: 'data', configMap: { name: 'cm' }, emptyDir: null },
        ],
      },
    }) as typeof basePod;
    assert.deepEqual(
      out.spec.containers.map((c) => c.name),
      ['app'],
    );
    assert.deepEqual(out.spec.volumes, [{ name: 'data', configMap: { name: 'cm' } }]);
  });

  it('values put where nothing was are cleaned of nulls and directives', () => {
    const out = smp(
      { metadata: { name: 'x' } },
      {
        metadata: { labels: { a: '1', b: null } },
        spec: {
          containers: [
            {
              name: 'c',
              env: [
                { name: 'E', $patch: 'delete' },
                { name: 'F', value: 'f' },
              ],
            },
          ],
        },
      },
    ) as JsonObject;
    assert.deepEqual(out, {
      metadata: { name: 'x', labels: { a: '1' } },
      spec: { containers: [{ name: 'c', env: [{ name: 'F', value: 'f' }] }] },
    });
  });

  it('a value of another type replaces the original', () => {
    const out = smp(
      { spec: { x: [1], y: { a: 1 }, z: 'a' } },
      { spec: { x: { b: 2 }, y: 'now', z: [1] } },
    ) as JsonObject;
    assert.deepEqual(out, { spec: { x: { b: 2 }, y: 'now', z: [1] } });
  });

  it('errors: not an object, missing merge key, list of lists', () => {
    assertApiError(() => smp(basePod, [1]), 400, 'BadRequest');
    assertApiError(
      () => smp(basePod, { spec: { containers: [{ image: 'no-name' }] } }),
      400,
      'BadRequest',
      'does not contain declared merge key: name',
    );
    assertApiError(
      () => smp({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [['b']] } }),
      422,
      'Invalid',
    );
    assertApiError(
      () => smp({ metadata: { finalizers: ['a'] } }, { metadata: { finalizers: [1] } }),
      400,
      'BadRequest',
    );
  });

  it('listStrategy table', () => {
    assert.deepEqual(listStrategy('Pod', ['spec', 'containers']), { type: 'mergeByKey', key: 'name' });
    assert.deepEqual(listStrategy('Deployment', ['spec', 'template', 'spec', 'initContainers', 'ports']), {
      type: 'mergeByKey',
      key: 'containerPort',
    });
    assert.deepEqual(listStrategy('Service', ['spec', 'ports']), { type: 'mergeByKey', key: 'port' });
    assert.deepEqual(listStrategy('EndpointSlice', ['ports']), { type: 'replace' });
    assert.deepEqual(listStrategy('Namespace', ['spec', 'finalizers']), { type: 'replace' });
    assert.deepEqual(listStrategy('Pod', ['metadata', 'finalizers']), { type: 'mergePrimitives' });
    assert.deepEqual(listStrategy('Pod', ['spec', 'tolerations']), { type: 'replace' });
    assert.deepEqual(listStrategy('Node', ['status', 'addresses']), { type: 'mergeByKey', key: 'type' });
  });

  it('property: on documents without lists it agrees with JSON merge patch', () => {
    const { obj } = fc.letrec<{ obj: Json }>((tie) => ({
      obj: fc.dictionary(
        fc.constantFrom('a', 'b', 'c', 'spec', 'metadata'),
        fc.oneof({ depthSize: 'small' }, scalar, fc.constant(null), tie('obj')),
        { maxKeys: 4, noNullPrototype: true },
      ) as fc.Arbitrary<Json>,
    }));
    fc.assert(
      fc.property(obj, obj, (a, p) => {
        assert.deepEqual(smp(a, p), mergePatch(a, p));
      }),
    );
  });

  it('property: container patches merge by name and are idempotent', () => {
    const container = fc.record({
      name: fc.constantFrom('a', 'b', 'c', 'd'),
      image: fc.constantFrom('i:1', 'i:2'),
      env: fc.uniqueArray(
        fc.record({ name: fc.constantFrom('X', 'Y', 'Z'), value: fc.constantFrom('1', '2') }),
        {
          selector: (e) => e.name,
          maxLength: 3,
        },
      ),
    });
    const containers = fc.uniqueArray(container, { selector: (c) => c.name, maxLength: 4 });
    fc.assert(
      fc.property(containers, containers, (orig, patchList) => {
        const original = { spec: { containers: orig } } as unknown as Json;
        const patch = { spec: { containers: patchList } } as unknown as Json;
        const once = smp(original, patch) as { spec: { containers: { name: string; image: string }[] } };
        const names = once.spec.containers.map((c) => c.name);
        assert.equal(new Set(names).size, names.length, 'no duplicate names');
        assert.deepEqual(new Set(names), new Set([...orig, ...patchList].map((c) => c.name)));
        for (const pc of patchList) {
          assert.equal(once.spec.containers.find((c) => c.name === pc.name)!.image, pc.image);
        }
        assert.deepEqual(smp(once, patch), once);
      }),
    );
  });
});
