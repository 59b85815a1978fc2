// SECURITY.md's RBAC table is what an administrator reads before granting the operator anything: it must
// say what k8s/ grants, no less and no more. Each ServiceAccount of the rendered k8s/ has a row; every
// (verb, resource) bound to it is named together in one clause of that row (clauses are split at ";");
// every resource and verb the row names is granted; and the row says where (all namespaces for a
// ClusterRoleBinding, the namespace of a RoleBinding).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { render, rulesFor, type K8sObject } from './manifests.ts';
import { readRepo } from './support.ts';

const NS = 'podset-system';

/** How the table names each resource (word boundaries: "Pods" is not "PodSets"). */
const NOUNS: Record<string, RegExp> = {
  podsets: /\bPodSets\b/,
  'podsets/status': /`podsets\/status`/,
  'podsets/finalizers': /`podsets\/finalizers`/,
  pods: /\bPods\b/,
  events: /\bEvents\b/,
  leases: /\bLeases?\b/,
  secrets: /\bSecrets\b/,
  controllerrevisions: /\bControllerRevisions\b/,
};
const VERBS = ['get', 'list', 'watch', 'create', 'update', 'patch', 'delete', 'deletecollection'];
const verbIn = (verb: string, text: string) => new RegExp(`\\b${verb}\\b`).test(text);

/** The rows of the table under "### The Kubernetes API and RBAC": ServiceAccount → [may, in]. */
function rbacTable(): Map<string, { may: string; where: string }> {
  const doc = readRepo('SECURITY.md');
  const start = doc.indexOf('### The Kubernetes API and RBAC');
  assert.ok(start >= 0, 'SECURITY.md has the RBAC section');
  const section = doc.slice(start, doc.indexOf('\n### ', start + 1));
  const rows = new Map<string, { may: string; where: string }>();
  for (const line of section.split('\n')) {
    const m = /^\| `([a-z0-9-]+)` \| (.+) \| (.+) \|$/.exec(line.trim());
    if (m) rows.set(m[1] as string, { may: m[2] as string, where: m[3] as string });
  }
  return rows;
}

test('SECURITY.md: the RBAC table says what k8s/ grants each ServiceAccount, no less and no more', () => {
  const objects = render('k8s');
  const accounts = objects
    .filter((o: K8sObject) => o.kind === 'ServiceAccount' && (o.metadata.namespace ?? NS) === NS)
    .map((o) => o.metadata.name);
  // Not vacuous: the apps' accounts are rendered (a change of the render would otherwise check nothing).
  for (const app of ['podset-watcher', 'podset-worker', 'podset-dashboard'])
    assert.ok(accounts.includes(app), `k8s/ renders the ServiceAccount ${app}`);
  const rows = rbacTable();
  const problems: string[] = [];
  for (const sa of accounts) {
    const granted = rulesFor(objects, NS, sa);
    if (granted.length === 0) continue; // an account with no rights needs no row
    const row = rows.get(sa);
    if (row === undefined) {
      problems.push(`${sa}: no row`);
      continue;
    }
    const clauses = row.may.split(';');
    const grantedResources = new Set<string>();
    const grantedVerbs = new Set<string>();
    for (const { rule, namespace } of granted) {
      for (const res of rule.resources ?? []) {
        const noun = NOUNS[res];
        if (noun === undefined) {
          problems.push(`${sa}: the test knows no name for resource ${res}`);
          continue;
        }
        grantedResources.add(res);
        for (const verb of rule.verbs) {
          grantedVerbs.add(verb);
          if (!clauses.some((c) => noun.test(c) && verbIn(verb, c)))
            problems.push(`${sa}: "${verb} ${res}" is granted but the row does not say so`);
        }
      }
      const where = namespace ?? 'all namespaces';
      if (!row.where.includes(where))
        problems.push(`${sa}: granted in ${where}, the row says "${row.where}"`);
    }
    for (const [res, noun] of Object.entries(NOUNS)) {
      if (noun.test(row.may) && !grantedResources.has(res))
        problems.push(`${sa}: the row names ${res}, which is not granted`);
    }
    for (const verb of VERBS) {
      if (verbIn(verb, row.may) && !grantedVerbs.has(verb))
        problems.push(`${sa}: the row says "${verb}", which is not granted`);
    }
  }
  for (const sa of rows.keys()) {
    if (!accounts.includes(sa)) problems.push(`${sa}: a row for an account k8s/ does not have`);
  }
  assert.deepEqual(problems, []);
});
