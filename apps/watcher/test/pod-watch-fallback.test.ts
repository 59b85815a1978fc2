// The watcher's pod watch, set to protobuf, asks for it; a stream it cannot decode ends that watch, is said
// once, and every later pod watch asks for JSON, so pods are never left unwatched (against a scripted API
// server). JSON is the default.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { createKube, kubeConfigFor, ProtobufDecodeError, type Kube } from '@podset/kube';
import { watchApiOf, type WatchLine } from '../src/kube-api.ts';

const accepts: string[] = [];
let server: http.Server;
let kube: Kube;

before(async () => {
  server = http.createServer((req, res) => {
    const accept = String(req.headers.accept ?? '');
    accepts.push(`${req.url?.split('?')[0]} ${accept}`);
    if (accept.startsWith('application/vnd.kubernetes.protobuf')) {
      // A frame of 5 bytes whose content is no WatchEvent (wire type 7 is no protobuf's).
      res.setHeader('Content-Type', 'application/vnd.kubernetes.protobuf;stream=watch');
      res.end(Buffer.from([0, 0, 0, 5, 0x0f, 1, 2, 3, 4]));
      return;
    }
    res.setHeader('Content-Type', 'application/json');
    res.end('{"type":"ADDED","object":{"metadata":{"name":"p1","namespace":"default"}}}\n');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  kube = createKube(kubeConfigFor((server.address() as AddressInfo).port), { qps: 0 });
});
after(async () => {
  await kube.client.close();
  server.close();
});

const watchOpts = () => ({
  allowWatchBookmarks: true,
  timeoutSeconds: 30,
  signal: new AbortController().signal,
});

async function drain(events: AsyncIterable<readonly WatchLine[]>): Promise<string[]> {
  const names: string[] = [];
  for await (const batch of events) for (const e of batch) names.push(e.object.metadata?.name ?? '');
  return names;
}

test('a protobuf pod watch that does not decode: said once, then pods are watched in JSON', async () => {
  const failures: Error[] = [];
  const api = watchApiOf(kube, { podEncoding: 'protobuf', onProtobufFailed: (err) => failures.push(err) });
  accepts.length = 0;

  await assert.rejects(drain(api.watch('pods', undefined, watchOpts())), ProtobufDecodeError);
  assert.equal(failures.length, 1);
  assert.match(failures[0]!.message, /the protobuf watch of \/api\/v1\/pods: wire type 7/);

  assert.deepEqual(await drain(api.watch('pods', undefined, watchOpts())), ['p1']);
  assert.deepEqual(await drain(api.watch('pods', undefined, watchOpts())), ['p1']);
  assert.equal(failures.length, 1, 'said once');
  assert.deepEqual(accepts, [
    '/api/v1/pods application/vnd.kubernetes.protobuf, application/json',
    '/api/v1/pods application/json',
    '/api/v1/pods application/json',
  ]);
});

test('PodSets are watched in JSON even with protobuf set; pods in JSON by default', async () => {
  accepts.length = 0;
  assert.deepEqual(
    await drain(watchApiOf(kube, { podEncoding: 'protobuf' }).watch('podsets', undefined, watchOpts())),
    ['p1'],
  );
  assert.deepEqual(await drain(watchApiOf(kube).watch('pods', undefined, watchOpts())), ['p1']);
  assert.deepEqual(accepts, ['/apis/podset.io/v1/podsets application/json', '/api/v1/pods application/json']);
});
