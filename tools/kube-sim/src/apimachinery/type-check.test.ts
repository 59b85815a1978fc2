import assert from 'node:assert/strict';
import { test } from 'node:test';
import { typeViewOf } from '../fieldmanager/field-types.ts';
import { QUANTITY_FORMAT_ERROR } from './quantity.ts';
import { builtinTypes } from '../registry/rest/resources.ts';
import {
  convertError,
  firstDecodeError,
  goValue,
  typedError,
  typeMismatches,
  type TypeMismatch,
} from './type-check.ts';
import type { Json, JsonObject } from './types.ts';

const DEPLOYMENT = { group: 'apps', version: 'v1', kind: 'Deployment' };
const deploymentType = builtinTypes().find((t) => t.group === 'apps' && t.kind === 'Deployment');

/** A valid Deployment with `container` merged into its one container and `spec` into its spec. */
function deployment(
  container: JsonObject = {},
  spec: JsonObject = {},
  metadata: JsonObject = {},
): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd', labels: { app: 'd' }, ...metadata },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'd' } },
      template: {
        metadata: { labels: { app: 'd' } },
        spec: { containers: [{ name: 'c', image: 'i', ...container }] },
      },
      ...spec,
    },
  };
}

const decode = (obj: JsonObject): string | undefined =>
  firstDecodeError(typeMismatches(DEPLOYMENT, obj, { limit: 50 }));
const all = (obj: JsonObject): TypeMismatch[] => typeMismatches(DEPLOYMENT, obj, { limit: 50 });
const field = (struct: string, path: string, type: string) =>
  `Go struct field ${struct}.${path} of type ${type}`;
const CONTAINER = 'spec.template.spec.containers';

test('a valid object decodes: strings, numbers, lists, maps, int-or-strings and quantities of either form', () => {
  assert.equal(decode(deployment()), undefined);
  const rich = deployment(
    {
      command: ['redis-server', '--appendonly', 'yes'],
      ports: [{ containerPort: 6379, protocol: 'TCP' }],
      resources: { limits: { cpu: 1, memory: '1Gi' }, requests: { cpu: '250m', memory: 0.5 } },
      readinessProbe: { tcpSocket: { port: 'redis' }, periodSeconds: 5 },
      livenessProbe: { httpGet: { path: '/', port: 8080 } },
    },
    { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } } },
    { annotations: { a: 'b' }, creationTimestamp: '2026-01-01T00:00:00Z' },
  );
  assert.equal(decode(rich), undefined);
});

test('a scalar of the wrong JSON type for a string field is refused in Go decoder words, naming the struct and path', () => {
  const at = field('Container', `${CONTAINER}.command`, 'string');
  assert.equal(decode(deployment({ command: ['a', true] })), `json: cannot unmarshal bool into ${at}`);
  assert.equal(
    decode(deployment({ image: 5 })),
    `json: cannot unmarshal number into ${field('Container', `${CONTAINER}.image`, 'string')}`,
  );
  assert.equal(
    decode(deployment({ image: {} })),
    `json: cannot unmarshal object into ${field('Container', `${CONTAINER}.image`, 'string')}`,
  );
  assert.equal(
    decode(deployment({ image: ['i'] })),
    `json: cannot unmarshal array into ${field('Container', `${CONTAINER}.image`, 'string')}`,
  );
});

test('the reverse: strings, fractions and out-of-range numbers where integers or booleans belong', () => {
  const replicas = field('DeploymentSpec', 'spec.replicas', 'int32');
  assert.equal(decode(deployment({}, { replicas: '3' })), `json: cannot unmarshal string into ${replicas}`);
  assert.equal(
    decode(deployment({}, { replicas: 1.5 })),
    `json: cannot unmarshal number 1.5 into ${replicas}`,
  );
  assert.equal(
    decode(deployment({}, { replicas: 2 ** 31 })),
    `json: cannot unmarshal number 2147483648 into ${replicas}`,
  );
  assert.equal(
    decode(deployment({}, { paused: 'true' })),
    `json: cannot unmarshal string into ${field('DeploymentSpec', 'spec.paused', 'bool')}`,
  );
  // Go's int64 fields are named as such, and take what an int32 cannot.
  const grace = { template: { spec: { terminationGracePeriodSeconds: 'x', containers: [] } } };
  assert.equal(
    decode(deployment({}, grace)),
    `json: cannot unmarshal string into ${field('PodSpec', 'spec.template.spec.terminationGracePeriodSeconds', 'int64')}`,
  );
  assert.equal(
    decode(deployment({}, { template: { spec: { terminationGracePeriodSeconds: 2 ** 40 } } })),
    undefined,
  );
});

test('lists, objects and maps: the wrong container shape is refused by its Go type', () => {
  assert.equal(
    decode(deployment({ command: 'redis-server' })),
    `json: cannot unmarshal string into ${field('Container', `${CONTAINER}.command`, '[]string')}`,
  );
  assert.equal(
    decode(deployment({}, { template: { spec: { containers: { name: 'c' } } } })),
    `json: cannot unmarshal object into ${field('PodSpec', CONTAINER, '[]v1.Container')}`,
  );
  assert.equal(
    decode(deployment({}, { template: { spec: { containers: ['c'] } } })),
    `json: cannot unmarshal string into ${field('PodSpec', CONTAINER, 'v1.Container')}`,
  );
  assert.equal(
    decode(deployment({}, { template: [] })),
    `json: cannot unmarshal array into ${field('DeploymentSpec', 'spec.template', 'v1.PodTemplateSpec')}`,
  );
  assert.equal(
    decode(deployment({}, { template: { spec: { containers: [], nodeSelector: ['a'] } } })),
    `json: cannot unmarshal array into ${field('PodSpec', 'spec.template.spec.nodeSelector', 'map[string]string')}`,
  );
  assert.equal(
    decode(deployment({ resources: { limits: [] } })),
    `json: cannot unmarshal array into ${field('ResourceRequirements', `${CONTAINER}.resources.limits`, 'v1.ResourceList')}`,
  );
});

test('map values: labels and annotations must be strings; a map key is not part of the field path', () => {
  assert.equal(
    decode(deployment({}, {}, { labels: { app: 'd', enabled: true } })),
    `json: cannot unmarshal bool into ${field('ObjectMeta', 'metadata.labels', 'string')}`,
  );
  assert.equal(
    decode(deployment({}, {}, { annotations: { replicas: 3 } })),
    `json: cannot unmarshal number into ${field('ObjectMeta', 'metadata.annotations', 'string')}`,
  );
  assert.equal(
    decode(deployment({}, { template: { metadata: { labels: { on: true } }, spec: { containers: [] } } })),
    `json: cannot unmarshal bool into ${field('ObjectMeta', 'spec.template.metadata.labels', 'string')}`,
  );
});

test('nested lists: an item of a list inside a list item is named by the whole path, without indices', () => {
  assert.equal(
    decode(deployment({ ports: [{ containerPort: 80 }, { containerPort: '8080' }] })),
    `json: cannot unmarshal string into ${field('ContainerPort', `${CONTAINER}.ports.containerPort`, 'int32')}`,
  );
  assert.equal(
    decode(
      deployment({
        env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k', optional: 'no' } } }],
      }),
    ),
    `json: cannot unmarshal string into ${field('SecretKeySelector', `${CONTAINER}.env.valueFrom.secretKeyRef.optional`, 'bool')}`,
  );
});

test('int-or-string takes a string or an int32 and refuses the rest in IntOrString words', () => {
  const surge = (maxSurge: Json) =>
    decode(deployment({}, { strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge } } }));
  assert.equal(surge('25%'), undefined);
  assert.equal(surge(2), undefined);
  assert.equal(surge(true), 'json: cannot unmarshal bool into Go value of type int32');
  assert.equal(surge({}), 'json: cannot unmarshal object into Go value of type int32');
  assert.equal(surge(1.5), 'json: cannot unmarshal number 1.5 into Go value of type int32');
  assert.equal(
    decode(deployment({ readinessProbe: { httpGet: { port: [80] } } })),
    'json: cannot unmarshal array into Go value of type int32',
  );
});

test('a quantity takes a string or a number that parses, and refuses the rest in resource.Quantity words', () => {
  const cpu = (v: Json) => decode(deployment({ resources: { requests: { cpu: v } } }));
  assert.equal(cpu('100m'), undefined);
  assert.equal(cpu(2), undefined);
  assert.equal(cpu(0.25), undefined);
  assert.equal(cpu(true), QUANTITY_FORMAT_ERROR);
  assert.equal(cpu({}), QUANTITY_FORMAT_ERROR);
  assert.equal(cpu('lots'), QUANTITY_FORMAT_ERROR);
});

test('JSON null decodes into any field (the zero value), in lists and maps too', () => {
  assert.equal(
    decode(deployment({ command: null, args: ['a', null], image: null }, { replicas: null })),
    undefined,
  );
  assert.equal(
    decode(deployment({ resources: { limits: { cpu: null } } }, {}, { labels: { a: null } })),
    undefined,
  );
  assert.equal(
    decode(deployment({}, { template: null, strategy: { rollingUpdate: { maxSurge: null } } })),
    undefined,
  );
  assert.equal(decode(deployment({}, {}, { creationTimestamp: null })), undefined);
});

test('the first mismatch in document order is reported, but a type with its own decoder stops decoding at once', () => {
  assert.equal(all(deployment({ image: 1, command: [true] })).length, 2);
  assert.match(decode(deployment({ image: 1, command: [true] })) ?? '', /containers\.image of type string/);
  // Go saves the first plain type error and goes on; an UnmarshalJSON error (here a Time's) ends it.
  assert.equal(
    decode(deployment({ image: 1 }, {}, { creationTimestamp: 5 })),
    'json: cannot unmarshal number into Go value of type string',
  );
});

test('unknown fields are not type errors, and kinds kube-sim has no types of are not checked', () => {
  assert.equal(decode(deployment({ imagee: 5 }, { foo: true })), undefined);
  assert.deepEqual(typeMismatches({ group: 'example.com', version: 'v1', kind: 'Widget' }, { spec: 1 }), []);
});

test('a strategic merge patch result is worded by the unstructured converter', () => {
  const one = (obj: JsonObject) => convertError(all(obj)[0] as TypeMismatch);
  assert.equal(
    one(deployment({ command: ['a', true] })),
    'json: cannot unmarshal bool into Go value of type string',
  );
  assert.equal(one(deployment({ image: 5 })), 'cannot convert int64 to string');
  assert.equal(one(deployment({}, { replicas: 1.5 })), 'cannot convert float64 to int32');
  assert.equal(
    one(deployment({}, { replicas: 'x' })),
    'json: cannot unmarshal string into Go value of type int32',
  );
  assert.equal(one(deployment({ command: 'x' })), 'cannot restore slice from string');
  assert.equal(one(deployment({}, { template: [] })), 'cannot restore struct from: slice');
  assert.equal(one(deployment({ resources: { limits: 'x' } })), 'cannot restore map from string');
  // The converter narrows an int64 to an int32 without a word.
  assert.equal(convertError(all(deployment({}, { replicas: 2 ** 31 }))[0] as TypeMismatch), undefined);
});

test('an applied configuration is worded by structured-merge-diff, list items named by their keys', () => {
  assert.ok(deploymentType);
  const view = typeViewOf(deploymentType, false);
  const typed = (obj: JsonObject) =>
    typeMismatches(DEPLOYMENT, obj, { view, limit: 50 })
      .map(typedError)
      .filter((e) => e !== undefined);
  assert.deepEqual(typed(deployment({ command: ['redis-server', true] })), [
    '.spec.template.spec.containers[name="c"].command[1]: expected string, got &value.valueUnstructured{Value:true}',
  ]);
  assert.deepEqual(typed(deployment({ ports: [{ containerPort: '80' }] })), [
    '.spec.template.spec.containers[name="c"].ports[containerPort="80",protocol="TCP"].containerPort: expected numeric (int or float), got string',
  ]);
  assert.deepEqual(typed(deployment({}, { paused: 'yes' })), ['.spec.paused: expected boolean, got &{yes}']);
  assert.deepEqual(typed(deployment({ command: 'x' })), [
    '.spec.template.spec.containers[name="c"].command: expected list, got &{x}',
  ]);
  assert.deepEqual(typed(deployment({}, {}, { labels: { a: 1 } })), [
    '.metadata.labels.a: expected string, got &value.valueUnstructured{Value:1}',
  ]);
  // Integers where a number belongs, and any scalar for int-or-string and quantity, are its business no more.
  assert.deepEqual(typed(deployment({ resources: { limits: { cpu: true } } }, { replicas: 1.5 })), []);
  const undeclared: string[] = [];
  typeMismatches(DEPLOYMENT, deployment({ imagee: 'x' }, { foo: 1 }), { view, undeclared });
  assert.deepEqual(undeclared, ['.spec.template.spec.containers[name="c"].imagee', '.spec.foo']);
});

test('goValue prints as Go prints a map (keys sorted), for a strategic patch in a refusal', () => {
  assert.equal(goValue({ spec: { b: [1, 'x', true], a: null } }), 'map[spec:map[a:<nil> b:[1 x true]]]');
});
