// Generates the Prometheus Operator's PrometheusRule from the plain rules file that promtool checks
// and tests, so the rules exist once (k8s/overlays/monitoring/rules.yaml).
//   npm run gen:prometheus-rule             rewrite prometheus-rule.yaml
//   npm run gen:prometheus-rule -- --check  exit 1 if it is stale
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse, stringify } from 'yaml';

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const RULES_FILE = path.join(REPO, 'k8s/overlays/monitoring/rules.yaml');
export const PROMETHEUS_RULE_FILE = path.join(REPO, 'k8s/overlays/monitoring/component/prometheus-rule.yaml');

const HEADER =
  '# GENERATED from ../rules.yaml by `npm run gen:prometheus-rule`: edit ../rules.yaml, then run it.\n';

export function renderPrometheusRule(rulesText: string = readFileSync(RULES_FILE, 'utf8')): string {
  const rules = parse(rulesText) as { groups?: unknown };
  if (!Array.isArray(rules.groups)) throw new Error('rules.yaml: no groups');
  const object = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: {
      name: 'podset-operator',
      labels: { 'app.kubernetes.io/name': 'podset-operator' },
    },
    spec: { groups: rules.groups },
  };
  return HEADER + stringify(object, { lineWidth: 0 });
}

if (import.meta.main) {
  const text = renderPrometheusRule();
  const shown = path.relative(REPO, PROMETHEUS_RULE_FILE);
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(PROMETHEUS_RULE_FILE, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (current !== text) {
      console.error(`${shown} is stale: run npm run gen:prometheus-rule`);
      process.exit(1);
    }
    console.log(`${shown} is up to date`);
  } else {
    writeFileSync(PROMETHEUS_RULE_FILE, text);
    console.log(`wrote ${shown}`);
  }
}
