// The network policy of every rendered kustomization (`kubectl kustomize`): default deny both ways for the
// namespace, then exactly what the operator needs — the apps reach the API server, DNS and Redis; Redis
// answers only the apps; Prometheus reaches the metrics ports; anyone reaches the dashboard's UI (it asks
// for the token) but not its unauthenticated metrics. The dashboard's UI Service does not publish the
// metrics port, and the monitoring overlay scrapes a Service that does. Kustomize cannot look the API
// server's addresses up: by default its rule is limited by port only (443 and 6443 to any address, never
// another port), annotated so; k8s/components/api-server-egress confines it to the addresses set there.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { parse, stringify } from 'yaml';
import { parseK8sYaml } from '../../scripts/k8s-yaml.ts';
import { KUSTOMIZATIONS, find, render, type K8sObject } from './manifests.ts';
import { REPO } from './support.ts';
import { allowed, selects, type Endpoint, type LabelSelector, type NetworkPolicy } from './network-policy.ts';

const NS = 'podset-system';
/** The API server, at an address the rendered manifests do not know (no component sets it). */
const API_SERVER: Endpoint = { kind: 'external', ip: '172.18.0.2' };
/** Any other address outside the pod network. */
const OUTSIDE: Endpoint = { kind: 'external', ip: '203.0.113.7' };
/** The cluster's DNS pods, and pods that only look like them. */
const KUBE_DNS: Endpoint = { kind: 'pod', namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } };
const OTHER_KUBE_SYSTEM: Endpoint = { kind: 'pod', namespace: 'kube-system', labels: { app: 'other' } };
const FAKE_DNS: Endpoint = { kind: 'pod', namespace: 'default', labels: { 'k8s-app': 'kube-dns' } };

interface PodTemplateOwner extends K8sObject {
  spec: { template: { metadata?: { labels?: Record<string, string> } } };
}

/** The pods a kustomization runs, by component label. */
function podsOf(objects: K8sObject[]): Map<string, Endpoint & { kind: 'pod' }> {
  const pods = new Map<string, Endpoint & { kind: 'pod' }>();
  for (const o of objects) {
    if (!['Deployment', 'StatefulSet', 'Job'].includes(o.kind)) continue;
    const labels = (o as PodTemplateOwner).spec.template.metadata?.labels ?? {};
    const component = labels['app.kubernetes.io/component'];
    if (component) pods.set(component, { kind: 'pod', namespace: o.metadata.namespace ?? NS, labels });
  }
  return pods;
}

const prometheus: Endpoint = {
  kind: 'pod',
  namespace: 'monitoring',
  labels: { 'app.kubernetes.io/name': 'prometheus', 'app.kubernetes.io/instance': 'k8s' },
};
const stranger: Endpoint = { kind: 'pod', namespace: 'default', labels: { app: 'curious' } };
/** A pod outside the monitoring namespace wearing Prometheus's label. */
const fakePrometheus: Endpoint = {
  kind: 'pod',
  namespace: 'default',
  labels: { 'app.kubernetes.io/name': 'prometheus' },
};
const neighbour: Endpoint = { kind: 'pod', namespace: NS, labels: { app: 'debug' } };

const METRICS_PORT: Record<string, number> = { watcher: 8080, worker: 8081, dashboard: 8083 };

for (const dir of [...KUSTOMIZATIONS, 'k8s/overlays/monitoring'] as const) {
  test(`${dir}: default deny, and only what the operator needs is open`, () => {
    const objects = render(dir);
    const policies = objects.filter((o): o is NetworkPolicy => o.kind === 'NetworkPolicy');
    const denyAll = policies.filter(
      (p) =>
        Object.keys(p.spec.podSelector).length === 0 &&
        (p.spec.policyTypes ?? []).includes('Ingress') &&
        (p.spec.policyTypes ?? []).includes('Egress') &&
        (p.spec.ingress ?? []).length === 0 &&
        (p.spec.egress ?? []).length === 0,
    );
    assert.equal(denyAll.length, 1, 'one default-deny policy for ingress and egress, selecting every pod');

    const pods = podsOf(objects);
    const redis = pods.get('redis');
    const apps = ['watcher', 'worker', 'dashboard'];
    const problems: string[] = [];
    const expect = (what: string, want: boolean, got: boolean) => {
      if (want !== got) problems.push(`${what}: ${want ? 'refused' : 'allowed'}`);
    };
    for (const app of apps) {
      const pod = pods.get(app);
      assert.ok(pod, `${dir} runs the ${app}`);
      expect(`${app} → API server :443`, true, allowed(policies, pod, API_SERVER, 443));
      expect(`${app} → API server :6443`, true, allowed(policies, pod, API_SERVER, 6443));
      // Port only: any address on those two ports, and no other port (below: :80, :6379, :53).
      expect(`${app} → another address :443`, true, allowed(policies, pod, OUTSIDE, 443));
      expect(`${app} → another address :6443`, true, allowed(policies, pod, OUTSIDE, 6443));
      expect(`${app} → another address udp/443`, false, allowed(policies, pod, OUTSIDE, 443, 'UDP'));
      expect(`${app} → kube-dns udp/53`, true, allowed(policies, pod, KUBE_DNS, 53, 'UDP'));
      expect(`${app} → kube-dns tcp/53`, true, allowed(policies, pod, KUBE_DNS, 53, 'TCP'));
      expect(`${app} → another address udp/53`, false, allowed(policies, pod, OUTSIDE, 53, 'UDP'));
      expect(
        `${app} → another kube-system pod :53`,
        false,
        allowed(policies, pod, OTHER_KUBE_SYSTEM, 53, 'UDP'),
      );
      expect(
        `${app} → a kube-dns lookalike in default :53`,
        false,
        allowed(policies, pod, FAKE_DNS, 53, 'UDP'),
      );
      expect(`${app} → anywhere :80`, false, allowed(policies, pod, OUTSIDE, 80));
      if (redis) {
        expect(`${app} → in-cluster Redis :6379`, true, allowed(policies, pod, redis, 6379));
        expect(`${app} → external :6379`, false, allowed(policies, pod, OUTSIDE, 6379));
      } else {
        expect(`${app} → external Redis :6379`, true, allowed(policies, pod, OUTSIDE, 6379));
        // REDIS_SENTINELS: the apps ask the sentinels for the primary first.
        expect(`${app} → external Sentinel :26379`, true, allowed(policies, pod, OUTSIDE, 26379));
      }
      expect(
        `Prometheus → ${app} metrics`,
        true,
        allowed(policies, prometheus, pod, METRICS_PORT[app] as number),
      );
      expect(
        `a pod labelled prometheus outside monitoring → ${app} metrics`,
        false,
        allowed(policies, fakePrometheus, pod, METRICS_PORT[app] as number),
      );
      expect(
        `another namespace's pod → ${app} metrics`,
        false,
        allowed(policies, stranger, pod, METRICS_PORT[app] as number),
      );
      expect(
        `a pod of ${NS} → ${app} metrics`,
        false,
        allowed(policies, neighbour, pod, METRICS_PORT[app] as number),
      );
    }
    const dashboard = pods.get('dashboard') as Endpoint;
    expect('anyone → dashboard UI :8082', true, allowed(policies, stranger, dashboard, 8082));
    expect(
      'anyone → watcher metrics',
      false,
      allowed(policies, OUTSIDE, pods.get('watcher') as Endpoint, 8080),
    );
    if (redis) {
      expect('another namespace → Redis', false, allowed(policies, stranger, redis, 6379));
      expect('a pod of the namespace → Redis', false, allowed(policies, neighbour, redis, 6379));
      expect('Redis → anywhere', false, allowed(policies, redis, OUTSIDE, 443));
      expect(
        "Prometheus → the Redis pod's script loader :8090",
        true,
        allowed(policies, prometheus, redis, 8090),
      );
      expect('another namespace → the script loader :8090', false, allowed(policies, stranger, redis, 8090));
      expect('Prometheus → Redis :6379', false, allowed(policies, prometheus, redis, 6379));
    }
    // An external Redis: the script loader is a pod of its own, reaching that Redis and DNS only.
    const loader = pods.get('redis-scripts');
    assert.equal(
      loader !== undefined,
      redis === undefined,
      'a loader pod exactly when there is no Redis pod',
    );
    if (loader) {
      expect('loader → external Redis :6379', true, allowed(policies, loader, OUTSIDE, 6379));
      expect('loader → external Sentinel :26379', true, allowed(policies, loader, OUTSIDE, 26379));
      expect('loader → kube-dns udp/53', true, allowed(policies, loader, KUBE_DNS, 53, 'UDP'));
      expect('loader → a kube-dns lookalike :53', false, allowed(policies, loader, FAKE_DNS, 53, 'UDP'));
      expect('loader → API server :443', false, allowed(policies, loader, API_SERVER, 443));
      expect('loader → anywhere :80', false, allowed(policies, loader, OUTSIDE, 80));
      expect('Prometheus → loader metrics :8090', true, allowed(policies, prometheus, loader, 8090));
      expect(
        'a pod labelled prometheus elsewhere → loader',
        false,
        allowed(policies, fakePrometheus, loader, 8090),
      );
      expect('a pod of the namespace → loader', false, allowed(policies, neighbour, loader, 8090));
    }
    const init = pods.get('redis-secret-init');
    if (init) {
      expect('secret-init Job → API server', true, allowed(policies, init, API_SERVER, 443));
      expect('secret-init Job → anywhere :80', false, allowed(policies, init, OUTSIDE, 80));
      if (redis) expect('secret-init Job → Redis', false, allowed(policies, init, redis, 6379));
    }
    expect('a pod of the namespace → anywhere', false, allowed(policies, neighbour, OUTSIDE, 443));
    assert.deepEqual(problems, []);
    const egress = find(policies, 'NetworkPolicy', 'podset-api-server-egress') as NetworkPolicy & {
      metadata: { annotations?: Record<string, string> };
    };
    assert.equal(egress.metadata.annotations?.['podset.io/api-server-egress'], 'port-only');
    assert.match(
      egress.metadata.annotations?.['podset.io/api-server-egress-note'] ?? '',
      /limited by port only .*k8s\/components\/api-server-egress/,
    );
    const config = find(objects, 'ConfigMap', 'podset-operator') as K8sObject & {
      data: Record<string, string>;
    };
    assert.equal(config.data.API_SERVER_EGRESS, 'port-only', 'the apps are told the mode');
    assert.doesNotMatch(
      JSON.stringify(objects),
      /192\.0\.2\.1|SET-YOUR-API-SERVER-IP/,
      'no placeholder address',
    );
  });

  test(`${dir}: the dashboard's UI Service does not publish its unauthenticated metrics port`, () => {
    const objects = render(dir);
    const services = objects.filter((o) => o.kind === 'Service') as (K8sObject & {
      spec: {
        selector?: Record<string, string>;
        ports: { name?: string; port: number; targetPort?: unknown }[];
      };
    })[];
    const ui = find(services, 'Service', 'podset-dashboard') as (typeof services)[number];
    assert.deepEqual(
      ui.spec.ports.map((p) => p.targetPort),
      ['http'],
      'the UI Service publishes the token-protected port only',
    );
    const monitors = objects.filter((o) => o.kind === 'ServiceMonitor') as (K8sObject & {
      spec: { selector: LabelSelector; jobLabel?: string; endpoints: { port: string }[] };
    })[];
    for (const m of monitors) {
      const scraped = services.filter(
        (s) =>
          selects(m.spec.selector, s.metadata.labels ?? {}) &&
          m.spec.endpoints.some((e) => s.spec.ports.some((p) => p.name === e.port)),
      );
      assert.equal(scraped.length, 1, `ServiceMonitor ${m.metadata.name} scrapes one Service`);
      const svc = scraped[0] as (typeof services)[number];
      const job = m.spec.jobLabel ? svc.metadata.labels?.[m.spec.jobLabel] : svc.metadata.name;
      assert.equal(job, m.metadata.name, `ServiceMonitor ${m.metadata.name}: the job keeps the app's name`);
    }
    if (dir === 'k8s/overlays/monitoring') assert.equal(monitors.length, 4);
  });
}

test('k8s/components/api-server-egress, added to k8s/ or any overlay, confines the API server egress to the addresses set there', () => {
  // A copy of k8s/ (and crds/, which it includes) with the component's file set as docs/install.md says,
  // and the component added to each kustomization.
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'podset-api-egress-'));
  try {
    cpSync(path.join(REPO, 'k8s'), path.join(tmp, 'k8s'), { recursive: true });
    cpSync(path.join(REPO, 'crds'), path.join(tmp, 'crds'), { recursive: true });
    writeFileSync(
      path.join(tmp, 'k8s/components/api-server-egress/api-server-endpoints.yaml'),
      [
        '- op: add',
        '  path: /spec/egress/0/to',
        '  value:',
        '    - ipBlock:',
        '        cidr: 10.0.0.11/32',
        '    - ipBlock:',
        '        cidr: 10.0.0.12/32',
        '',
      ].join('\n'),
    );
    for (const dir of [...KUSTOMIZATIONS, 'k8s/overlays/monitoring']) {
      const file = path.join(tmp, dir, 'kustomization.yaml');
      const kustomization = parse(readFileSync(file, 'utf8')) as { components?: string[] };
      const component = path.relative(
        path.join(tmp, dir),
        path.join(tmp, 'k8s/components/api-server-egress'),
      );
      kustomization.components = [...(kustomization.components ?? []), component];
      writeFileSync(file, stringify(kustomization));
      const text = execFileSync('kubectl', ['kustomize', path.join(tmp, dir)], { encoding: 'utf8' });
      const objects = parseK8sYaml<K8sObject>(text);
      const policies = objects.filter((o): o is NetworkPolicy => o.kind === 'NetworkPolicy');
      const worker = podsOf(objects).get('worker') as Endpoint;
      const at = (ip: string): Endpoint => ({ kind: 'external', ip });
      assert.ok(allowed(policies, worker, at('10.0.0.11'), 6443), `${dir}: the first endpoint`);
      assert.ok(allowed(policies, worker, at('10.0.0.12'), 443), `${dir}: the second endpoint`);
      assert.ok(!allowed(policies, worker, at('10.0.0.13'), 443), `${dir}: not a neighbour`);
      assert.ok(!allowed(policies, worker, OUTSIDE, 6443), `${dir}: no other address`);
      assert.ok(allowed(policies, worker, KUBE_DNS, 53, 'UDP'), `${dir}: DNS stays`);
      const egress = find(policies, 'NetworkPolicy', 'podset-api-server-egress') as NetworkPolicy & {
        metadata: { annotations?: Record<string, string> };
      };
      assert.deepEqual(egress.metadata.annotations, { 'podset.io/api-server-egress': 'confined' }, dir);
      const config = find(objects, 'ConfigMap', 'podset-operator') as K8sObject & {
        data: Record<string, string>;
      };
      assert.equal(config.data.API_SERVER_EGRESS, 'confined', `${dir}: the apps are told`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
});
