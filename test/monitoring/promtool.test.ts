// The alerting rules, checked and unit-tested by promtool (test/monitoring/*.yaml), and the rules'
// shape: the PrometheusRule is generated from the plain file, every alert has a severity, a summary, a
// description and a runbook section in docs/alerts.md.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'yaml';
import { PROMETHEUS_RULE_FILE, renderPrometheusRule } from '../../scripts/gen-prometheus-rule.ts';
import { ALERTS_DOC, readRuleGroups, REPO, RULES_FILE } from './support.ts';

const HERE = import.meta.dirname;
const TEST_FILES = readdirSync(HERE)
  .filter((f) => f.endsWith('.yaml'))
  .map((f) => path.join(HERE, f));

function promtool(args: string[]): { ok: boolean; output: string } {
  const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  if (probe.error !== undefined) {
    assert.fail(
      'promtool is not installed: it checks and tests the alerting rules. Install Debian’s prometheus ' +
        'package (apt-get install -y prometheus; .ci/run does it) or put promtool on the PATH.',
    );
  }
  const r = spawnSync('promtool', args, { encoding: 'utf8', cwd: REPO, timeout: 120_000 });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

test('promtool check rules: the rules file is valid', () => {
  const r = promtool(['check', 'rules', RULES_FILE]);
  assert.ok(r.ok, r.output);
});

test('promtool test rules: every alert fires when it should and only then', () => {
  assert.ok(TEST_FILES.length > 0, 'there are promtool test files');
  const r = promtool(['test', 'rules', ...TEST_FILES]);
  assert.ok(r.ok, r.output);
});

test('every alert has a firing test case and a quiet one', () => {
  const alerts = readRuleGroups()
    .flatMap((g) => g.rules)
    .flatMap((r) => (r.alert === undefined ? [] : [r.alert]));
  type Case = { alertname: string; exp_alerts?: unknown[] };
  const cases = TEST_FILES.flatMap((f) => {
    const doc = parse(readFileSync(f, 'utf8')) as { tests: { alert_rule_test?: Case[] }[] };
    return doc.tests.flatMap((t) => t.alert_rule_test ?? []);
  });
  const missing = alerts.flatMap((a) => {
    const mine = cases.filter((c) => c.alertname === a);
    return [
      ...(mine.some((c) => (c.exp_alerts ?? []).length > 0) ? [] : [`${a}: no firing case`]),
      ...(mine.some((c) => (c.exp_alerts ?? []).length === 0) ? [] : [`${a}: no quiet case`]),
    ];
  });
  assert.deepEqual(missing, []);
});

test('every alert has a severity, a summary, a description and a runbook section in docs/alerts.md', () => {
  const anchors = new Set(
    readFileSync(ALERTS_DOC, 'utf8')
      .split('\n')
      .filter((l) => /^#{2,3} /.test(l))
      // GitHub's heading anchors: lower case, spaces to dashes, punctuation dropped.
      .map((l) =>
        l
          .replace(/^#+ /, '')
          .trim()
          .toLowerCase()
          .replace(/[^\w\- ]/g, '')
          .replace(/ /g, '-'),
      ),
  );
  const problems: string[] = [];
  for (const rule of readRuleGroups().flatMap((g) => g.rules)) {
    if (rule.alert === undefined) continue;
    const a = rule.alert;
    if (!['critical', 'warning', 'info'].includes(rule.labels?.severity ?? ''))
      problems.push(`${a}: severity`);
    for (const key of ['summary', 'description', 'runbook_url']) {
      if (!rule.annotations?.[key]) problems.push(`${a}: annotation ${key}`);
    }
    const url = rule.annotations?.runbook_url ?? '';
    const [file, anchor] = url.split('#');
    if (file !== 'docs/alerts.md' || anchor !== a.toLowerCase() || !anchors.has(anchor)) {
      problems.push(
        `${a}: runbook_url ${url} is not docs/alerts.md#${a.toLowerCase()} with a "## ${a}" section`,
      );
    }
  }
  assert.deepEqual(problems, []);
});

test('the PrometheusRule is generated from rules.yaml (run npm run gen:prometheus-rule)', () => {
  const text = readFileSync(PROMETHEUS_RULE_FILE, 'utf8');
  assert.equal(text, renderPrometheusRule());
  const object = parse(text) as { apiVersion: string; kind: string; spec: { groups: unknown } };
  assert.equal(object.apiVersion, 'monitoring.coreos.com/v1');
  assert.equal(object.kind, 'PrometheusRule');
  assert.deepEqual(object.spec.groups, readRuleGroups());
  // The generator's own check agrees.
  execFileSync(process.execPath, [path.join(REPO, 'scripts/gen-prometheus-rule.ts'), '--check'], {
    stdio: 'pipe',
  });
});
