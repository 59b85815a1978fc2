// k8s/overlays/monitoring renders with kustomize: the base plus ServiceMonitors that each find one
// Service and its unauthenticated metrics port, the PrometheusRule, and the Grafana dashboard's
// ConfigMap. Its component adds the same to another overlay (keda here). The job names the rules and
// the dashboard query are the Services' names (the ServiceMonitors' default job label), or the value of the
// Service label a ServiceMonitor names as its jobLabel (the dashboard's metrics Service).
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { find, render, workloads, type K8sObject } from '../deploy/manifests.ts';
import { DASHBOARD_FILE, OVERLAY, readRuleGroups, REPO } from './support.ts';

interface ServiceMonitor extends K8sObject {
  spec: {
    selector: { matchLabels: Record<string, string> };
    jobLabel?: string;
    endpoints: { port: string; path: string; interval?: string }[];
  };
}
interface Service extends K8sObject {
  spec: { selector: Record<string, string>; ports: { name: string; port: number; targetPort: string }[] };
}

const objects = render(path.relative(REPO, OVERLAY));
const base = render('k8s');
const key = (o: K8sObject) => `${o.kind}/${o.metadata.name}`;

const matches = (selector: Record<string, string>, labels: Record<string, string> | undefined) =>
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);

test('the overlay is the base plus four ServiceMonitors, the PrometheusRule and the dashboard ConfigMap', () => {
  const added = objects.map(key).filter((k) => !base.map(key).includes(k));
  assert.deepEqual(added.sort(), [
    'ConfigMap/podset-operator-grafana-dashboard',
    'PrometheusRule/podset-operator',
    'ServiceMonitor/podset-dashboard',
    'ServiceMonitor/podset-redis-scripts',
    'ServiceMonitor/podset-watcher',
    'ServiceMonitor/podset-worker',
  ]);
  assert.deepEqual(
    base.map(key).filter((k) => !objects.map(key).includes(k)),
    [],
    'nothing of the base is lost',
  );
  for (const o of objects) {
    if (o.kind !== 'Namespace' && o.kind !== 'CustomResourceDefinition' && !o.kind.startsWith('Cluster')) {
      assert.equal(o.metadata.namespace, 'podset-system', key(o));
    }
  }
});

test('each ServiceMonitor finds one Service and, through it, the port the app serves /metrics on', () => {
  const monitors = objects.filter((o) => o.kind === 'ServiceMonitor') as ServiceMonitor[];
  assert.equal(monitors.length, 4);
  for (const m of monitors) {
    // Only the fields checked here (and documented for monitoring.coreos.com/v1) are used.
    const fields = Object.keys(m.spec).filter((f) => f !== 'jobLabel');
    assert.deepEqual(fields.sort(), ['endpoints', 'selector'], m.metadata.name);
    const services = (objects.filter((o) => o.kind === 'Service') as Service[]).filter((s) =>
      matches(m.spec.selector.matchLabels, s.metadata.labels),
    );
    const jobOf = (s: Service) =>
      m.spec.jobLabel === undefined ? s.metadata.name : s.metadata.labels?.[m.spec.jobLabel];
    assert.deepEqual(
      services.map(jobOf),
      [m.metadata.name],
      `${m.metadata.name} selects one Service, whose job is the ServiceMonitor's name`,
    );
    const service = services[0]!;
    assert.equal(m.spec.endpoints.length, 1);
    const endpoint = m.spec.endpoints[0]!;
    assert.deepEqual(Object.keys(endpoint).sort(), ['interval', 'path', 'port']);
    assert.equal(endpoint.path, '/metrics');
    const servicePort = service.spec.ports.find((p) => p.name === endpoint.port);
    assert.ok(servicePort, `${service.metadata.name} has a port named ${endpoint.port}`);
    // The pods behind the Service serve metrics without authentication on HTTP_PORT.
    const [workload] = workloads(objects).filter((w) =>
      matches(service.spec.selector, w.spec.template.metadata?.labels),
    );
    assert.ok(workload, `${service.metadata.name} selects a workload`);
    // The container serving that port: the app's, or the script loader beside Redis in its pod.
    const containers = workload.spec.template.spec.containers;
    const container =
      containers.find((c) => c.ports?.some((p) => p.name === servicePort.targetPort)) ?? containers[0]!;
    const containerPort = container.ports?.find((p) => p.name === servicePort.targetPort);
    const httpPort = container.env?.find((e) => e.name === 'HTTP_PORT')?.value;
    assert.equal(String(containerPort?.containerPort), httpPort, `${m.metadata.name}: scrapes HTTP_PORT`);
  }
});

test('the job names the rules and the dashboard query are the monitored Services', () => {
  const monitored = new Set(objects.filter((o) => o.kind === 'ServiceMonitor').map((o) => o.metadata.name));
  const texts = [
    ...readRuleGroups().flatMap((g) => g.rules.map((r) => r.expr)),
    readFileSync(DASHBOARD_FILE, 'utf8'),
  ];
  const jobs = texts.flatMap((t) =>
    [...t.matchAll(/job\s*=~?\s*\\?"([^"\\]+)\\?"/g)].flatMap((m) => m[1]!.split('|')),
  );
  assert.ok(jobs.length > 0);
  assert.deepEqual(
    [...new Set(jobs)].filter((j) => !monitored.has(j)),
    [],
  );
});

test('the dashboard ConfigMap carries the sidecar label and the JSON file as it is', () => {
  const cm = find(objects, 'ConfigMap', 'podset-operator-grafana-dashboard') as
    (K8sObject & { data: Record<string, string> }) | undefined;
  assert.ok(cm);
  assert.equal(cm.metadata.labels?.grafana_dashboard, '1');
  assert.deepEqual(Object.keys(cm.data), ['podset-operator.json']);
  assert.equal(cm.data['podset-operator.json'], readFileSync(DASHBOARD_FILE, 'utf8'));
});

const tmp = mkdtempSync(path.join(os.tmpdir(), 'podset-monitoring-'));
after(() => rmSync(tmp, { recursive: true, force: true }));

test('the component adds the same monitoring to another overlay (keda)', () => {
  const rel = (p: string) => path.relative(tmp, path.join(REPO, p));
  writeFileSync(
    path.join(tmp, 'kustomization.yaml'),
    [
      'apiVersion: kustomize.config.k8s.io/v1beta1',
      'kind: Kustomization',
      `resources: [${rel('k8s/overlays/keda')}]`,
      `components: [${rel('k8s/overlays/monitoring/component')}]`,
      '',
    ].join('\n'),
  );
  const keda = render(path.relative(REPO, tmp));
  const kinds = keda.map(key);
  for (const k of [
    'ScaledObject/podset-worker',
    'PrometheusRule/podset-operator',
    'ServiceMonitor/podset-worker',
  ]) {
    assert.ok(kinds.includes(k), k);
  }
  assert.equal(find(keda, 'PrometheusRule', 'podset-operator')?.metadata.namespace, 'podset-system');
});
