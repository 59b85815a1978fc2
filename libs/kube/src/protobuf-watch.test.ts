// The protobuf watch reader on bytes built here field by field (the wire format of kubernetes/api's
// generated.proto, as gogo-protobuf writes it: empty strings and zero numbers written, fields any order
// a reader must accept), and a watch through the request layer against a scripted HTTP server.
// test/protobuf-watch-kube-sim.test.ts reads what Go's own encoder (kubectl) and kube-sim write.
import type { KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createKube, ProtobufDecodeError } from './index.ts';
import { decodeProtobufObject, decodeWatchFrame, FrameSplitter } from './protobuf-watch.ts';
import { kubeConfigFor } from './kubeconfig.ts';

// --- a protobuf writer, for the test's bytes -------------------------------------------------------------
function varint(n: number | bigint): Buffer {
  let v = BigInt.asUintN(64, BigInt(n));
  const out: number[] = [];
  while (v >= 0x80n) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return Buffer.from(out);
}
const tag = (field: number, wire: number) => varint(field * 8 + wire);
const bytes = (field: number, b: Uint8Array) => Buffer.concat([tag(field, 2), varint(b.length), b]);
const str = (field: number, s: string) => bytes(field, Buffer.from(s, 'utf8'));
const num = (field: number, n: number | bigint) => Buffer.concat([tag(field, 0), varint(n)]);
const msg = (field: number, ...parts: Buffer[]) => bytes(field, Buffer.concat(parts));
const time = (field: number, seconds: number, nanos = 0) =>
  msg(field, ...(seconds !== 0 ? [num(1, seconds)] : []), ...(nanos !== 0 ? [num(2, nanos)] : []));
const entry = (field: number, key: string, value: string) => msg(field, str(1, key), str(2, value));
/** Fields a reader steps over: a fixed64, a fixed32, a varint and a message of an unknown number. */
const unknown = () =>
  Buffer.concat([
    tag(90, 1),
    Buffer.alloc(8, 7),
    tag(91, 5),
    Buffer.alloc(4, 9),
    num(92, 123456789),
    msg(93, str(1, 'x')),
  ]);

function embedded(apiVersion: string, kind: string, raw: Buffer): Buffer {
  const unknownMsg = Buffer.concat([
    msg(1, str(1, apiVersion), str(2, kind)),
    bytes(2, raw),
    str(3, ''),
    str(4, ''),
  ]);
  return Buffer.concat([Buffer.from('k8s\0', 'latin1'), unknownMsg]);
}
const watchEvent = (type: string, object: Buffer) => Buffer.concat([str(1, type), msg(2, bytes(1, object))]);
function frame(body: Buffer): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt32BE(body.length);
  return Buffer.concat([head, body]);
}

const T1 = Date.UTC(2026, 11, 7, 15, 13, 34) / 1000;
const T2 = Date.UTC(2026, 11, 7, 15, 13, 40) / 1000;

/** A pod after its kubelet's writes, every field the reader decodes set, and much it steps over. */
const podBytes = Buffer.concat([
  msg(
    1,
    str(1, 'web-x7k2q'),
    str(2, 'web-'),
    str(3, 'shop'),
    str(5, 'uid-1'),
    str(6, '4711'),
    num(7, 0), // written by gogo, omitted by JSON
    time(8, T1, 123456789), // nanos: JSON's RFC 3339 has none
    time(9, T2),
    num(10, 30),
    entry(11, 'podset.io/name', 'web'),
    entry(11, 'pod-template-hash', 'abc'),
    entry(12, 'note', 'héllo\ttab'),
    msg(
      13,
      str(1, 'PodSet'),
      str(3, 'web'),
      str(4, 'owner-uid'),
      str(5, 'podset.io/v1'),
      num(6, 1),
      num(7, 0),
    ),
    str(14, 'podset.io/protect'),
    msg(17, str(1, 'kubelet'), str(2, 'Update'), msg(7, bytes(1, Buffer.from('{"f:status":{}}')))),
    unknown(),
  ),
  msg(2, msg(2, str(1, 'app'), str(2, 'nginx')), str(3, 'Always'), str(10, 'node-3'), unknown()),
  msg(
    3,
    str(1, 'Running'),
    msg(2, str(1, 'Ready'), str(2, 'True'), time(3, 0), time(4, T2), str(5, ''), str(6, '')),
    msg(
      2,
      str(1, 'PodScheduled'),
      str(2, 'True'),
      time(4, T1),
      str(5, 'Scheduled'),
      str(6, 'on node-3'),
      num(7, 2),
    ),
    str(6, '10.0.0.7'),
    msg(8, str(1, 'app'), num(4, 1)),
    unknown(),
  ),
]);

const podJson = {
  kind: 'Pod',
  apiVersion: 'v1',
  metadata: {
    name: 'web-x7k2q',
    generateName: 'web-',
    namespace: 'shop',
    uid: 'uid-1',
    resourceVersion: '4711',
    creationTimestamp: '2026-12-07T15:13:34Z',
    deletionTimestamp: '2026-12-07T15:13:40Z',
    deletionGracePeriodSeconds: 30,
    labels: { 'podset.io/name': 'web', 'pod-template-hash': 'abc' },
    annotations: { note: 'héllo\ttab' },
    ownerReferences: [
      {
        apiVersion: 'podset.io/v1',
        kind: 'PodSet',
        name: 'web',
        uid: 'owner-uid',
        controller: true,
        blockOwnerDeletion: false,
      },
    ],
    finalizers: ['podset.io/protect'],
  },
  spec: { nodeName: 'node-3' },
  status: {
    phase: 'Running',
    conditions: [
      { type: 'Ready', status: 'True', lastTransitionTime: '2026-12-07T15:13:40Z' }, // the zero lastProbeTime left out
      {
        type: 'PodScheduled',
        status: 'True',
        lastTransitionTime: '2026-12-07T15:13:34Z',
        reason: 'Scheduled',
        message: 'on node-3',
        observedGeneration: 2,
      },
    ],
  },
};

test('a pod event: its metadata without managedFields, node, phase and conditions, the rest stepped over', () => {
  const event = decodeWatchFrame(watchEvent('MODIFIED', embedded('v1', 'Pod', podBytes)));
  assert.deepEqual(event, { type: 'MODIFIED', object: podJson });
});

test('a BOOKMARK: a pod of a resourceVersion alone', () => {
  const pod = Buffer.concat([msg(1, str(6, '9000'), entry(12, 'k8s.io/initial-events-end', 'true'))]);
  assert.deepEqual(decodeWatchFrame(watchEvent('BOOKMARK', embedded('v1', 'Pod', pod))), {
    type: 'BOOKMARK',
    object: {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: { resourceVersion: '9000', annotations: { 'k8s.io/initial-events-end': 'true' } },
    },
  });
});

const expiredStatus = Buffer.concat([
  msg(1, str(2, '')),
  str(2, 'Failure'),
  str(3, 'too old resource version: 5 (4711)'),
  str(4, 'Expired'),
  msg(5, str(1, ''), msg(4, str(1, 'ResourceVersionTooLarge'), str(2, 'too large'), str(3, '')), num(5, 2)),
  num(6, 410),
]);

test('an ERROR: its Status as JSON carries it (code, reason, message, details)', () => {
  assert.deepEqual(decodeWatchFrame(watchEvent('ERROR', embedded('v1', 'Status', expiredStatus))), {
    type: 'ERROR',
    object: {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'too old resource version: 5 (4711)',
      reason: 'Expired',
      details: {
        causes: [{ reason: 'ResourceVersionTooLarge', message: 'too large' }],
        retryAfterSeconds: 2,
      },
      code: 410,
    },
  });
});

test('frames split anywhere between chunks come out whole, in order', () => {
  const stream = Buffer.concat([
    frame(watchEvent('ADDED', embedded('v1', 'Pod', podBytes))),
    frame(watchEvent('MODIFIED', embedded('v1', 'Pod', podBytes))),
    frame(watchEvent('ERROR', embedded('v1', 'Status', expiredStatus))),
  ]);
  for (const size of [1, 2, 3, 5, 17, 64, stream.length]) {
    const splitter = new FrameSplitter();
    const types: string[] = [];
    for (let at = 0; at < stream.length; at += size) {
      for (const f of splitter.push(stream.subarray(at, at + size))) types.push(decodeWatchFrame(f).type);
    }
    assert.deepEqual(types, ['ADDED', 'MODIFIED', 'ERROR'], `chunks of ${size}`);
    assert.equal(splitter.partial, false);
  }
});

test('bytes that are not a pod watch fail with a ProtobufDecodeError that says what is wrong', () => {
  const cases: [Buffer, RegExp][] = [
    [watchEvent('ADDED', Buffer.concat([Buffer.from('k9s\0'), podBytes])), /without the k8s\\0 prefix/],
    [
      watchEvent('ADDED', embedded('v1', 'Node', podBytes)),
      /embedded "Node" \(this watch reads Pod, Status\)/,
    ],
    [
      watchEvent('ADDED', embedded('v1', 'Pod', msg(1, num(1, 5)))),
      /ObjectMeta field 1 has wire type 0, not 2/,
    ],
    [watchEvent('ADDED', embedded('v1', 'Pod', Buffer.concat([tag(4, 3)]))), /wire type 3/],
    [
      watchEvent('ADDED', embedded('v1', 'Pod', Buffer.concat([tag(1, 2), varint(50), Buffer.alloc(3)]))),
      /runs past the end/,
    ],
    [str(1, 'ADDED'), /ADDED watch event without an object/],
    [
      watchEvent(
        'ADDED',
        Buffer.concat([
          Buffer.from('k8s\0', 'latin1'),
          msg(1, str(2, 'Pod')),
          bytes(2, podBytes),
          str(3, 'gzip'),
        ]),
      ),
      /an embedded Pod in application\/vnd\.kubernetes\.protobuf \(gzip\)/,
    ],
  ];
  for (const [bytes, message] of cases) {
    assert.throws(
      () => decodeWatchFrame(bytes),
      (err: unknown) => {
        assert.ok(err instanceof ProtobufDecodeError, String(err));
        assert.match(err.message, message);
        return true;
      },
    );
  }
  const json = Buffer.from(JSON.stringify({ kind: 'Pod' }));
  assert.throws(() => decodeProtobufObject(json), ProtobufDecodeError);
  assert.throws(
    () => new FrameSplitter().push(Buffer.from([0xff, 0xff, 0xff, 0xff])),
    /a watch frame of 4294967295 bytes/,
  );
});

test('a negative int64 (ten bytes of two complement) reads back negative', () => {
  const pod = msg(1, str(1, 'p'), num(10, -1));
  const event = decodeWatchFrame<{ metadata: { deletionGracePeriodSeconds: number } }>(
    watchEvent('ADDED', embedded('v1', 'Pod', pod)),
  );
  assert.equal(event.object.metadata.deletionGracePeriodSeconds, -1);
});

// --- through the request layer ----------------------------------------------------------------------------
interface Seen {
  url: string;
  accept: string;
}
const seen: Seen[] = [];
let respond: (res: http.ServerResponse) => void = (res) => res.end();
let server: http.Server;
let kc: KubeConfig;

before(async () => {
  server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', accept: String(req.headers.accept ?? '') });
    respond(res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  kc = kubeConfigFor((server.address() as AddressInfo).port);
});
after(() => server.close());

async function watchAll(protobuf: boolean): Promise<{ type: string; name?: string }[]> {
  const kube = createKube(kc, { qps: 0 });
  const out: { type: string; name?: string }[] = [];
  try {
    for await (const batch of kube.pods.watchBatches('shop', { protobuf })) {
      for (const e of batch) out.push({ type: e.type, name: e.object.metadata?.name });
    }
  } finally {
    await kube.client.close();
  }
  return out;
}

test('asked for protobuf, a watch reads frames when the API answers in protobuf', async () => {
  const body = Buffer.concat([
    frame(watchEvent('ADDED', embedded('v1', 'Pod', podBytes))),
    frame(watchEvent('DELETED', embedded('v1', 'Pod', podBytes))),
  ]);
  respond = (res) => {
    res.setHeader('Content-Type', 'application/vnd.kubernetes.protobuf;stream=watch');
    // In two writes cut inside the first frame: the reader joins them.
    res.write(body.subarray(0, 100));
    setTimeout(() => res.end(body.subarray(100)), 20);
  };
  seen.length = 0;
  assert.deepEqual(await watchAll(true), [
    { type: 'ADDED', name: 'web-x7k2q' },
    { type: 'DELETED', name: 'web-x7k2q' },
  ]);
  assert.equal(seen[0]!.accept, 'application/vnd.kubernetes.protobuf, application/json');
  assert.match(seen[0]!.url, /watch=true/);
});

test('asked for protobuf, a watch reads JSON lines when the API answers in JSON (a custom resource)', async () => {
  respond = (res) => {
    res.setHeader('Content-Type', 'application/json');
    res.end(
      '{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n{"type":"DELETED","object":{"metadata":{"name":"a"}}}\n',
    );
  };
  assert.deepEqual(await watchAll(true), [
    { type: 'ADDED', name: 'a' },
    { type: 'DELETED', name: 'a' },
  ]);
});

test('not asked for protobuf, a watch asks for JSON alone', async () => {
  respond = (res) => res.end('{"type":"ADDED","object":{"metadata":{"name":"a"}}}\n');
  seen.length = 0;
  await watchAll(false);
  assert.equal(seen[0]!.accept, 'application/json');
});

test('a frame that does not decode ends the watch with the events before it handed on, the watch named', async () => {
  respond = (res) => {
    res.setHeader('Content-Type', 'application/vnd.kubernetes.protobuf;stream=watch');
    res.end(
      Buffer.concat([
        frame(watchEvent('ADDED', embedded('v1', 'Pod', podBytes))),
        frame(watchEvent('ADDED', embedded('v1', 'Node', podBytes))),
      ]),
    );
  };
  const kube = createKube(kc, { qps: 0 });
  const got: string[] = [];
  await assert.rejects(
    (async () => {
      for await (const batch of kube.pods.watchBatches('shop', { protobuf: true })) {
        for (const e of batch) got.push(e.type);
      }
    })(),
    (err: unknown) => {
      assert.ok(err instanceof ProtobufDecodeError);
      assert.match(
        err.message,
        /^the protobuf watch of \/api\/v1\/namespaces\/shop\/pods: an embedded "Node"/,
      );
      return true;
    },
  );
  await kube.client.close();
  assert.deepEqual(got, ['ADDED']);
});

test('a stream that ends inside a frame is an error, not a lost event', async () => {
  const whole = frame(watchEvent('ADDED', embedded('v1', 'Pod', podBytes)));
  respond = (res) => {
    res.setHeader('Content-Type', 'application/vnd.kubernetes.protobuf;stream=watch');
    res.end(whole.subarray(0, whole.length - 1));
  };
  await assert.rejects(watchAll(true), /the stream ended inside a frame/);
});

test('a refused protobuf watch: its Status read from protobuf', async () => {
  const forbidden = Buffer.concat([
    str(2, 'Failure'),
    str(3, 'pods is forbidden: no'),
    str(4, 'Forbidden'),
    num(6, 403),
  ]);
  respond = (res) => {
    res.statusCode = 403;
    res.setHeader('Content-Type', 'application/vnd.kubernetes.protobuf');
    res.end(embedded('v1', 'Status', forbidden));
  };
  await assert.rejects(watchAll(true), (err: unknown) => {
    const e = err as { code?: number; reason?: string; message?: string };
    assert.equal(e.code, 403);
    assert.equal(e.reason, 'Forbidden');
    assert.match(String(e.message), /pods is forbidden: no/);
    return true;
  });
});
