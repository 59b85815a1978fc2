// The Grafana dashboard is importable (the fields Grafana needs, a datasource variable every query
// uses) and, with the alerting rules, names only metrics the apps export.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import {
  DASHBOARD_FILE,
  exportedMetricNames,
  metricNamesIn,
  readRuleGroups,
  unknownMetrics,
} from './support.ts';

interface Target {
  refId: string;
  expr: string;
  datasource?: { type: string; uid: string };
}
interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { h: number; w: number; x: number; y: number };
  datasource?: { type: string; uid: string };
  targets?: Target[];
  panels?: Panel[];
}
interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { type: string; name: string; query: string }[] };
}

const dashboard = JSON.parse(readFileSync(DASHBOARD_FILE, 'utf8')) as Dashboard;
const allPanels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const queryPanels = allPanels.filter((p) => p.type !== 'row');
const exported = exportedMetricNames();
const recorded = new Set(
  readRuleGroups()
    .flatMap((g) => g.rules)
    .flatMap((r) => (r.record === undefined ? [] : [r.record])),
);

test('metricNamesIn finds metric names, not functions, labels, strings, ranges or variables', () => {
  assert.deepEqual(
    metricNamesIn(
      'histogram_quantile(0.99, sum by (le) (rate(podset_reconcile_duration_seconds_bucket{job="a b"}[$__rate_interval])))' +
        ' / on (job) group_left (pod) max without (instance) (up offset 5m) > 1e3 or vector(0)',
    ),
    ['podset_reconcile_duration_seconds_bucket', 'up'],
  );
  assert.deepEqual(metricNamesIn('count(max by (podset) (podset_converged) == 0) or vector(0)'), [
    'podset_converged',
  ]);
  assert.throws(() => metricNamesIn('sum(rat(podset_reconcile_total[5m]))'), /rat\( is no PromQL function/);
});

test('the known names are the apps’ own (histogram series included), so the checks below can fail', () => {
  for (const name of [
    'podset_queue_jobs',
    'podset_reconcile_total',
    'podset_reconcile_duration_seconds_bucket',
    'podset_converged',
    'podset_watcher_leader',
    'podset_worker_process_resident_memory_bytes',
  ]) {
    assert.ok(exported.has(name), name);
  }
  // A panel naming a metric nobody exports is reported.
  assert.deepEqual(unknownMetrics('sum(rate(podset_reconciles_total[5m]))', exported), [
    'podset_reconciles_total',
  ]);
});

test('the dashboard has what Grafana needs to import it', () => {
  assert.equal(typeof dashboard.uid, 'string');
  assert.ok(dashboard.uid.length > 0 && dashboard.uid.length <= 40, 'uid of 1..40 characters');
  assert.ok(dashboard.title.length > 0);
  assert.ok(Number.isInteger(dashboard.schemaVersion) && dashboard.schemaVersion >= 36);
  const ids = allPanels.map((p) => p.id);
  assert.equal(new Set(ids).size, ids.length, 'panel ids are unique');
  for (const p of allPanels) {
    const g = p.gridPos;
    assert.ok(g.x >= 0 && g.w > 0 && g.x + g.w <= 24 && g.h > 0 && g.y >= 0, `${p.title}: gridPos`);
  }
  assert.ok(queryPanels.length >= 10);
  for (const p of queryPanels) {
    assert.ok((p.targets ?? []).length > 0, `${p.title}: has targets`);
    const refIds = (p.targets ?? []).map((t) => t.refId);
    assert.equal(new Set(refIds).size, refIds.length, `${p.title}: refIds are unique`);
  }
});

test('every query uses the datasource variable', () => {
  const variable = dashboard.templating.list.find((v) => v.type === 'datasource');
  assert.deepEqual(
    { name: variable?.name, query: variable?.query },
    { name: 'datasource', query: 'prometheus' },
  );
  for (const p of queryPanels) {
    assert.deepEqual(p.datasource, { type: 'prometheus', uid: '${datasource}' }, p.title);
    for (const t of p.targets ?? []) assert.equal(t.datasource?.uid ?? '${datasource}', '${datasource}');
  }
});

test('every metric a panel queries is one the apps export', () => {
  const unknown = queryPanels.flatMap((p) =>
    (p.targets ?? []).flatMap((t) => unknownMetrics(t.expr, exported).map((n) => `${p.title}: ${n}`)),
  );
  assert.deepEqual(unknown, []);
});

test('every metric an alerting or recording rule uses is exported, or recorded by a rule', () => {
  const known = new Set([...exported, ...recorded]);
  const unknown = readRuleGroups()
    .flatMap((g) => g.rules)
    .flatMap((r) => unknownMetrics(r.expr, known).map((n) => `${r.alert ?? r.record}: ${n}`));
  assert.deepEqual(unknown, []);
});
