// The protobuf reader against Go's own encoder: kubectl's typed clients send a pod's body in protobuf
// (`kubectl debug --copy-to` creates the copy so), and what the reader decodes of it must be what the JSON of
// the same pod holds. A plain-HTTP proxy in front of kube-sim keeps each body kubectl sends.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';
import { useSimCluster } from '@podset/testkit/sim-cluster';
import { decodeProtobufObject } from '../src/protobuf-watch.ts';
import type { Pod } from '../src/index.ts';

const cluster = useSimCluster({ sim: { controllers: false }, crd: false });

interface Sent {
  method: string;
  path: string;
  contentType: string;
  body: Buffer;
}
const sent: Sent[] = [];
let proxy: http.Server | undefined;
let kubeconfig: string;

before(async () => {
  await cluster.ready;
  const upstream = new URL(cluster.sim.url);
  const token = /token: (\S+)/.exec(cluster.sim.kubeconfigYaml('admin'))?.[1];
  assert.ok(token, "kube-sim's kubeconfig holds a token");
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      sent.push({
        method: req.method ?? '',
        path: req.url ?? '',
        contentType: String(req.headers['content-type'] ?? ''),
        body,
      });
      // The kubeconfig kubectl is given holds no credentials: the proxy adds kube-sim's token.
      const up = http.request(
        {
          host: upstream.hostname,
          port: upstream.port,
          path: req.url,
          method: req.method,
          headers: { ...req.headers, authorization: `Bearer ${token}` },
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      up.end(body);
    });
  });
  proxy = server;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const dir = mkdtempSync(join(tmpdir(), 'protobuf-kubectl-'));
  kubeconfig = join(dir, 'kubeconfig');
  writeFileSync(
    kubeconfig,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters: [{name: c, cluster: {server: "http://127.0.0.1:' +
        (server.address() as AddressInfo).port +
        '"}}]',
      'users: [{name: u, user: {}}]',
      'contexts: [{name: c, context: {cluster: c, user: u}}]',
      'current-context: c',
      '',
    ].join('\n'),
  );
});
after(() => proxy?.close());

test("a pod as Go's encoder writes it (kubectl debug --copy-to) decodes to what its JSON holds", async () => {
  await cluster.kube.pods.create('default', {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'web',
      labels: { 'podset.io/name': 'web', 'pod-template-hash': 'abc123' },
      annotations: { note: 'héllo\ttab ✓', 'controller.kubernetes.io/pod-deletion-cost': '-5' },
    },
    spec: { nodeName: 'node-7', containers: [{ name: 'app', image: 'busybox' }] },
  } as Pod);
  await promisify(execFile)('kubectl', [
    '--kubeconfig',
    kubeconfig,
    'debug',
    'pod/web',
    '--image=busybox',
    '--copy-to=web-copy',
    '--keep-labels=true',
    '--keep-annotations=true',
    '--same-node=true',
    '--attach=false',
  ]);
  const create = sent.find(
    (s) => s.method === 'POST' && s.path.startsWith('/api/v1/namespaces/default/pods'),
  );
  assert.ok(create, 'kubectl created the copy');
  assert.equal(create.contentType, 'application/vnd.kubernetes.protobuf');

  const decoded = decodeProtobufObject(create.body) as Pod;
  const stored = await cluster.kube.pods.get('default', 'web-copy');
  assert.equal(decoded.kind, 'Pod');
  assert.equal(decoded.apiVersion, 'v1');
  assert.equal(decoded.metadata.name, 'web-copy');
  assert.equal(decoded.metadata.namespace ?? 'default', 'default');
  assert.deepEqual(decoded.metadata.labels, stored.metadata.labels);
  assert.deepEqual(decoded.metadata.annotations, stored.metadata.annotations);
  assert.equal(decoded.spec?.nodeName, 'node-7');
  assert.equal(decoded.spec?.nodeName, stored.spec?.nodeName);
  // Go writes the zero creationTimestamp as an empty Time: left out, not read as a time.
  assert.ok(!('creationTimestamp' in decoded.metadata));
  // What JSON would omit (empty strings, zero numbers gogo writes) is left out here too.
  for (const key of ['uid', 'resourceVersion', 'generateName', 'generation'] as const) {
    assert.ok(!(key in decoded.metadata), `${key} is left out as JSON leaves it`);
  }
});
