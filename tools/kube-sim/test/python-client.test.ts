// kube-sim against a client this project did not write: Debian's python3-kubernetes (the official Python
// client, 22.6), and the wire details such clients depend on. The Python client sends booleans as
// `watch=True`; the API server takes every value but "0" and "false" (any case) as true, so its watches
// and informers must stream. JSON bodies end with a newline, as the API server's encoder writes them.
// Content negotiation: metadata-only gets, lists and watches are served; an Accept with no servable
// alternative is a 406.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { waitFor } from '@podset/testkit';
import { startKubeSim, type KubeSim } from '../src/index.ts';

const PYTHON = '/usr/bin/python3';
function pythonClient(): string | undefined {
  try {
    return execFileSync(PYTHON, ['-c', 'import kubernetes; print(kubernetes.__version__)'], {
      encoding: 'utf8',
    }).trim();
  } catch {
    return undefined;
  }
}
const version = pythonClient();

let sim: KubeSim;
let dir: string;
before(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'kube-sim-python-'));
  sim = await startKubeSim({
    kubeconfigPath: path.join(dir, 'kubeconfig'),
    controllerOptions: { podLifecycle: false },
  });
});
after(async () => {
  await sim?.close();
  rmSync(dir, { recursive: true, force: true });
});

const configMap = (name: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: 'default' },
  data: { k: name },
});

async function raw(p: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(sim.url + p, {
    ...init,
    headers: { authorization: `Bearer ${sim.tokens.admin}`, ...(init.headers as Record<string, string>) },
  });
  return { status: res.status, text: await res.text() };
}

test('boolean query parameters convert as the API server converts them', async () => {
  sim.cluster.create('configmaps', configMap('bools'));
  for (const [value, streams] of [
    ['True', true],
    ['yes', true],
    ['', true],
    ['FALSE', false],
    ['0', false],
  ] as const) {
    const ac = new AbortController();
    const res = await fetch(`${sim.url}/api/v1/namespaces/default/configmaps?watch=${value}`, {
      headers: { authorization: `Bearer ${sim.tokens.admin}` },
      signal: ac.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    ac.abort();
    if (streams) assert.match(first, /^\{"type":"ADDED"/, `watch=${value} streams events`);
    else assert.match(first, /^\{"kind":"ConfigMapList"/, `watch=${value} lists`);
  }
});

test('JSON bodies end with one newline: an object, a list, a created object, an error', async () => {
  const bodies = [
    await raw('/api/v1/namespaces/default/configmaps/bools'),
    await raw('/api/v1/namespaces/default/configmaps'),
    await raw('/api/v1/namespaces/default/configmaps', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(configMap('framed')),
    }),
    await raw('/api/v1/namespaces/default/configmaps/nope'),
  ];
  assert.deepEqual(
    bodies.map((b) => b.status),
    [200, 200, 201, 404],
  );
  for (const b of bodies) {
    assert.ok(
      b.text.endsWith('}\n') && !b.text.endsWith('\n\n'),
      `ends with one newline: ${b.text.slice(-40)}`,
    );
    JSON.parse(b.text);
  }
});

test('metadata only: PartialObjectMetadata for a get and watch events, PartialObjectMetadataList for a list', async () => {
  const meta = (as: string) => ({ accept: `application/json;as=${as};g=meta.k8s.io;v=v1` });
  const got = await raw('/api/v1/namespaces/default/configmaps/bools', {
    headers: meta('PartialObjectMetadata'),
  });
  const one = JSON.parse(got.text) as {
    kind: string;
    apiVersion: string;
    metadata: { name: string };
    data?: unknown;
  };
  assert.deepEqual(
    [one.kind, one.apiVersion, one.metadata.name, one.data],
    ['PartialObjectMetadata', 'meta.k8s.io/v1', 'bools', undefined],
  );
  const listed = await raw('/api/v1/namespaces/default/configmaps', {
    headers: meta('PartialObjectMetadataList'),
  });
  const list = JSON.parse(listed.text) as {
    kind: string;
    metadata: { resourceVersion: string };
    items: { kind: string }[];
  };
  assert.equal(list.kind, 'PartialObjectMetadataList');
  assert.match(list.metadata.resourceVersion, /^\d+$/);
  assert.ok(list.items.length > 0 && list.items.every((i) => i.kind === 'PartialObjectMetadata'));
  // A watch streams PartialObjectMetadata events.
  const ac = new AbortController();
  const res = await fetch(`${sim.url}/api/v1/namespaces/default/configmaps?watch=1`, {
    headers: { authorization: `Bearer ${sim.tokens.admin}`, ...meta('PartialObjectMetadata') },
    signal: ac.signal,
  });
  const first = new TextDecoder().decode(
    (await (res.body as ReadableStream<Uint8Array>).getReader().read()).value,
  );
  ac.abort();
  assert.match(
    first,
    /^\{"type":"ADDED","object":\{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io\/v1"/,
  );
  // The list form for a get, the single form for a list: not servable.
  for (const [p, as] of [
    ['/api/v1/namespaces/default/configmaps/bools', 'PartialObjectMetadataList'],
    ['/api/v1/namespaces/default/configmaps', 'PartialObjectMetadata'],
  ] as const) {
    assert.equal((await raw(p, { headers: meta(as) })).status, 406, `${as} for ${p}`);
  }
});

test('an Accept kube-sim cannot serve in any alternative is a 406; one JSON alternative is enough', async () => {
  const cases: [string, number][] = [
    ['application/vnd.kubernetes.protobuf', 406],
    ['application/yaml', 406],
    ['application/json;as=Unknown;g=meta.k8s.io;v=v1', 406],
    ['application/vnd.kubernetes.protobuf, application/json', 200],
    ['application/json;as=Table;g=meta.k8s.io;v=v1', 200],
    ['*/*', 200],
  ];
  for (const [accept, status] of cases) {
    const r = await raw('/api/v1/namespaces/default/configmaps/bools', { headers: { accept } });
    assert.equal(r.status, status, accept);
    if (status === 406) {
      const body = JSON.parse(r.text) as { reason: string; message: string };
      assert.equal(body.reason, 'NotAcceptable');
      assert.match(body.message, /^only the following media types are accepted: application\/json, /);
    }
  }
});

test(
  'the official Python client: list, create, and a watch that streams (watch=True)',
  {
    skip:
      version === undefined
        ? `${PYTHON} has no kubernetes module (apt-get install python3-kubernetes)`
        : false,
  },
  async () => {
    const script = path.join(dir, 'watch.py');
    writeFileSync(
      script,
      [
        'import sys',
        'from kubernetes import client, config, watch',
        'config.load_kube_config(config_file=sys.argv[1])',
        'v1 = client.CoreV1Api()',
        "names = [c.metadata.name for c in v1.list_namespaced_config_map('default', watch=False).items]",
        "print('LIST', ' '.join(sorted(names)), flush=True)",
        'w = watch.Watch()',
        "for ev in w.stream(v1.list_namespaced_config_map, 'default', timeout_seconds=20):",
        "    print(ev['type'], ev['object'].metadata.name, flush=True)",
        "    if ev['object'].metadata.name == 'second':",
        '        w.stop()',
        "v1.create_namespaced_config_map('default', client.V1ConfigMap(metadata=client.V1ObjectMeta(name='from-python'), data={'a': 'b'}))",
        "print('CREATED', flush=True)",
        'api = client.ApiClient()',
        "meta = api.call_api('/api/v1/namespaces/default/configmaps', 'GET', header_params={'Accept': 'application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1'}, auth_settings=['BearerToken'], response_type='object', _return_http_data_only=True)",
        "print('META', meta['kind'], len(meta['items']), flush=True)",
        'try:',
        "    api.call_api('/api/v1/namespaces/default/configmaps', 'GET', header_params={'Accept': 'application/vnd.kubernetes.protobuf'}, auth_settings=['BearerToken'], response_type='object')",
        "    print('NO-406', flush=True)",
        'except client.exceptions.ApiException as e:',
        "    print('STATUS', e.status, e.reason, flush=True)",
      ].join('\n'),
    );
    const child = spawn(PYTHON, [script, sim.kubeconfigPath], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
    try {
      await waitFor('the Python watch to see the existing ConfigMaps', () => /ADDED bools/.test(out), {
        timeoutMs: 30_000,
        describe: () => `stdout: ${out}\nstderr: ${err}`,
      });
      sim.cluster.create('configmaps', configMap('second'));
      assert.equal(await exited, 0, `python exited 0; stderr: ${err}`);
    } finally {
      child.kill();
    }
    assert.match(out, /^LIST bools framed$/m, 'watch=False lists');
    assert.match(out, /^ADDED second$/m, 'a live event reached the Python watch');
    assert.match(out, /^CREATED$/m);
    assert.match(
      out,
      /^META PartialObjectMetadataList \d+$/m,
      'a metadata-only list through the Python client',
    );
    assert.match(out, /^STATUS 406 Not Acceptable$/m, 'protobuf only: 406');
    assert.ok(sim.cluster.get('configmaps', 'default', 'from-python'), 'the Python create is stored');
    assert.ok(
      sim.audit.query({ verb: 'watch', resource: 'configmaps' }).some((e) => /python/i.test(e.userAgent)),
      "the Python client's request was served as a watch",
    );
    console.log(`python3-kubernetes ${version}`);
  },
);
