// kube-sim's REST semantics over HTTP: a watch in protobuf, as client-go's typed clients ask for one of a
// built-in kind (Accept: application/vnd.kubernetes.protobuf, application/json): length-prefixed WatchEvent
// frames of `k8s\0`-enveloped objects, the same events a JSON watch shows; JSON for a custom resource.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parse } from 'yaml';
import { decodeProtobufMessage } from '../../src/apimachinery/protobuf.ts';
import type { JsonObject } from '../../src/apimachinery/types.ts';
import type { KubeSim } from '../../src/index.ts';
import { openWatch, pod, useServer, type WatchEvent } from './support.ts';
import { fieldBytes as bytes, protobufFields as fields } from '../unit-support/protobuf-fields.ts';

const PROTOBUF_FIRST = 'application/vnd.kubernetes.protobuf, application/json';
const PODSET_CRD = parse(
  readFileSync(new URL('../../../../crds/podset.yaml', import.meta.url), 'utf8'),
) as JsonObject;

/** A frame's WatchEvent as the JSON watch would show it: the object decoded from its `k8s\0` envelope. */
function decodeFrame(frame: Buffer): WatchEvent {
  const ev = fields(frame);
  const type = bytes(ev, 1).toString();
  const raw = bytes(fields(bytes(ev, 2)), 1);
  assert.deepEqual([...raw.subarray(0, 4)], [0x6b, 0x38, 0x73, 0x00], 'the k8s\\0 magic');
  const unknown = fields(raw.subarray(4));
  assert.deepEqual(
    unknown.map(([n, , v]) => [n, n >= 3 ? (v as Buffer).length : undefined]),
    [
      [1, undefined],
      [2, undefined],
      [3, 0],
      [4, 0],
    ],
    'runtime.Unknown: typeMeta, raw, empty contentEncoding and contentType',
  );
  const typeMeta = fields(bytes(unknown, 1));
  const apiVersion = bytes(typeMeta, 1).toString();
  const kind = bytes(typeMeta, 2).toString();
  const object = decodeProtobufMessage(bytes(unknown, 2), kind === 'Status' ? 'Status' : kind);
  return { type, object: { apiVersion, kind, ...object } };
}

/** Opens a watch; `frame()` gives the next length-prefixed frame, undefined once the stream ended. */
async function openProtobufWatch(sim: KubeSim, path: string, accept = PROTOBUF_FIRST) {
  const ac = new AbortController();
  const res = await fetch(sim.url + path, {
    headers: { authorization: `Bearer ${sim.tokens.admin}`, accept },
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  let buf = Buffer.alloc(0);
  let ended = false;
  const frame = async (timeoutMs = 5000): Promise<Buffer | undefined> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (buf.length >= 4 && buf.length >= 4 + buf.readUInt32BE(0)) {
        const len = buf.readUInt32BE(0);
        const out = buf.subarray(4, 4 + len);
        buf = buf.subarray(4 + len);
        return out;
      }
      if (ended) {
        assert.equal(buf.length, 0, 'the stream ends between frames');
        return undefined;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no watch frame within ${timeoutMs} ms`);
      let timer: NodeJS.Timeout | undefined;
      const r = await Promise.race([
        reader.read().catch(() => ({ done: true, value: undefined })),
        new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), left))),
      ]);
      clearTimeout(timer);
      if (r === 'timeout') throw new Error(`no watch frame within ${timeoutMs} ms`);
      if (r.done) ended = true;
      else if (r.value) buf = Buffer.concat([buf, r.value]);
    }
  };
  return {
    contentType: res.headers.get('content-type'),
    frame,
    async next(timeoutMs?: number): Promise<WatchEvent | undefined> {
      const f = await frame(timeoutMs);
      return f && decodeFrame(f);
    },
    close: () => ac.abort(),
  };
}

/** Zeros JSON shows (fields without omitempty) of non-pointer fields: on the wire, but read as unset. */
const NON_POINTER_ZEROS: Record<string, unknown> = { ready: false, restartCount: 0, imageID: '' };

/** A JSON pod as protobuf carries it: without the zeros of NON_POINTER_ZEROS. */
function asProtobufCarries(obj: JsonObject): JsonObject {
  return JSON.parse(JSON.stringify(obj), (key, v: unknown) =>
    Object.hasOwn(NON_POINTER_ZEROS, key) && NON_POINTER_ZEROS[key] === v ? undefined : v,
  ) as JsonObject;
}

describe('kube-sim server: protobuf watches', () => {
  const server = useServer();
  const { call } = server;

  test('pods: created, modified, deleted; the same events as a JSON watch', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'pbwatch' } });
    const from = server.sim.resourceVersion();
    const path = `/api/v1/namespaces/pbwatch/pods?watch=true&resourceVersion=${from}`;
    const pb = await openProtobufWatch(server.sim, path);
    const pb2 = await openProtobufWatch(server.sim, path, 'application/vnd.kubernetes.protobuf');
    const json = await openWatch(server.sim, path);
    assert.equal(pb.contentType, 'application/vnd.kubernetes.protobuf;stream=watch');
    assert.equal(pb2.contentType, 'application/vnd.kubernetes.protobuf;stream=watch');

    const created = await call(
      'POST',
      '/api/v1/namespaces/pbwatch/pods',
      pod('pb-1', { app: 'pb' }, { tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }] }),
    );
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const patched = await call(
      'PATCH',
      '/api/v1/namespaces/pbwatch/pods/pb-1/status',
      {
        status: {
          phase: 'Running',
          podIP: '10.0.0.5',
          podIPs: [{ ip: '10.0.0.5' }],
          startTime: '2024-05-01T10:00:00Z',
          conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2024-05-01T10:00:01Z' }],
          containerStatuses: [
            {
              name: 'c',
              image: 'nginx:1.27',
              imageID: '',
              ready: false,
              restartCount: 0,
              started: false,
              state: { running: { startedAt: '2024-05-01T10:00:01Z' } },
              lastState: {},
            },
          ],
        },
      },
      { 'content-type': 'application/merge-patch+json' },
    );
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const deleted = await call('DELETE', '/api/v1/namespaces/pbwatch/pods/pb-1?gracePeriodSeconds=0');
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));

    const jsonEvents: WatchEvent[] = [];
    for (;;) {
      const e = await json.next();
      assert.ok(e);
      jsonEvents.push(e);
      if (e.type === 'DELETED') break;
    }
    assert.deepEqual(jsonEvents.map((e) => e.type).slice(0, 2), ['ADDED', 'MODIFIED']);
    const frames: Buffer[] = [];
    for (const want of jsonEvents) {
      const frame = await pb.frame();
      assert.ok(frame);
      frames.push(frame);
      const got = decodeFrame(frame);
      assert.equal(got.type, want.type);
      assert.equal(got.object.apiVersion, 'v1');
      assert.equal(got.object.kind, 'Pod');
      assert.deepEqual(got.object, asProtobufCarries(want.object), `${want.type} reads as the JSON watch's`);
      // A second protobuf watcher gets the same bytes (the pod's encoding is made once per version).
      assert.deepEqual(await pb2.frame(), frame);
    }
    const running = decodeFrame(frames[1] as Buffer).object;
    assert.equal(running.status.phase, 'Running');
    assert.equal(running.status.containerStatuses[0].started, false, 'a pointer: its false is carried');
    assert.ok(running.metadata.managedFields.length >= 2, 'managedFields are carried');
    pb.close();
    pb2.close();
    json.close();
  });

  test('a watch from too old a resourceVersion gets an ERROR frame: a Status, 410 Expired', async () => {
    const old = server.sim.resourceVersion();
    await call('POST', '/api/v1/namespaces/default/pods', pod('pb-gone'));
    server.sim.faults.compactHistory();
    const w = await openProtobufWatch(
      server.sim,
      `/api/v1/namespaces/default/pods?watch=1&resourceVersion=${old}`,
    );
    const e = await w.next();
    assert.equal(e?.type, 'ERROR');
    assert.equal(e?.object.apiVersion, 'v1');
    assert.equal(e?.object.kind, 'Status');
    assert.equal(e?.object.code, 410);
    assert.equal(e?.object.reason, 'Expired');
    assert.equal(e?.object.status, 'Failure');
    assert.match(e?.object.message, /too old resource version/);
    assert.equal(await w.next(), undefined);
  });

  test('bookmarks come as BOOKMARK frames: a Pod with only its resourceVersion (and the end annotation)', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'pbmarks' } });
    await call('POST', '/api/v1/namespaces/pbmarks/pods', pod('m-1'));
    const w = await openProtobufWatch(
      server.sim,
      '/api/v1/namespaces/pbmarks/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    const added = await w.next();
    assert.equal(added?.type, 'ADDED');
    assert.equal(added?.object.metadata.name, 'm-1');
    const end = await w.next();
    assert.equal(end?.type, 'BOOKMARK');
    assert.equal(end?.object.kind, 'Pod');
    assert.deepEqual(end?.object.metadata, {
      resourceVersion: end?.object.metadata.resourceVersion,
      annotations: { 'k8s.io/initial-events-end': 'true' },
    });
    assert.match(end?.object.metadata.resourceVersion, /^\d+$/);
    // A periodic one, once the pods changed after the watch began.
    await call('POST', '/api/v1/namespaces/pbmarks/pods', pod('m-2'));
    assert.equal((await w.next())?.type, 'ADDED');
    const mark = await w.next(3000);
    assert.equal(mark?.type, 'BOOKMARK');
    assert.deepEqual(Object.keys(mark?.object.metadata), ['resourceVersion']);
    w.close();
  });

  test('custom resources: JSON when it is acceptable too, 406 when only protobuf is', async () => {
    const crd = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', PODSET_CRD);
    assert.equal(crd.status, 201, JSON.stringify(crd.body));
    const group = 'podset.io';
    let path = '';
    for (let i = 0; i < 50 && path === ''; i++) {
      const r = await call('GET', `/apis/${group}/v1/namespaces/default/podsets`);
      if (r.status === 200) path = `/apis/${group}/v1/namespaces/default/podsets?watch=true`;
      else await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.notEqual(path, '', 'PodSets are served');
    const w = await openWatch(server.sim, path, { accept: PROTOBUF_FIRST });
    const made = await call('POST', `/apis/${group}/v1/namespaces/default/podsets`, {
      apiVersion: `${group}/v1`,
      kind: 'PodSet',
      metadata: { name: 'web' },
      spec: { replicas: 1, template: { spec: { containers: [{ name: 'c', image: 'nginx:1.27' }] } } },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    const e = await w.next();
    assert.equal(e?.type, 'ADDED');
    assert.equal(e?.object.kind, 'PodSet');
    w.close();
    const head = await fetch(server.sim.url + path, {
      headers: { authorization: `Bearer ${server.sim.tokens.admin}`, accept: PROTOBUF_FIRST },
    });
    assert.equal(head.headers.get('content-type'), 'application/json');
    await head.body?.cancel();
    const only = await call('GET', path, undefined, { accept: 'application/vnd.kubernetes.protobuf' });
    assert.equal(only.status, 406);
    assert.equal(only.body.reason, 'NotAcceptable');
  });

  test('what stays JSON: a Table watch, and gets and lists (served in JSON whatever the Accept)', async () => {
    const table =
      'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1;g=meta.k8s.io, application/json';
    await call('POST', '/api/v1/namespaces/default/pods', pod('pb-table'));
    const w = await openWatch(
      server.sim,
      '/api/v1/namespaces/default/pods?watch=1&fieldSelector=metadata.name%3Dpb-table',
      {
        accept: table,
      },
    );
    const e = await w.next();
    assert.equal(e?.object.kind, 'Table');
    w.close();
    const list = await call('GET', '/api/v1/namespaces/default/pods', undefined, { accept: PROTOBUF_FIRST });
    assert.equal(list.status, 200);
    assert.equal(list.headers.get('content-type'), 'application/json');
    assert.equal(list.body.kind, 'PodList');
  });
});
