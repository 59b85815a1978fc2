// Shared by the monitoring tests: the files of k8s/overlays/monitoring, the metric names the apps
// export (read from their prom-client registries), and the metric names a PromQL expression uses.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Queue } from 'bullmq';
import { silentLogger } from '@podset/log';
import type { Registry } from 'prom-client';
import { parse } from 'yaml';
import { createMetrics as createDashboardMetrics } from '../../apps/dashboard/src/metrics.ts';
import { createWatcherMetrics } from '../../apps/watcher/src/metrics.ts';
import { createWorkerMetrics } from '../../apps/worker/src/metrics.ts';
import { redisMemoryGauges } from '@podset/runtime';
import { createRedisScriptsMetrics } from '../../apps/redis-init/src/redis-scripts-metrics.ts';

export const REPO = path.resolve(import.meta.dirname, '../..');
export const OVERLAY = path.join(REPO, 'k8s/overlays/monitoring');
export const RULES_FILE = path.join(OVERLAY, 'rules.yaml');
export const DASHBOARD_FILE = path.join(OVERLAY, 'component/grafana/podset-operator.json');
export const ALERTS_DOC = path.join(REPO, 'docs/alerts.md');

export interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface RuleGroup {
  name: string;
  rules: Rule[];
}

export function readRuleGroups(text: string = readFileSync(RULES_FILE, 'utf8')): RuleGroup[] {
  return (parse(text) as { groups: RuleGroup[] }).groups;
}

/**
 * Every series name the apps export, histograms with their _bucket/_sum/_count series: the registries
 * each app builds (the same create functions main uses), so a renamed metric changes this set.
 */
export function exportedMetricNames(): Set<string> {
  const silent = silentLogger;
  const queue = { getJobCounts: async () => ({}) } as unknown as Queue;
  const watcher = createWatcherMetrics();
  // The watcher registers the queue depth once it has a queue (app.ts does it at start).
  watcher.setQueueDepth('podset-reconcile', async () => ({}));
  // And Redis's memory gauges (app.ts, once it has a Redis client).
  redisMemoryGauges(watcher.registry, async () => []);
  const registries: Registry[] = [
    watcher.registry,
    createWorkerMetrics(silent).registry,
    createDashboardMetrics(queue, 'podset-reconcile', () => undefined, {
      list: async () => [],
      onError: () => undefined,
    }).registry,
    // The script loader's (its BUSY watchdog's kills).
    createRedisScriptsMetrics().registry,
  ];
  const names = new Set<string>();
  for (const registry of registries) {
    for (const metric of registry.getMetricsAsArray()) {
      const { name, type } = metric as unknown as { name: string; type: string };
      names.add(name);
      if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(name + s);
      if (type === 'summary') for (const s of ['_sum', '_count']) names.add(name + s);
    }
  }
  return names;
}

/** Series Prometheus itself writes for each scrape target. */
export const SCRAPE_SERIES = new Set(['up']);

// PromQL's functions and aggregations (an identifier followed by '(' must be one of these).
const FUNCTIONS = new Set(
  (
    'abs absent absent_over_time avg avg_over_time bottomk ceil changes clamp clamp_max clamp_min count ' +
    'count_over_time count_values day_of_month day_of_week day_of_year days_in_month delta deriv exp ' +
    'floor group histogram_quantile holt_winters hour idelta increase irate label_join label_replace ln ' +
    'log10 log2 max max_over_time min min_over_time minute month predict_linear quantile ' +
    'quantile_over_time rate resets round scalar sgn sort sort_desc sqrt stddev stddev_over_time stdvar ' +
    'stdvar_over_time sum sum_over_time time timestamp topk vector year last_over_time present_over_time'
  ).split(' '),
);
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan']);

/**
 * The metric names an expression selects. Label matchers, strings, ranges, grouping label lists and
 * Grafana variables are removed first; what is left that is an identifier and not a function or
 * keyword is a metric name. Throws on an identifier followed by '(' that is no PromQL function.
 */
export function metricNamesIn(expr: string): string[] {
  const text = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, '""')
    .replace(/\{[^}]*\}/g, '{}')
    .replace(/\[[^\]]*\]/g, '[]')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\$\{[^}]*\}|\$\w+/g, ' ');
  const names: string[] = [];
  for (const m of text.matchAll(/(?<![\w.:])[A-Za-z_:][\w:]*/g)) {
    const id = m[0];
    if (KEYWORDS.has(id.toLowerCase())) continue;
    const after = text.slice(m.index + id.length).trimStart();
    if (after.startsWith('(')) {
      if (!FUNCTIONS.has(id)) throw new Error(`${id}( is no PromQL function, in: ${expr}`);
      continue;
    }
    names.push(id);
  }
  return names;
}

/** Names an expression uses that are neither exported, a scrape series, nor recorded by a rule. */
export function unknownMetrics(expr: string, known: Set<string>): string[] {
  return metricNamesIn(expr).filter((n) => !known.has(n) && !SCRAPE_SERIES.has(n));
}
