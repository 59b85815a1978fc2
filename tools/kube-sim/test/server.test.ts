// kube-sim's REST semantics over HTTP: metadata, verbs, lists, watches, deletion, CRDs, errors, auth.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type KubeSim, startKubeSim } from '../src/index.ts';

interface Resp {
  status: number;
  headers: Headers;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

function client(sim: KubeSim, identity = 'admin') {
  return async function call(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Resp> {
    const h: Record<string, string> = { authorization: `Bearer ${sim.tokens[identity]}`, ...headers };
    if (body !== undefined && !h['content-type']) h['content-type'] = 'application/json';
    const res = await fetch(sim.url + path, {
      method,
      headers: h,
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // plain text (healthz)
    }
    return { status: res.status, headers: res.headers, body: parsed };
  };
}

interface WatchEvent {
  type: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  object: any;
}

/** Opens a watch; `next()` resolves with the next event, or undefined when the stream ended. */
async function openWatch(sim: KubeSim, path: string, headers: Record<string, string> = {}) {
  const ac = new AbortController();
  const res = await fetch(sim.url + path, {
    headers: { authorization: `Bearer ${sim.tokens.admin}`, ...headers },
    signal: ac.signal,
  });
  assert.equal(res.status, 200);
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buf = '';
  let ended = false;
  return {
    async next(timeoutMs = 5000): Promise<WatchEvent | undefined> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const nl = buf.indexOf('\n');
        if (nl >= 0) {
          const line = buf.slice(0, nl);
          buf = buf.slice(nl + 1);
          if (line.trim()) return JSON.parse(line) as WatchEvent;
          continue;
        }
        if (ended) return undefined;
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`no watch event within ${timeoutMs} ms`);
        let timer: NodeJS.Timeout | undefined;
        const r = await Promise.race([
          reader.read().catch(() => ({ done: true, value: undefined })),
          new Promise<'timeout'>((resolve) => (timer = setTimeout(() => resolve('timeout'), left))),
        ]);
        clearTimeout(timer);
        if (r === 'timeout') throw new Error(`no watch event within ${timeoutMs} ms`);
        if (r.done) ended = true;
        else buf += decoder.decode(r.value, { stream: true });
      }
    },
    close(): void {
      ac.abort();
    },
  };
}

function pod(name: string, labels: Record<string, string> = {}, extra: Record<string, unknown> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, labels },
    spec: { containers: [{ name: 'c', image: 'nginx:1.27' }], ...extra },
  };
}

const WIDGET_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: 'widgets.test.io' },
  spec: {
    group: 'test.io',
    scope: 'Namespaced',
    names: {
      kind: 'Widget',
      listKind: 'WidgetList',
      plural: 'widgets',
      singular: 'widget',
      shortNames: ['wd'],
    },
    versions: [
      {
        name: 'v1',
        served: true,
        storage: true,
        subresources: {
          status: {},
          scale: {
            specReplicasPath: '.spec.replicas',
            statusReplicasPath: '.status.replicas',
            labelSelectorPath: '.status.selector',
          },
        },
        additionalPrinterColumns: [
          { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas' },
          { name: 'Color', type: 'string', jsonPath: '.spec.color' },
        ],
        schema: {
          openAPIV3Schema: {
            type: 'object',
            properties: {
              spec: {
                type: 'object',
                properties: {
                  replicas: { type: 'integer', minimum: 0, maximum: 100, default: 1 },
                  color: { type: 'string', enum: ['red', 'blue'] },
                },
              },
              status: {
                type: 'object',
                properties: { replicas: { type: 'integer' }, selector: { type: 'string' } },
              },
            },
          },
        },
      },
    ],
  },
};

describe('kube-sim server', () => {
  let sim: KubeSim;
  let call: ReturnType<typeof client>;

  before(async () => {
    sim = await startKubeSim({ controllers: false, bookmarkIntervalMs: 200 });
    call = client(sim);
  });
  after(async () => {
    await sim.close();
  });

  test('health, version and discovery', async () => {
    for (const p of ['/healthz', '/readyz', '/livez']) {
      const r = await fetch(sim.url + p);
      assert.equal(r.status, 200);
      assert.equal(await r.text(), 'ok');
    }
    const v = await call('GET', '/version');
    assert.equal(v.body.major, '1');
    const api = await call('GET', '/api');
    assert.deepEqual(api.body.versions, ['v1']);
    const v1 = await call('GET', '/api/v1');
    const names = v1.body.resources.map((r: { name: string }) => r.name);
    for (const n of [
      'pods',
      'pods/status',
      'namespaces',
      'nodes',
      'events',
      'configmaps',
      'secrets',
      'serviceaccounts',
    ]) {
      assert.ok(names.includes(n), n);
    }
    const pods = v1.body.resources.find((r: { name: string }) => r.name === 'pods');
    assert.deepEqual(pods.shortNames, ['po']);
    assert.equal(pods.namespaced, true);
    assert.ok(pods.categories.includes('all'));
    const groups = await call('GET', '/apis');
    const gnames = groups.body.groups.map((g: { name: string }) => g.name);
    for (const g of [
      'apps',
      'coordination.k8s.io',
      'events.k8s.io',
      'apiextensions.k8s.io',
      'rbac.authorization.k8s.io',
      'policy',
      'autoscaling',
    ]) {
      assert.ok(gnames.includes(g), g);
    }
    const apps = await call('GET', '/apis/apps');
    assert.equal(apps.body.preferredVersion.groupVersion, 'apps/v1');
    const appsv1 = await call('GET', '/apis/apps/v1');
    const scale = appsv1.body.resources.find((r: { name: string }) => r.name === 'deployments/scale');
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.group, 'autoscaling');
    const agg = await call('GET', '/apis', undefined, {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json',
    });
    assert.match(agg.headers.get('content-type') ?? '', /as=APIGroupDiscoveryList/);
    assert.equal(agg.body.kind, 'APIGroupDiscoveryList');
    assert.equal((await call('GET', '/apis/nope.io')).status, 404);
  });

  test('OpenAPI routes: v3 index and documents with ETag, v2 as JSON (and the protobuf fallback kubectl asks for)', async () => {
    const index = await call('GET', '/openapi/v3');
    const url = index.body.paths['api/v1'].serverRelativeURL as string;
    assert.match(url, /^\/openapi\/v3\/api\/v1\?hash=/);
    const doc = await call('GET', url);
    assert.equal(doc.status, 200);
    assert.ok(doc.body.components);
    assert.equal(doc.headers.get('etag'), `"${url.split('hash=')[1]}"`);
    assert.equal(doc.headers.get('cache-control'), 'public, immutable');
    assert.equal((await call('GET', '/openapi/v3/apis/nope.io/v1')).status, 404);
    assert.equal((await call('GET', '/openapi/v2')).status, 200);
    // kubectl's protobuf request (for a kind v3 lacks): a document with no definitions, in protobuf.
    const proto = await fetch(`${sim.url}/openapi/v2`, {
      headers: {
        authorization: `Bearer ${sim.tokens.admin}`,
        accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf',
      },
    });
    assert.equal(proto.status, 200);
    assert.equal(
      proto.headers.get('content-type'),
      'application/com.github.proto-openapi.spec.v2.v1.0+protobuf',
    );
    const bytes = Buffer.from(await proto.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 5)], [0x0a, 3, 0x32, 0x2e, 0x30], 'field 1 (swagger): "2.0"');
    const yaml = await call('GET', '/openapi/v2', undefined, { accept: 'application/yaml' });
    assert.equal(yaml.status, 406);
  });

  test('authentication: 401 without a token, 403 for a read-only identity, identity in the audit', async () => {
    const r = await fetch(sim.url + '/api/v1/namespaces');
    assert.equal(r.status, 401);
    const body = (await r.json()) as { kind: string; reason: string; code: number };
    assert.equal(body.kind, 'Status');
    assert.equal(body.reason, 'Unauthorized');
    const bad = await fetch(sim.url + '/api/v1/namespaces', { headers: { authorization: 'Bearer nope' } });
    assert.equal(bad.status, 401);
    const viewer = client(sim, 'viewer');
    assert.equal((await viewer('GET', '/api/v1/namespaces')).status, 200);
    const w = await viewer('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'v' } });
    assert.equal(w.status, 403);
    assert.equal(w.body.reason, 'Forbidden');
    await client(sim, 'watcher')('GET', '/api/v1/namespaces/default/pods?limit=1');
    const entries = sim.audit.query({ user: 'watcher', verb: 'list', resource: 'pods' });
    assert.ok(entries.length >= 1);
    assert.equal(entries.at(-1)?.namespace, 'default');
    assert.equal(entries.at(-1)?.code, 200);
    assert.ok(sim.audit.query({ user: 'viewer', verb: 'create', code: 403 }).length >= 1);
  });

  test('create: metadata, generateName, global resourceVersion, name validation, namespace must exist', async () => {
    const ns = await call('GET', '/api/v1/namespaces');
    const nsNames = ns.body.items.map((i: { metadata: { name: string } }) => i.metadata.name);
    assert.ok(nsNames.includes('default') && nsNames.includes('kube-system'));
    const a = await call('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'meta-a' },
      data: { x: '1' },
    });
    assert.equal(a.status, 201);
    const m = a.body.metadata;
    assert.match(m.uid, /^[0-9a-f-]{36}$/);
    assert.match(m.resourceVersion, /^\d+$/);
    assert.equal(m.generation, undefined, 'config maps have no generation (as kube-apiserver)');
    assert.match(m.creationTimestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    const b = await call('POST', '/apis/coordination.k8s.io/v1/namespaces/default/leases', {
      metadata: { generateName: 'lease-' },
    });
    assert.equal(b.status, 201);
    assert.match(b.body.metadata.name, /^lease-[a-z0-9]{5}$/);
    assert.ok(
      Number(b.body.metadata.resourceVersion) > Number(m.resourceVersion),
      'one counter across resources',
    );
    const dup = await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'meta-a' } });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.reason, 'AlreadyExists');
    const bad = await call('POST', '/api/v1/namespaces/default/configmaps', {
      metadata: { name: 'Bad_Name' },
    });
    assert.equal(bad.status, 422);
    assert.equal(bad.body.reason, 'Invalid');
    assert.equal(bad.body.details.causes[0].field, 'metadata.name');
    const noName = await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: {} });
    assert.equal(noName.status, 422);
    const noNs = await call('POST', '/api/v1/namespaces/nowhere/configmaps', { metadata: { name: 'x' } });
    assert.equal(noNs.status, 404);
    assert.match(noNs.body.message, /namespaces "nowhere" not found/);
    const get = await call('GET', '/api/v1/namespaces/default/configmaps/meta-a');
    assert.equal(get.body.data.x, '1');
    const missing = await call('GET', '/api/v1/namespaces/default/configmaps/none');
    assert.equal(missing.status, 404);
    assert.equal(missing.body.details.kind, 'configmaps');
  });

  test('update: 409 on a stale resourceVersion, generation on spec changes only, status subresource isolation', async () => {
    const created = await call('POST', '/apis/apps/v1/namespaces/default/deployments', {
      metadata: { name: 'dep' },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'd' } },
        template: { metadata: { labels: { app: 'd' } }, spec: { containers: [{ name: 'c', image: 'x' }] } },
      },
      status: { replicas: 9 },
    });
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.status, {}, 'a status given on create is dropped: the zero status');
    assert.equal(created.body.metadata.generation, 1);
    const d = created.body;
    const labelled = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep', {
      ...d,
      metadata: { ...d.metadata, labels: { a: 'b' } },
    });
    assert.equal(labelled.status, 200);
    assert.equal(labelled.body.metadata.generation, 1, 'metadata change: no generation bump');
    const stale = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep', {
      ...d,
      spec: { ...d.spec, replicas: 2 },
    });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.reason, 'Conflict');
    const cur = labelled.body;
    const scaled = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep', {
      ...cur,
      spec: { ...cur.spec, replicas: 3 },
      status: { replicas: 5 },
    });
    assert.equal(scaled.body.metadata.generation, 2);
    assert.deepEqual(scaled.body.status, {}, 'main resource write ignores status');
    const st = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep/status', {
      ...scaled.body,
      spec: { ...scaled.body.spec, replicas: 7 },
      status: { replicas: 3 },
    });
    assert.equal(st.status, 200);
    assert.equal(st.body.status.replicas, 3);
    assert.equal(st.body.spec.replicas, 3, 'status write ignores spec');
    assert.equal(st.body.metadata.generation, 2, 'status write: no generation bump');
    const noop = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep', st.body);
    assert.equal(
      noop.body.metadata.resourceVersion,
      st.body.metadata.resourceVersion,
      'no-op update keeps the RV',
    );
    const wrongName = await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep', {
      ...st.body,
      metadata: { ...st.body.metadata, name: 'other' },
    });
    assert.equal(wrongName.status, 400);
    // scale subresource of a built-in
    const sc = await call('GET', '/apis/apps/v1/namespaces/default/deployments/dep/scale');
    assert.equal(sc.body.kind, 'Scale');
    assert.equal(sc.body.spec.replicas, 3);
    assert.equal(sc.body.status.selector, 'app=d');
    const sp = await call(
      'PATCH',
      '/apis/apps/v1/namespaces/default/deployments/dep/scale',
      { spec: { replicas: 6 } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(sp.body.spec.replicas, 6);
    assert.equal(
      (await call('GET', '/apis/apps/v1/namespaces/default/deployments/dep')).body.spec.replicas,
      6,
    );
  });

  test('patch: merge, JSON and strategic merge, server-side apply; 415 for unknown types', async () => {
    await call('POST', '/api/v1/namespaces/default/pods', pod('patchme', { a: '1' }));
    const merge = await call(
      'PATCH',
      '/api/v1/namespaces/default/pods/patchme',
      { metadata: { labels: { b: '2' } } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(merge.status, 200);
    assert.deepEqual(merge.body.metadata.labels, { a: '1', b: '2' });
    const json = await call(
      'PATCH',
      '/api/v1/namespaces/default/pods/patchme',
      [{ op: 'remove', path: '/metadata/labels/a' }],
      {
        'content-type': 'application/json-patch+json',
      },
    );
    assert.deepEqual(json.body.metadata.labels, { b: '2' });
    const smp = await call(
      'PATCH',
      '/api/v1/namespaces/default/pods/patchme',
      { spec: { containers: [{ name: 'c', image: 'nginx:1.28' }] } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    assert.equal(smp.status, 200);
    assert.equal(smp.body.spec.containers.length, 1);
    assert.equal(smp.body.spec.containers[0].image, 'nginx:1.28');
    const unknownType = await call('PATCH', '/api/v1/namespaces/default/pods/patchme', '{}', {
      'content-type': 'text/plain',
    });
    assert.equal(unknownType.status, 415);
    // server-side apply (approximated: create, else a strategic merge of the configuration)
    const yaml = 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: applied\ndata:\n  a: "1"\n';
    const noManager = await call('PATCH', '/api/v1/namespaces/default/configmaps/applied', yaml, {
      'content-type': 'application/apply-patch+yaml',
    });
    assert.equal(noManager.status, 422);
    const created = await call(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/applied?fieldManager=t',
      yaml,
      {
        'content-type': 'application/apply-patch+yaml',
      },
    );
    assert.equal(created.status, 201);
    assert.deepEqual(created.body.data, { a: '1' });
    const applied = await call(
      'PATCH',
      '/api/v1/namespaces/default/configmaps/applied?fieldManager=t',
      yaml.replace('a: "1"', 'a: "2"\n  b: "3"'),
      { 'content-type': 'application/apply-patch+yaml' },
    );
    assert.equal(applied.status, 200);
    assert.deepEqual(applied.body.data, { a: '2', b: '3' });
    const staleRv = await call(
      'PATCH',
      '/api/v1/namespaces/default/pods/patchme',
      { metadata: { resourceVersion: '1' } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(staleRv.status, 409);
    const missing = await call(
      'PATCH',
      '/api/v1/namespaces/default/pods/nope',
      {},
      { 'content-type': 'application/merge-patch+json' },
    );
    assert.equal(missing.status, 404);
  });

  test('list: selectors, paging over a consistent snapshot, resourceVersion semantics', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'paging' } });
    for (let i = 0; i < 7; i++) {
      await call('POST', '/api/v1/namespaces/paging/configmaps', {
        metadata: { name: `cm-${i}`, labels: { i: String(i), even: String(i % 2 === 0) } },
      });
    }
    const sel = await call(
      'GET',
      '/api/v1/namespaces/paging/configmaps?labelSelector=' + encodeURIComponent('even=true,i!=4'),
    );
    assert.deepEqual(
      sel.body.items.map((x: { metadata: { name: string } }) => x.metadata.name),
      ['cm-0', 'cm-2', 'cm-6'],
    );
    assert.equal(sel.body.kind, 'ConfigMapList');
    const fs = await call('GET', '/api/v1/namespaces/paging/configmaps?fieldSelector=metadata.name%3Dcm-3');
    assert.equal(fs.body.items.length, 1);
    const badFs = await call('GET', '/api/v1/namespaces/paging/configmaps?fieldSelector=spec.x%3D1');
    assert.equal(badFs.status, 400);
    const p1 = await call('GET', '/api/v1/namespaces/paging/configmaps?limit=3');
    assert.equal(p1.body.items.length, 3);
    assert.ok(p1.body.metadata.continue);
    assert.equal(p1.body.metadata.remainingItemCount, 4);
    const listRv = p1.body.metadata.resourceVersion;
    // changes after the first page are not seen by the following pages
    await call('DELETE', '/api/v1/namespaces/paging/configmaps/cm-5');
    await call('POST', '/api/v1/namespaces/paging/configmaps', { metadata: { name: 'cm-9' } });
    const seen = p1.body.items.map((x: { metadata: { name: string } }) => x.metadata.name);
    let cont = p1.body.metadata.continue as string | undefined;
    while (cont) {
      const p = await call(
        'GET',
        `/api/v1/namespaces/paging/configmaps?limit=3&continue=${encodeURIComponent(cont)}`,
      );
      assert.equal(p.status, 200);
      assert.equal(p.body.metadata.resourceVersion, listRv);
      seen.push(...p.body.items.map((x: { metadata: { name: string } }) => x.metadata.name));
      cont = p.body.metadata.continue;
    }
    assert.deepEqual(seen, ['cm-0', 'cm-1', 'cm-2', 'cm-3', 'cm-4', 'cm-5', 'cm-6']);
    // Exact: the state at that resourceVersion; NotOlderThan: at least as new
    const exact = await call(
      'GET',
      `/api/v1/namespaces/paging/configmaps?resourceVersion=${listRv}&resourceVersionMatch=Exact`,
    );
    assert.equal(exact.body.items.length, 7);
    assert.equal(exact.body.metadata.resourceVersion, listRv);
    const newer = await call(
      'GET',
      `/api/v1/namespaces/paging/configmaps?resourceVersion=${listRv}&resourceVersionMatch=NotOlderThan`,
    );
    assert.deepEqual(
      newer.body.items.map((x: { metadata: { name: string } }) => x.metadata.name).includes('cm-9'),
      true,
    );
    assert.ok(Number(newer.body.metadata.resourceVersion) > Number(listRv));
    const any = await call('GET', '/api/v1/namespaces/paging/configmaps?resourceVersion=0');
    assert.equal(any.status, 200);
    const future = await call(
      'GET',
      `/api/v1/namespaces/paging/configmaps?resourceVersion=${sim.resourceVersion() + 1000}`,
    );
    assert.equal(future.status, 504);
    assert.equal(future.body.details.causes[0].reason, 'ResourceVersionTooLarge');
    const futureWatch = await call(
      'GET',
      `/api/v1/namespaces/paging/configmaps?watch=1&resourceVersion=${sim.resourceVersion() + 1000}`,
    );
    assert.equal(futureWatch.status, 504);
    const badMatch = await call('GET', '/api/v1/namespaces/paging/configmaps?resourceVersionMatch=Exact');
    assert.equal(badMatch.status, 422);
    const all = await call('GET', '/api/v1/configmaps');
    assert.ok(all.body.items.length >= 8, 'list across namespaces');
  });

  test('list: big lists are streamed and complete; paging through them sees every item once', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'big' } });
    for (let i = 0; i < 4500; i++) {
      sim.cluster.create('configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `c${i}`, namespace: 'big' },
      });
    }
    const all = await call('GET', '/api/v1/namespaces/big/configmaps');
    assert.equal(all.status, 200);
    assert.equal(all.body.items.length, 4500);
    assert.equal(
      new Set(all.body.items.map((x: { metadata: { name: string } }) => x.metadata.name)).size,
      4500,
    );
    let n = 0;
    let cont = '';
    do {
      const p = await call(
        'GET',
        `/api/v1/namespaces/big/configmaps?limit=1000${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`,
      );
      n += p.body.items.length;
      cont = p.body.metadata.continue ?? '';
    } while (cont);
    assert.equal(n, 4500);
  });

  test('watch: initial ADDED, resume strictly after an RV, selector enter/leave, bookmarks, timeout', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'watching' } });
    const c1 = await call('POST', '/api/v1/namespaces/watching/configmaps', {
      metadata: { name: 'w1', labels: { app: 'x' } },
    });
    const w = await openWatch(sim, '/api/v1/namespaces/watching/configmaps?watch=true');
    const first = await w.next();
    assert.equal(first?.type, 'ADDED');
    assert.equal(
      sim.audit.query({ verb: 'watch', resource: 'configmaps', namespace: 'watching' }).length,
      1,
      'audited at start',
    );
    assert.equal(first?.object.metadata.name, 'w1');
    const w2 = await call('POST', '/api/v1/namespaces/watching/configmaps', {
      metadata: { name: 'w2', labels: { app: 'y' } },
    });
    const ev = await w.next();
    assert.equal(ev?.type, 'ADDED');
    assert.equal(ev?.object.metadata.resourceVersion, w2.body.metadata.resourceVersion);
    w.close();

    // strictly after: from w1's RV, the first event is w2
    const r = await openWatch(
      sim,
      `/api/v1/namespaces/watching/configmaps?watch=1&resourceVersion=${c1.body.metadata.resourceVersion}`,
    );
    const resumed = await r.next();
    assert.equal(resumed?.object.metadata.name, 'w2');
    r.close();

    // selector: leaving the selector is DELETED, entering is ADDED
    const s = await openWatch(
      sim,
      `/api/v1/namespaces/watching/configmaps?watch=1&labelSelector=app%3Dx&resourceVersion=${w2.body.metadata.resourceVersion}&allowWatchBookmarks=true`,
    );
    const cur = (await call('GET', '/api/v1/namespaces/watching/configmaps/w1')).body;
    await call('PUT', '/api/v1/namespaces/watching/configmaps/w1', {
      ...cur,
      metadata: { ...cur.metadata, labels: { app: 'z' } },
    });
    const cur2 = (await call('GET', '/api/v1/namespaces/watching/configmaps/w2')).body;
    await call('PUT', '/api/v1/namespaces/watching/configmaps/w2', {
      ...cur2,
      metadata: { ...cur2.metadata, labels: { app: 'x' } },
    });
    const types: string[] = [];
    for (;;) {
      const e = await s.next();
      if (e?.type === 'BOOKMARK') {
        assert.match(e.object.metadata.resourceVersion, /^\d+$/);
        types.push('BOOKMARK');
        if (types.filter((t) => t !== 'BOOKMARK').length === 2) break;
        continue;
      }
      types.push(`${e?.type} ${e?.object.metadata.name}`);
      if (types.filter((t) => t !== 'BOOKMARK').length === 2 && types.includes('BOOKMARK')) break;
      if (types.filter((t) => t !== 'BOOKMARK').length === 2) continue;
    }
    assert.deepEqual(
      types.filter((t) => t !== 'BOOKMARK'),
      ['DELETED w1', 'ADDED w2'],
    );
    s.close();

    // watch-list: initial events, then a bookmark marking their end
    const wl = await openWatch(
      sim,
      '/api/v1/namespaces/watching/configmaps?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true',
    );
    const initial: string[] = [];
    for (;;) {
      const e = await wl.next();
      if (e?.type === 'BOOKMARK') {
        assert.equal(e.object.metadata.annotations['k8s.io/initial-events-end'], 'true');
        break;
      }
      initial.push(`${e?.type} ${e?.object.metadata.name}`);
    }
    assert.deepEqual(initial, ['ADDED w1', 'ADDED w2']);
    wl.close();

    // timeoutSeconds ends the stream
    const t = await openWatch(
      sim,
      `/api/v1/namespaces/watching/configmaps?watch=1&timeoutSeconds=1&resourceVersion=${sim.resourceVersion()}`,
    );
    assert.equal(await t.next(5000), undefined);
  });

  test('watch: 410 Gone as an ERROR event when the RV is older than the retained window', async () => {
    const old = sim.resourceVersion();
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'gone-1' } });
    sim.faults.compactHistory();
    const w = await openWatch(sim, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${old}`);
    const e = await w.next();
    assert.equal(e?.type, 'ERROR');
    assert.equal(e?.object.kind, 'Status');
    assert.equal(e?.object.code, 410);
    assert.equal(e?.object.reason, 'Expired');
    assert.equal(await w.next(), undefined);
    const list = await call(
      'GET',
      `/api/v1/namespaces/default/configmaps?resourceVersion=${old}&resourceVersionMatch=Exact`,
    );
    assert.equal(list.status, 410);
  });

  test('delete: graceful pods, preconditions, finalizers, propagation policies, deletecollection, dryRun', async () => {
    await call('POST', '/api/v1/namespaces', { metadata: { name: 'del' } });
    // a scheduled pod is deleted gracefully: deletionTimestamp + grace, still there
    await call(
      'POST',
      '/api/v1/namespaces/del/pods',
      pod('graceful', {}, { nodeName: 'n1', terminationGracePeriodSeconds: 20 }),
    );
    const g = await call('DELETE', '/api/v1/namespaces/del/pods/graceful');
    assert.equal(g.status, 200);
    assert.ok(g.body.metadata.deletionTimestamp);
    assert.equal(g.body.metadata.deletionGracePeriodSeconds, 20);
    assert.equal((await call('GET', '/api/v1/namespaces/del/pods/graceful')).status, 200);
    const now = await call('DELETE', '/api/v1/namespaces/del/pods/graceful?gracePeriodSeconds=0');
    assert.equal(now.status, 200);
    assert.equal((await call('GET', '/api/v1/namespaces/del/pods/graceful')).status, 404);
    // an unscheduled pod goes at once
    await call('POST', '/api/v1/namespaces/del/pods', pod('unscheduled'));
    await call('DELETE', '/api/v1/namespaces/del/pods/unscheduled');
    assert.equal((await call('GET', '/api/v1/namespaces/del/pods/unscheduled')).status, 404);
    // preconditions
    const cm = await call('POST', '/api/v1/namespaces/del/configmaps', { metadata: { name: 'pre' } });
    const wrongUid = await call('DELETE', '/api/v1/namespaces/del/configmaps/pre', {
      preconditions: { uid: 'nope' },
    });
    assert.equal(wrongUid.status, 409);
    const wrongRv = await call('DELETE', '/api/v1/namespaces/del/configmaps/pre', {
      preconditions: { resourceVersion: '1' },
    });
    assert.equal(wrongRv.status, 409);
    const ok = await call('DELETE', '/api/v1/namespaces/del/configmaps/pre', {
      preconditions: { uid: cm.body.metadata.uid },
    });
    assert.equal(ok.status, 200);
    // finalizers: deletionTimestamp set, no new finalizers, removed when the last goes
    await call('POST', '/api/v1/namespaces/del/configmaps', {
      metadata: { name: 'fin', finalizers: ['test/a'] },
    });
    const d = await call('DELETE', '/api/v1/namespaces/del/configmaps/fin');
    assert.ok(d.body.metadata.deletionTimestamp);
    const more = await call(
      'PATCH',
      '/api/v1/namespaces/del/configmaps/fin',
      { metadata: { finalizers: ['test/a', 'test/b'] } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(more.status, 422);
    const last = await call(
      'PATCH',
      '/api/v1/namespaces/del/configmaps/fin',
      { metadata: { finalizers: null } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(last.status, 200);
    assert.equal((await call('GET', '/api/v1/namespaces/del/configmaps/fin')).status, 404);
    // propagation policies add the GC's finalizers (no GC runs in this server)
    await call('POST', '/api/v1/namespaces/del/configmaps', { metadata: { name: 'fg' } });
    const fg = await call('DELETE', '/api/v1/namespaces/del/configmaps/fg', {
      propagationPolicy: 'Foreground',
    });
    assert.deepEqual(fg.body.metadata.finalizers, ['foregroundDeletion']);
    await call('POST', '/api/v1/namespaces/del/configmaps', { metadata: { name: 'or' } });
    const or = await call('DELETE', '/api/v1/namespaces/del/configmaps/or?propagationPolicy=Orphan');
    assert.deepEqual(or.body.metadata.finalizers, ['orphan']);
    // dryRun
    const dry = await call('POST', '/api/v1/namespaces/del/configmaps?dryRun=All', {
      metadata: { name: 'dry' },
    });
    assert.equal(dry.status, 201);
    assert.equal((await call('GET', '/api/v1/namespaces/del/configmaps/dry')).status, 404);
    await call('POST', '/api/v1/namespaces/del/configmaps', { metadata: { name: 'keep' } });
    const dryDel = await call('DELETE', '/api/v1/namespaces/del/configmaps/keep?dryRun=All');
    assert.equal(dryDel.status, 200);
    assert.equal((await call('GET', '/api/v1/namespaces/del/configmaps/keep')).status, 200);
    // deletecollection with a selector
    for (const n of ['dc1', 'dc2', 'dc3']) {
      await call('POST', '/api/v1/namespaces/del/configmaps', {
        metadata: { name: n, labels: { dc: n === 'dc3' ? 'no' : 'yes' } },
      });
    }
    const dc = await call('DELETE', '/api/v1/namespaces/del/configmaps?labelSelector=dc%3Dyes');
    assert.equal(dc.status, 200);
    const left = await call('GET', '/api/v1/namespaces/del/configmaps?labelSelector=dc');
    assert.deepEqual(
      left.body.items.map((x: { metadata: { name: string } }) => x.metadata.name),
      ['dc3'],
    );
    // protected namespaces
    assert.equal((await call('DELETE', '/api/v1/namespaces/default')).status, 403);
  });

  test('CRDs: established, served, defaulted, validated, pruned, status and scale subresources, printer columns', async () => {
    const crd = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', WIDGET_CRD);
    assert.equal(crd.status, 201, JSON.stringify(crd.body));
    const conds = crd.body.status.conditions.map(
      (c: { type: string; status: string }) => `${c.type}=${c.status}`,
    );
    assert.ok(conds.includes('Established=True') && conds.includes('NamesAccepted=True'));
    const disc = await call('GET', '/apis/test.io/v1');
    const names = disc.body.resources.map((r: { name: string }) => r.name);
    assert.deepEqual(names.sort(), ['widgets', 'widgets/scale', 'widgets/status']);
    const base = '/apis/test.io/v1/namespaces/default/widgets';
    const w = await call('POST', base, {
      apiVersion: 'test.io/v1',
      kind: 'Widget',
      metadata: { name: 'w' },
      spec: { color: 'red' },
      status: { replicas: 4 },
    });
    assert.equal(w.status, 201, JSON.stringify(w.body));
    assert.equal(w.body.spec.replicas, 1, 'defaulted');
    assert.equal(w.body.status, undefined, 'status dropped on create');
    const bad = await call('POST', base, {
      apiVersion: 'test.io/v1',
      kind: 'Widget',
      metadata: { name: 'bad' },
      spec: { replicas: 1000, color: 'green' },
    });
    assert.equal(bad.status, 422);
    const fields = bad.body.details.causes.map((c: { field: string }) => c.field).sort();
    assert.deepEqual(fields, ['spec.color', 'spec.replicas']);
    // fieldValidation
    const strict = await call('POST', base + '?fieldValidation=Strict', {
      apiVersion: 'test.io/v1',
      kind: 'Widget',
      metadata: { name: 's' },
      spec: { foo: 1 },
    });
    assert.equal(strict.status, 400);
    assert.match(strict.body.message, /unknown field "spec\.foo"/);
    const warn = await call('POST', base + '?fieldValidation=Warn', {
      apiVersion: 'test.io/v1',
      kind: 'Widget',
      metadata: { name: 's' },
      spec: { foo: 1 },
    });
    assert.equal(warn.status, 201);
    assert.equal(warn.body.spec.foo, undefined, 'pruned');
    assert.match(warn.headers.get('warning') ?? '', /299 - "unknown field \\"spec\.foo\\""/);
    // built-in kinds too: Strict names the unknown field, Warn warns (and keeps it)
    const podStrict = await call('POST', '/api/v1/namespaces/default/pods?fieldValidation=Strict', {
      ...pod('strict-pod'),
      spec: { containers: [{ name: 'c', image: 'x', imagee: 'y' }] },
    });
    assert.equal(podStrict.status, 400);
    assert.match(podStrict.body.message, /unknown field "spec\.containers\[0\]\.imagee"/);
    const podWarn = await call('POST', '/api/v1/namespaces/default/pods', { ...pod('warn-pod'), foo: 1 });
    assert.equal(podWarn.status, 201);
    assert.match(podWarn.headers.get('warning') ?? '', /unknown field \\"foo\\"/);
    // strategic merge patch is not for custom resources
    const smp = await call(
      'PATCH',
      base + '/w',
      { spec: { replicas: 2 } },
      { 'content-type': 'application/strategic-merge-patch+json' },
    );
    assert.equal(smp.status, 415);
    // status subresource
    const st = await call(
      'PATCH',
      base + '/w/status',
      { status: { replicas: 2, selector: 'app=w' }, spec: { replicas: 50 } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(st.status, 200);
    assert.equal(st.body.status.replicas, 2);
    assert.equal(st.body.spec.replicas, 1);
    const main = await call(
      'PATCH',
      base + '/w',
      { spec: { replicas: 3 }, status: { replicas: 9 } },
      {
        'content-type': 'application/merge-patch+json',
      },
    );
    assert.equal(main.body.status.replicas, 2);
    assert.equal(main.body.metadata.generation, 2);
    // scale subresource
    const sc = await call('GET', base + '/w/scale');
    assert.deepEqual(
      [
        sc.body.apiVersion,
        sc.body.kind,
        sc.body.spec.replicas,
        sc.body.status.replicas,
        sc.body.status.selector,
      ],
      ['autoscaling/v1', 'Scale', 3, 2, 'app=w'],
    );
    const put = await call('PUT', base + '/w/scale', { ...sc.body, spec: { replicas: 5 } });
    assert.equal(put.body.spec.replicas, 5);
    const stale = await call('PUT', base + '/w/scale', { ...sc.body, spec: { replicas: 6 } });
    assert.equal(stale.status, 409);
    // printer columns
    const tbl = await call('GET', base, undefined, {
      accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    });
    assert.equal(tbl.body.kind, 'Table');
    assert.deepEqual(
      tbl.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Desired', 'Color'],
    );
    const row = tbl.body.rows.find((r: { cells: unknown[] }) => r.cells[0] === 'w');
    assert.deepEqual(row.cells, ['w', 5, 'red']);
    // deleting the CRD removes its objects and its API
    const del = await call(
      'DELETE',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/widgets.test.io',
    );
    assert.equal(del.status, 200);
    assert.equal((await call('GET', base)).status, 404);
    assert.equal((await call('GET', '/apis/test.io/v1')).status, 404);
  });

  test('CRDs with several versions: one storage version, each served version sees its apiVersion', async () => {
    const schema = {
      openAPIV3Schema: {
        type: 'object',
        properties: { spec: { type: 'object', properties: { size: { type: 'integer', default: 3 } } } },
      },
    };
    const crd = await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', {
      apiVersion: 'apiextensions.k8s.io/v1',
      kind: 'CustomResourceDefinition',
      metadata: { name: 'things.mv.io' },
      spec: {
        group: 'mv.io',
        scope: 'Cluster',
        names: { kind: 'Thing', plural: 'things' },
        versions: [
          { name: 'v1beta1', served: true, storage: false, schema },
          { name: 'v1', served: true, storage: true, schema },
        ],
      },
    });
    assert.equal(crd.status, 201, JSON.stringify(crd.body));
    assert.deepEqual(crd.body.status.storedVersions, ['v1']);
    const group = await call('GET', '/apis/mv.io');
    assert.equal(group.body.preferredVersion.version, 'v1');
    const agg = await call('GET', '/apis', undefined, {
      accept: 'application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList',
    });
    const mv = agg.body.items.find((i: { metadata: { name: string } }) => i.metadata.name === 'mv.io');
    assert.deepEqual(
      mv.versions.map((v: { version: string }) => v.version),
      ['v1', 'v1beta1'],
    );
    const made = await call('POST', '/apis/mv.io/v1beta1/things', {
      apiVersion: 'mv.io/v1beta1',
      kind: 'Thing',
      metadata: { name: 't1' },
      spec: {},
    });
    assert.equal(made.body.apiVersion, 'mv.io/v1beta1');
    assert.equal(made.body.spec.size, 3);
    const v1 = await call('GET', '/apis/mv.io/v1/things/t1');
    assert.equal(v1.body.apiVersion, 'mv.io/v1');
    assert.equal(v1.body.metadata.uid, made.body.metadata.uid);
    const list = await call('GET', '/apis/mv.io/v1beta1/things');
    assert.equal(list.body.apiVersion, 'mv.io/v1beta1');
    assert.equal(list.body.items[0].apiVersion, 'mv.io/v1beta1');
    const wrong = await call('POST', '/apis/mv.io/v1/things', {
      apiVersion: 'mv.io/v1beta1',
      kind: 'Thing',
      metadata: { name: 't2' },
    });
    assert.equal(wrong.status, 400);
  });

  test('events: core/v1 and events.k8s.io/v1 are two views of one store', async () => {
    const core = await call('POST', '/api/v1/namespaces/default/events', {
      metadata: { name: 'ev-core' },
      involvedObject: { kind: 'Pod', name: 'p1', namespace: 'default' },
      reason: 'Started',
      message: 'started it',
      type: 'Normal',
      source: { component: 'kubelet' },
      count: 2,
    });
    assert.equal(core.status, 201);
    const asV1 = await call('GET', '/apis/events.k8s.io/v1/namespaces/default/events/ev-core');
    assert.equal(asV1.body.apiVersion, 'events.k8s.io/v1');
    assert.deepEqual(asV1.body.regarding, { kind: 'Pod', name: 'p1', namespace: 'default' });
    assert.equal(asV1.body.note, 'started it');
    assert.equal(asV1.body.deprecatedCount, 2);
    assert.equal(asV1.body.metadata.resourceVersion, core.body.metadata.resourceVersion);
    const w = await openWatch(
      sim,
      `/apis/events.k8s.io/v1/namespaces/default/events?watch=1&resourceVersion=${core.body.metadata.resourceVersion}&fieldSelector=regarding.name%3Dp2`,
    );
    const v1 = await call('POST', '/apis/events.k8s.io/v1/namespaces/default/events', {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'ev-v1' },
      eventTime: '2024-01-01T00:00:00.000000Z',
      regarding: { kind: 'Pod', name: 'p2', namespace: 'default' },
      reason: 'Created',
      note: 'made it',
      type: 'Normal',
      action: 'Create',
      reportingController: 'podset-operator',
      reportingInstance: 'worker-1',
    });
    assert.equal(v1.status, 201, JSON.stringify(v1.body));
    assert.equal(v1.body.note, 'made it');
    const seen = await w.next();
    assert.equal(seen?.type, 'ADDED');
    assert.equal(seen?.object.apiVersion, 'events.k8s.io/v1');
    assert.equal(seen?.object.regarding.name, 'p2');
    w.close();
    const asCore = await call(
      'GET',
      '/api/v1/namespaces/default/events?fieldSelector=involvedObject.name%3Dp2',
    );
    assert.equal(asCore.body.items.length, 1);
    assert.equal(asCore.body.items[0].message, 'made it');
    assert.equal(asCore.body.items[0].reportingComponent, 'podset-operator');
    const both = await call('GET', '/apis/events.k8s.io/v1/namespaces/default/events');
    const names = both.body.items.map((e: { metadata: { name: string } }) => e.metadata.name);
    assert.ok(names.includes('ev-core') && names.includes('ev-v1'));
    assert.equal(
      (await call('DELETE', '/apis/events.k8s.io/v1/namespaces/default/events/ev-core')).status,
      200,
    );
    assert.equal((await call('GET', '/api/v1/namespaces/default/events/ev-core')).status, 404);
  });

  test('table output: pods NAME READY STATUS RESTARTS AGE, others NAME AGE', async () => {
    await call('POST', '/api/v1/namespaces/default/pods', pod('tbl'));
    const accept = { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json' };
    const t = await call('GET', '/api/v1/namespaces/default/pods/tbl', undefined, accept);
    assert.deepEqual(
      t.body.columnDefinitions
        .filter((c: { priority: number }) => c.priority === 0)
        .map((c: { name: string }) => c.name),
      ['Name', 'Ready', 'Status', 'Restarts', 'Age'],
    );
    assert.deepEqual(t.body.rows[0].cells.slice(0, 4), ['tbl', '0/1', 'Pending', 0]);
    assert.equal(t.body.rows[0].object.kind, 'PartialObjectMetadata');
    const l = await call('GET', '/apis/coordination.k8s.io/v1/namespaces/default/leases', undefined, accept);
    assert.ok(l.body.columnDefinitions.length >= 2);
    const svc = await call('POST', '/api/v1/namespaces/default/services', {
      metadata: { name: 'svc' },
      spec: { type: 'NodePort', selector: { app: 'x' }, ports: [{ port: 80 }] },
    });
    assert.match(svc.body.spec.clusterIP, /^10\.96\.\d+\.\d+$/);
    assert.equal(svc.body.spec.ports[0].targetPort, 80);
    assert.ok(svc.body.spec.ports[0].nodePort >= 30000);
    const st = await call('GET', '/api/v1/namespaces/default/services/svc', undefined, accept);
    assert.deepEqual(st.body.rows[0].cells.slice(0, 5), [
      'svc',
      'NodePort',
      svc.body.spec.clusterIP,
      '<none>',
      `80:${svc.body.spec.ports[0].nodePort}/TCP`,
    ]);
    const sa = await call('GET', '/api/v1/namespaces/default/serviceaccounts', undefined, accept);
    assert.deepEqual(
      sa.body.columnDefinitions.map((c: { name: string }) => c.name),
      ['Name', 'Age'],
    );
  });

  test('pods/binding, pods/eviction and pods/log', async () => {
    await call('POST', '/api/v1/namespaces/default/pods', pod('bindme'));
    const b = await call('POST', '/api/v1/namespaces/default/pods/bindme/binding', {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name: 'bindme' },
      target: { apiVersion: 'v1', kind: 'Node', name: 'node-a' },
    });
    assert.equal(b.status, 201);
    assert.equal((await call('GET', '/api/v1/namespaces/default/pods/bindme')).body.spec.nodeName, 'node-a');
    const again = await call('POST', '/api/v1/namespaces/default/pods/bindme/binding', {
      target: { name: 'node-b' },
    });
    assert.equal(again.status, 409);
    const log = await fetch(sim.url + '/api/v1/namespaces/default/pods/bindme/log', {
      headers: { authorization: `Bearer ${sim.tokens.admin}` },
    });
    assert.equal(log.status, 200);
    assert.match(await log.text(), /bindme/);
    const ev = await call('POST', '/api/v1/namespaces/default/pods/bindme/eviction', {
      apiVersion: 'policy/v1',
      kind: 'Eviction',
      metadata: { name: 'bindme' },
      deleteOptions: { gracePeriodSeconds: 0 },
    });
    assert.equal(ev.status, 201);
    assert.equal((await call('GET', '/api/v1/namespaces/default/pods/bindme')).status, 404);
  });

  test('subresources: one the resource lacks is a 404, a verb the subresource lacks a 405', async () => {
    await call('POST', '/api/v1/namespaces/default/pods', pod('subs'));
    const pods = '/api/v1/namespaces/default/pods/subs';
    // `constructor` and `toString` are properties of every object: still no subresource of a pod.
    for (const sub of ['constructor', 'toString', 'widgets', 'token']) {
      assert.equal((await call('POST', `${pods}/${sub}`, {})).status, 404, sub);
    }
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/x/scale')).status, 404);
    assert.equal((await call('GET', `${pods}/binding`)).status, 405);
    assert.equal((await call('PUT', `${pods}/log`, {})).status, 405);
    assert.equal((await call('GET', '/api/v1/namespaces/default/serviceaccounts/default/token')).status, 405);
    assert.equal((await call('GET', '/kube-sim/history')).status, 404);
  });

  test('control API: faults, audit and history over HTTP (admin only)', async () => {
    const set = await call('PUT', '/kube-sim/faults', {
      errors: [{ verb: 'list', resource: 'secrets', code: 500 }],
    });
    assert.equal(set.status, 200);
    assert.equal(set.body.errors.length, 1);
    assert.equal((await call('GET', '/api/v1/namespaces/default/secrets')).status, 500);
    assert.equal((await call('PUT', '/kube-sim/faults', { reset: true })).body.errors.length, 0);
    assert.equal((await call('GET', '/api/v1/namespaces/default/secrets')).status, 200);
    const audit = await call('GET', '/kube-sim/audit?resource=secrets&code=500');
    assert.ok(audit.body.length >= 1);
    assert.equal(audit.body[0].verb, 'list');
    assert.equal((await client(sim, 'worker')('GET', '/kube-sim/faults')).status, 403);
    const old = sim.resourceVersion();
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { generateName: 'h-' } });
    assert.equal((await call('POST', '/kube-sim/history', { compact: true })).status, 200);
    const w = await openWatch(sim, `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${old}`);
    assert.equal((await w.next())?.object.code, 410);
  });

  test('errors are Status objects: 400, 404, 405, 415', async () => {
    const badJson = await call('POST', '/api/v1/namespaces/default/configmaps', '{not json');
    assert.equal(badJson.status, 400);
    assert.equal(badJson.body.kind, 'Status');
    assert.equal(badJson.body.reason, 'BadRequest');
    const unknown = await call('GET', '/api/v1/widgets');
    assert.equal(unknown.status, 404);
    const put = await call('PUT', '/api/v1/namespaces/default/configmaps', {});
    assert.equal(put.status, 405);
    assert.equal(put.body.reason, 'MethodNotAllowed');
    const cbor = await call('POST', '/api/v1/namespaces/default/configmaps', 'x', {
      'content-type': 'application/cbor',
    });
    assert.equal(cbor.status, 415);
    const kind = await call('POST', '/api/v1/namespaces/default/configmaps', {
      kind: 'Secret',
      metadata: { name: 'k' },
    });
    assert.equal(kind.status, 400);
  });

  test('faults: injected errors with Retry-After, expired watches, cut watches', async () => {
    sim.faults.set({
      errors: [{ verb: 'create', resource: 'configmaps', code: 429, retryAfterSeconds: 2, times: 1 }],
    });
    const r = await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'f1' } });
    assert.equal(r.status, 429);
    assert.equal(r.headers.get('retry-after'), '2');
    assert.equal(r.body.reason, 'TooManyRequests');
    assert.equal(
      (await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'f1' } })).status,
      201,
      'spent after one',
    );
    sim.faults.set({ errors: [{ verb: 'get', resource: 'configmaps', code: 503 }] });
    assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/f1')).status, 503);
    assert.equal(
      (await call('GET', '/api/v1/namespaces/default/secrets')).status,
      200,
      'other resources unaffected',
    );
    // a rule for one subresource: status writes fail, the rest works
    sim.faults.set({ errors: [{ verb: 'update', resource: 'deployments/status', code: 500 }] });
    const dep = (await call('GET', '/apis/apps/v1/namespaces/default/deployments/dep')).body;
    assert.equal(
      (await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep/status', dep)).status,
      500,
    );
    assert.equal((await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep', dep)).status, 200);
    sim.faults.set({ errors: [{ verb: 'update', resource: 'deployments', code: 503 }] });
    assert.equal(
      (await call('PUT', '/apis/apps/v1/namespaces/default/deployments/dep/status', dep)).status,
      503,
      'a resource rule covers its subresources',
    );
    sim.faults.reset();
    sim.faults.expireNextWatch();
    const w = await openWatch(
      sim,
      `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${sim.resourceVersion()}`,
    );
    assert.equal((await w.next())?.object.code, 410);
    // a silent stall: the stream stays open but nothing more arrives; new watches work
    const stalled = await openWatch(
      sim,
      `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${sim.resourceVersion()}`,
    );
    assert.ok(sim.faults.stallWatches() >= 1);
    await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'during-stall' } });
    await assert.rejects(stalled.next(300), /no watch event/);
    stalled.close();
    const fresh = await openWatch(
      sim,
      '/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Dduring-stall',
    );
    assert.equal((await fresh.next())?.object.metadata.name, 'during-stall');
    fresh.close();
    sim.faults.set({ watchCutAfterEvents: 2 });
    const c = await openWatch(sim, '/api/v1/namespaces/default/configmaps?watch=1');
    assert.ok(await c.next());
    assert.ok(await c.next());
    assert.equal(await c.next(), undefined, 'cut after two events');
    sim.faults.reset();
  });
});

describe('kube-sim restart and pause', () => {
  test('restart keeps the store, ends watches and restarts the watch cache; pause refuses connections until resume', async () => {
    const sim = await startKubeSim({ controllers: false });
    try {
      const call = client(sim);
      const cm = await call('POST', '/api/v1/namespaces/default/configmaps', {
        metadata: { name: 'survivor' },
      });
      const w = await openWatch(
        sim,
        `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${cm.body.metadata.resourceVersion}`,
      );
      // another object changes, so the store moves past the watch's RV (as a cluster's does)
      await call('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'other' } });
      assert.equal((await w.next())?.object.metadata.name, 'other');
      await sim.restart();
      assert.equal(await w.next(), undefined, 'the watch ended');
      const got = await call('GET', '/api/v1/namespaces/default/configmaps/survivor');
      assert.equal(got.body.metadata.uid, cm.body.metadata.uid);
      // the watch cache restarted with the server: resuming from an RV before the restart is 410
      const w2 = await openWatch(
        sim,
        `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${cm.body.metadata.resourceVersion}`,
      );
      assert.equal((await w2.next())?.object.code, 410);
      // a restart that loses the history too (as an etcd compaction): resuming from an old RV is 410
      await sim.restart({ compactHistory: true });
      const w3 = await openWatch(
        sim,
        `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${cm.body.metadata.resourceVersion}`,
      );
      assert.equal((await w3.next())?.object.code, 410);
      assert.equal((await call('GET', '/api/v1/namespaces/default/configmaps/survivor')).status, 200);
      await sim.pause();
      await assert.rejects(fetch(sim.url + '/healthz'));
      await sim.resume();
      assert.equal((await fetch(sim.url + '/healthz')).status, 200);
    } finally {
      await sim.close();
    }
  });
});
