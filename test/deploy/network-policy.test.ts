// The network policy of every rendered kustomization (`kubectl kustomize`): default deny both ways for the
// namespace, then exactly what the operator needs — the apps reach the API server, DNS and Redis; Redis
// answers only the apps; Prometheus reaches the metrics ports; anyone reaches the dashboard's UI (it asks
// for the token) but not its unauthenticated metrics. The dashboard's UI Service does not publish the
// metrics port, and the monitoring overlay scrapes a Service that does.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KUSTOMIZATIONS, find, render, type K8sObject } from './manifests.ts';
import { allowed, selects, type Endpoint, type LabelSelector, type NetworkPolicy } from './network-policy.ts';

const NS = 'podset-system';
const API_SERVER: Endpoint = { kind: 'external' };
const OUTSIDE: Endpoint = { kind: 'external' };

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
      expect(`${app} → DNS udp/53`, true, allowed(policies, pod, OUTSIDE, 53, 'UDP'));
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
    }
    const init = pods.get('redis-secret-init');
    if (init) {
      expect('secret-init Job → API server', true, allowed(policies, init, API_SERVER, 443));
      if (redis) expect('secret-init Job → Redis', false, allowed(policies, init, redis, 6379));
    }
    expect('a pod of the namespace → anywhere', false, allowed(policies, neighbour, OUTSIDE, 443));
    assert.deepEqual(problems, []);
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
    if (dir === 'k8s/overlays/monitoring') assert.equal(monitors.length, 3);
  });
}
