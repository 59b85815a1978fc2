// The protobuf encoder against the decoder (protobuf.ts): what a protobuf watch carries of a Pod or a Status
// decodes back to its JSON, but for what protobuf cannot carry; and the bytes follow gogo's conventions.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeKubeProtobuf, decodeProtobufMessage } from './protobuf.ts';
import { KINDS } from './protobuf-schemas.ts';
import {
  encodeKubeProtobuf,
  encodeProtobufMessage,
  protobufMessage,
  watchEventFrame,
} from './protobuf-encode.ts';
import type { JsonObject } from './types.ts';
import { fieldBytes as bytesOf, protobufFields as fields } from '../../test/unit-support/protobuf-fields.ts';

/** The `k8s\0` envelope: typeMeta, raw, and every field's number in wire order. */
function unwrap(buf: Buffer): { apiVersion: string; kind: string; raw: Buffer; numbers: number[] } {
  assert.deepEqual([...buf.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00]);
  const unknown = fields(buf.subarray(4));
  const typeMeta = fields(bytesOf(unknown, 1));
  return {
    apiVersion: bytesOf(typeMeta, 1).toString(),
    kind: bytesOf(typeMeta, 2).toString(),
    raw: bytesOf(unknown, 2),
    numbers: unknown.map(([n]) => n),
  };
}

const fieldsV1 = {
  'f:metadata': { 'f:labels': { '.': {}, 'f:app': {} } },
  'f:spec': { 'f:containers': { 'k:{"name":"web"}': { '.': {}, 'f:image': {} } } },
};

/** A running pod as kube-sim stores one, with most of what a Pod carries. */
const running: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name: 'web-7d9f8-abcde',
    generateName: 'web-7d9f8-',
    namespace: 'shop',
    uid: '8f1e5a2c-0000-4000-8000-000000000001',
    resourceVersion: '4711',
    generation: 2,
    creationTimestamp: '2024-05-01T10:00:00Z',
    deletionTimestamp: '2024-05-01T11:00:30Z',
    deletionGracePeriodSeconds: 30,
    labels: { app: 'web', 'pod-template-hash': '7d9f8', tier: 'front' },
    annotations: { 'podset.example.com/revision': '3', 'kubernetes.io/psp': 'x' },
    ownerReferences: [
      {
        apiVersion: 'apps/v1',
        kind: 'ReplicaSet',
        name: 'web-7d9f8',
        uid: '8f1e5a2c-0000-4000-8000-000000000002',
        controller: true,
        blockOwnerDeletion: true,
      },
    ],
    finalizers: ['podset.example.com/cleanup', 'example.com/other'],
    managedFields: [
      {
        manager: 'kube-controller-manager',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2024-05-01T10:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1,
      },
      {
        manager: 'kubelet',
        operation: 'Update',
        apiVersion: 'v1',
        time: '2024-05-01T10:00:05Z',
        fieldsType: 'FieldsV1',
        fieldsV1: { 'f:status': { 'f:phase': {} } },
        subresource: 'status',
      },
    ],
  },
  spec: {
    volumes: [
      { name: 'config', configMap: { name: 'web-config', defaultMode: 420 } },
      { name: 'scratch', emptyDir: {} },
    ],
    containers: [
      {
        name: 'web',
        image: 'nginx:1.27',
        command: ['nginx'],
        args: ['-g', 'daemon off;'],
        ports: [{ name: 'http', containerPort: 80, protocol: 'TCP' }],
        env: [
          { name: 'MODE', value: 'prod' },
          { name: 'POD', valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } } },
        ],
        resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m', memory: '64Mi' } },
        volumeMounts: [{ name: 'config', readOnly: true, mountPath: '/etc/web' }],
        readinessProbe: {
          httpGet: { path: '/healthz', port: 'http', scheme: 'HTTP' },
          initialDelaySeconds: 1,
          timeoutSeconds: 1,
          periodSeconds: 10,
          successThreshold: 1,
          failureThreshold: 3,
        },
        livenessProbe: {
          tcpSocket: { port: 80 },
          timeoutSeconds: 1,
          periodSeconds: 10,
          successThreshold: 1,
          failureThreshold: 3,
        },
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        imagePullPolicy: 'IfNotPresent',
        securityContext: { runAsNonRoot: true, runAsUser: 1000 },
      },
    ],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    serviceAccountName: 'default',
    serviceAccount: 'default',
    nodeName: 'node-1',
    securityContext: {},
    schedulerName: 'default-scheduler',
    tolerations: [
      {
        key: 'node.kubernetes.io/not-ready',
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      },
      { key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' },
    ],
    priority: 0,
    enableServiceLinks: true,
    preemptionPolicy: 'PreemptLowerPriority',
  },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'PodScheduled', status: 'True', lastTransitionTime: '2024-05-01T10:00:00Z' },
      {
        type: 'Ready',
        status: 'False',
        lastTransitionTime: '2024-05-01T10:00:07Z',
        reason: 'ContainersNotReady',
        message: 'containers with unready status: [web]',
      },
    ],
    hostIP: '10.0.0.11',
    hostIPs: [{ ip: '10.0.0.11' }],
    podIP: '10.244.1.17',
    podIPs: [{ ip: '10.244.1.17' }, { ip: 'fd00::17' }],
    startTime: '2024-05-01T10:00:01Z',
    containerStatuses: [
      {
        name: 'web',
        state: { running: { startedAt: '2024-05-01T10:00:06Z' } },
        lastState: {
          terminated: {
            exitCode: -1,
            reason: 'Error',
            startedAt: '2024-05-01T10:00:02Z',
            finishedAt: '2024-05-01T10:00:05Z',
            containerID: 'containerd://aaa',
          },
        },
        ready: true,
        restartCount: 1,
        image: 'docker.io/library/nginx:1.27',
        imageID: 'docker.io/library/nginx@sha256:0123',
        containerID: 'containerd://bbb',
        started: true,
      },
    ],
    qosClass: 'Burstable',
  },
};

test('a running pod: decode(encode(pod)) is its JSON', () => {
  const buf = encodeKubeProtobuf(running, 'Pod');
  const env = unwrap(buf);
  assert.deepEqual(env.numbers, [1, 2, 3, 4], 'typeMeta, raw, contentEncoding, contentType');
  assert.equal(env.apiVersion, 'v1');
  assert.equal(env.kind, 'Pod');
  assert.deepEqual(decodeKubeProtobuf(buf), running);
  const { metadata, spec, status } = running;
  assert.deepEqual(decodeProtobufMessage(env.raw, 'Pod'), { metadata, spec, status });
});

test('what protobuf cannot carry: zeros of non-pointer fields, empty lists and maps, unknown fields', () => {
  const pending: JsonObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'p',
      namespace: 'default',
      creationTimestamp: '2024-05-01T10:00:00Z',
      deletionGracePeriodSeconds: 0, // a pointer: its 0 is sent
      labels: {},
      finalizers: [],
    },
    spec: {
      containers: [{ name: 'c', image: 'busybox', stdin: false, resources: {} }],
      hostNetwork: false,
      priority: 0,
      notAField: 'x',
    },
    status: {
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          lastProbeTime: null,
          lastTransitionTime: '2024-05-01T10:00:00Z',
        },
      ],
      containerStatuses: [
        {
          name: 'c',
          state: { waiting: { reason: 'ContainerCreating' } },
          lastState: {},
          ready: false,
          restartCount: 0,
          image: 'busybox',
          imageID: '',
          started: false, // a pointer: its false is sent
        },
      ],
      qosClass: 'BestEffort',
    },
  };
  const decoded = decodeKubeProtobuf(encodeKubeProtobuf(pending, 'Pod'));
  assert.deepEqual(decoded, {
    apiVersion: 'v1',
    kind: 'Pod',
    // Empty lists and maps are not on the wire (Go's len() > 0 guards); a zero of a non-pointer field is
    // on it but reads as unset; a field the schema lacks is dropped.
    metadata: {
      name: 'p',
      namespace: 'default',
      creationTimestamp: '2024-05-01T10:00:00Z',
      deletionGracePeriodSeconds: 0,
    },
    spec: { containers: [{ name: 'c', image: 'busybox', resources: {} }], priority: 0 },
    status: {
      phase: 'Pending',
      // A zero time (null in JSON) reads as absent.
      conditions: [{ type: 'PodScheduled', status: 'False', lastTransitionTime: '2024-05-01T10:00:00Z' }],
      containerStatuses: [
        {
          name: 'c',
          state: { waiting: { reason: 'ContainerCreating' } },
          lastState: {},
          image: 'busybox',
          started: false,
        },
      ],
      qosClass: 'BestEffort',
    },
  });
});

test('the bytes are what gogo writes: ascending fields, non-pointer zeros present, sorted map keys', () => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a' }, data: { z: '1', b: '' } };
  const raw = unwrap(encodeKubeProtobuf(cm, 'ConfigMap')).raw;
  const s = (t: number, text: string) => [t, text.length, ...Buffer.from(text)];
  const meta = [
    ...s(0x0a, 'a'),
    ...s(0x12, ''),
    ...s(0x1a, ''),
    ...s(0x22, ''),
    ...s(0x2a, ''),
    ...s(0x32, ''),
  ];
  meta.push(0x38, 0, 0x42, 0); // generation 0, creationTimestamp: an empty Time
  const entry = (k: string, v: string) => [0x12, 2 + k.length + 2 + v.length, ...s(0x0a, k), ...s(0x12, v)];
  assert.deepEqual([...raw], [0x0a, meta.length, ...meta, ...entry('b', ''), ...entry('z', '1')]);

  // A negative int64 is ten bytes of two's complement; a time is seconds then nanos (0 for metav1.Time).
  const t = fields(
    encodeProtobufMessage({ exitCode: -1, startedAt: '1970-01-01T00:01:40Z' }, 'ContainerStateTerminated'),
  );
  assert.deepEqual(
    t.map(([n]) => n),
    [1, 2, 3, 4, 5, 6, 7],
    'every field of ContainerStateTerminated is a non-pointer one',
  );
  assert.equal(bytesOf(t, 6).length, 0, 'finishedAt: the zero time, an empty message');
  const buf = encodeProtobufMessage({ exitCode: -1 }, 'ContainerStateTerminated');
  assert.deepEqual([...buf.subarray(0, 11)], [0x08, ...Array(9).fill(0xff), 0x01]);
  assert.deepEqual(fields(bytesOf(t, 5)), [
    [1, 0, 100n],
    [2, 0, 0n],
  ]);
  // IntOrString: type, intVal and strVal all written.
  assert.deepEqual(fields(bytesOf(fields(encodeProtobufMessage({ port: 'http' }, 'TCPSocketAction')), 1)), [
    [1, 0, 1n],
    [2, 0, 0n],
    [3, 2, Buffer.from('http')],
  ]);
});

test('a MicroTime keeps its microseconds (a Lease), a metav1.Time its seconds only', () => {
  const lease = {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: { name: 'l', namespace: 'kube-system' },
    spec: { holderIdentity: 'a', leaseDurationSeconds: 15, renewTime: '2024-05-01T10:00:00.123456Z' },
  };
  assert.deepEqual(decodeKubeProtobuf(encodeKubeProtobuf(lease, 'Lease')), lease);
  const late = { ...lease, metadata: { ...lease.metadata, creationTimestamp: '2024-05-01T10:00:00.5Z' } };
  assert.equal(
    (decodeKubeProtobuf(encodeKubeProtobuf(late, 'Lease')).metadata as JsonObject).creationTimestamp,
    '2024-05-01T10:00:00Z',
  );
});

test('every built-in kind encodes, down to each nested message its non-pointer fields bring in (a bookmark)', () => {
  for (const [key, message] of Object.entries(KINDS)) {
    const slash = key.indexOf('/');
    const bookmark = {
      apiVersion: slash === 0 ? 'v1' : `${key.slice(0, slash)}/v1`,
      kind: key.slice(slash + 1),
      metadata: { resourceVersion: '42' },
    };
    const decoded = decodeKubeProtobuf(encodeKubeProtobuf(bookmark, message));
    assert.deepEqual(decoded.metadata, { resourceVersion: '42' }, key);
  }
});

test('strings of any length and script; messages longer than 127 bytes (a wider length prefix)', () => {
  const cm = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'x', annotations: { a: 'ß'.repeat(70), b: 'x'.repeat(127), c: 'y'.repeat(20_000) } },
    data: { smile: '\u{1F600}', é: 'z'.repeat(128) },
  };
  assert.deepEqual(decodeKubeProtobuf(encodeKubeProtobuf(cm, 'ConfigMap')), cm);
});

test('a Status (an ERROR event) round-trips', () => {
  const gone = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'too old resource version: 5 (9)',
    reason: 'Expired',
    code: 410,
  };
  const env = unwrap(encodeKubeProtobuf(gone, 'Status'));
  assert.equal(env.apiVersion, 'v1');
  assert.equal(env.kind, 'Status');
  assert.deepEqual({ kind: 'Status', apiVersion: 'v1', ...decodeProtobufMessage(env.raw, 'Status') }, gone);
  const invalid = {
    status: 'Failure',
    message: 'Pod "x" is invalid',
    reason: 'Invalid',
    details: {
      name: 'x',
      kind: 'pods',
      causes: [{ reason: 'FieldValueRequired', message: 'Required value', field: 'spec.containers' }],
      retryAfterSeconds: 3,
    },
    code: 422,
  };
  assert.deepEqual(decodeProtobufMessage(encodeProtobufMessage(invalid, 'Status'), 'Status'), {
    ...invalid,
    metadata: {}, // ListMeta is not a pointer: always on the wire
  });
});

test('a watch frame: 4-byte length, WatchEvent{type, RawExtension{raw}}', () => {
  for (const size of [10, 200, 70_000]) {
    const object = Buffer.alloc(size, 7);
    const frame = watchEventFrame('MODIFIED', object);
    assert.equal(frame.readUInt32BE(0), frame.length - 4);
    const ev = fields(frame.subarray(4));
    assert.deepEqual(
      ev.map(([n]) => n),
      [1, 2],
    );
    assert.equal(bytesOf(ev, 1).toString(), 'MODIFIED');
    assert.deepEqual(bytesOf(fields(bytesOf(ev, 2)), 1), object);
  }
});

test('which types have a protobuf message: built-in kinds in their schema version, never a custom resource', () => {
  assert.equal(protobufMessage({ group: '', version: 'v1', kind: 'Pod' }), 'Pod');
  assert.equal(protobufMessage({ group: 'apps', version: 'v1', kind: 'Deployment' }), 'Deployment');
  assert.equal(
    protobufMessage({ group: 'autoscaling', version: 'v2', kind: 'HorizontalPodAutoscaler' }),
    'HorizontalPodAutoscaler',
  );
  assert.equal(protobufMessage({ group: 'podset.example.com', version: 'v1', kind: 'PodSet' }), undefined);
  assert.equal(protobufMessage({ group: 'apps', version: 'v1beta1', kind: 'Deployment' }), undefined);
});
