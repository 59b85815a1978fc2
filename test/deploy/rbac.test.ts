// RBAC of k8s/ against what the apps really do, for the default install (ClusterRoles) and the namespaced
// one (k8s/overlays/namespaced: Roles in WATCH_NAMESPACES only, the CRD and the Namespaces made by an
// administrator beforehand): `kubectl apply -k` into kube-sim, then the watcher,
// a worker and the dashboard run as their ServiceAccounts (system:serviceaccount:podset-system:podset-…),
// configured with the environment their Deployments give them (each its own Redis user, as the Redis
// pod's ACL file makes them), while a PodSet is created, scaled down
// to 0 and up again, scaled, given new templates (and an old one back), one of its pods relabelled out of it (released), and deleted, and looked at on the dashboard — once in the default state mode and
// once with STATE_SOURCE=api (the fallback, whose reads the default mode may never need). Every request each identity
// made (kube-sim's audit) must be allowed by the Roles/ClusterRoles bound to its ServiceAccount, and
// every (verb, group, resource) those rules grant must have been used. kube-sim enforces the
// OwnerReferencesPermissionEnforcement admission plugin, as OpenShift does: each pod the worker creates
// (blockOwnerDeletion on its PodSet) is also a check of `update podsets/finalizers`. The dashboard must
// become ready (its readiness lists PodSets as its pages do).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { AuditEntry } from '@podset/kube-sim';
import { freePort } from '@podset/testkit';
import { newPassword } from '../../libs/kube/src/redis-secret.ts';
import { redisAclFileText } from '../../apps/redis-init/src/redis-acl-file.ts';
import { Proc, podSetManifest, startEnv, type OperatorEnv } from '../e2e/support/harness.ts';
import {
  find,
  render,
  rulesFor,
  type Container,
  type K8sObject,
  type RbacRule,
  type Workload,
} from './manifests.ts';

const NS = 'podset-system';
const SA = {
  watcher: `system:serviceaccount:${NS}:podset-watcher`,
  worker: `system:serviceaccount:${NS}:podset-worker`,
  dashboard: `system:serviceaccount:${NS}:podset-dashboard`,
} as const;
const DASHBOARD_TOKEN = 'rbac-test-dashboard-token';

/** A request as RBAC sees it. */
interface Request {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string;
  name: string;
}

function requestOf(e: AuditEntry): Request | undefined {
  const m = /^\/(?:api\/[^/]+|apis\/([^/]+)\/[^/]+)(?:\/|$)/.exec(e.path.split('?')[0] ?? '');
  if (m === null || e.resource === '') return undefined; // a non-resource URL (discovery, /version, …)
  return {
    verb: e.verb,
    group: m[1] ?? '',
    resource: e.resource,
    subresource: e.subresource,
    namespace: e.namespace,
    name: e.name,
  };
}

/**
 * The authorization checks the OwnerReferencesPermissionEnforcement plugin made for a pod created with a
 * blocking ownerReference to a PodSet (the audit records the create, not the checks it caused).
 */
function admissionChecksOf(e: AuditEntry, pods: ReadonlyMap<string, string>): Request[] {
  if (e.verb !== 'create' || e.resource !== 'pods' || e.subresource !== '' || e.code !== 201) return [];
  const owner = pods.get(`${e.namespace}/${e.name}`);
  if (owner === undefined) return [];
  return [
    {
      verb: 'update',
      group: 'podset.io',
      resource: 'podsets',
      subresource: 'finalizers',
      namespace: e.namespace,
      name: owner,
    },
  ];
}

function ruleAllows(rule: RbacRule, scope: string | undefined, r: Request): boolean {
  if (scope !== undefined && scope !== r.namespace) return false;
  if (!rule.verbs.includes(r.verb)) return false;
  if (!(rule.apiGroups ?? []).includes(r.group)) return false;
  const res = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
  if (!(rule.resources ?? []).includes(res)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (r.name !== '' && names.includes(r.name));
}

/** The environment a Deployment gives its container (ConfigMap literals, env literals, downward API). */
function deploymentEnv(objects: K8sObject[], name: string, podName: string): Record<string, string> {
  const w = find<Workload>(objects, 'Deployment', name);
  assert.ok(w, `Deployment ${name}`);
  const c = w.spec.template.spec.containers[0] as Container;
  const out: Record<string, string> = {};
  for (const from of c.envFrom ?? []) {
    const cm = find<K8sObject & { data?: Record<string, string> }>(
      objects,
      'ConfigMap',
      from.configMapRef?.name ?? '',
    );
    Object.assign(out, cm?.data ?? {});
  }
  // A file the pod gets from a volume (e.g. PROJECTION_HMAC_KEY_FILE on a Secret) is not on this machine:
  // the harness gives the apps its content directly (PROJECTION_HMAC_KEY), as the Secret would.
  const mounted = (value: string) =>
    (c.volumeMounts ?? []).some((m) => value === m.mountPath || value.startsWith(`${m.mountPath}/`));
  for (const e of c.env ?? []) {
    if (e.value !== undefined && !(e.name.endsWith('_FILE') && mounted(e.value))) out[e.name] = e.value;
    // Its Redis user's password, from its Secret (here: the one the test's Redis was given).
    const secret = (e.valueFrom?.secretKeyRef as { name?: string } | undefined)?.name ?? '';
    if (REDIS_PASSWORDS.has(secret)) out[e.name] = REDIS_PASSWORDS.get(secret) ?? '';
    const field = (e.valueFrom?.fieldRef as { fieldPath?: string } | undefined)?.fieldPath;
    if (field === 'metadata.name') out[e.name] = podName;
    if (field === 'metadata.namespace') out[e.name] = NS;
  }
  return out;
}

/** The Redis users' passwords, by Secret (as secret-init makes them). */
const REDIS_PASSWORDS = new Map(
  ['watcher', 'worker', 'dashboard', 'health', 'scripts', 'ops'].map((u) => [
    `podset-redis-${u}`,
    newPassword(),
  ]),
);

/**
 * The ACL file the Redis pod makes (its init container's program) for these manifests' queue settings:
 * each app runs as its own Redis user. `default` stays on here for the harness's own reads.
 */
function aclFileFor(objects: K8sObject[], dir: string): string {
  const config = find<K8sObject & { data?: Record<string, string> }>(objects, 'ConfigMap', 'podset-operator');
  const file = path.join(dir, 'users.acl');
  const password = (u: string) => REDIS_PASSWORDS.get(`podset-redis-${u}`);
  const text = redisAclFileText({
    ...config?.data,
    REDIS_ACL_FILE: file,
    REDIS_WATCHER_PASSWORD: password('watcher'),
    REDIS_WORKER_PASSWORD: password('worker'),
    REDIS_DASHBOARD_PASSWORD: password('dashboard'),
    REDIS_HEALTH_PASSWORD: password('health'),
    REDIS_SCRIPTS_PASSWORD: password('scripts'),
    REDIS_OPS_PASSWORD: password('ops'),
  });
  writeFileSync(file, text.replace(/^user default .*$/m, 'user default on nopass ~* &* +@all'));
  return file;
}

const INSTALLS = [
  { dir: 'k8s', podSetNamespace: 'default', roleKind: 'clusterrole' },
  // Never the operator's own namespace: its PodSets are in team-a, where its Roles are.
  { dir: 'k8s/overlays/namespaced', podSetNamespace: 'team-a', roleKind: 'role' },
] as const;

for (const { dir, podSetNamespace, roleKind } of INSTALLS) {
  test(`${dir}: the watcher, worker and dashboard use exactly the RBAC it grants them`, async (t) => {
    const objects = render(dir);
    const aclDir = mkdtempSync(path.join(os.tmpdir(), 'podset-rbac-acl-'));
    t.after(() => rmSync(aclDir, { recursive: true, force: true }));
    const env: OperatorEnv = await startEnv({
      name: 'rbac',
      identities: Object.values(SA),
      admissionPlugins: ['OwnerReferencesPermissionEnforcement'],
      // With the ACL file the harness runs the script loader beside Redis, as the Redis pod does.
      redis: { args: ['--aclfile', aclFileFor(objects, aclDir)] },
    });
    t.after(() => env.close());
    if (dir !== 'k8s') {
      // What the cluster administrator does for a namespaced install: the CRD and the namespaces.
      await env.kubectl(['apply', '-k', 'crds']);
      await env.kubectl(['create', 'namespace', NS]);
      await env.kubectl(['create', 'namespace', podSetNamespace]);
    }
    const applied = await env.kubectl(['apply', '-k', dir]);
    assert.match(
      applied.stdout,
      new RegExp(`^${roleKind}\\.rbac\\.authorization\\.k8s\\.io/podset-worker created$`, 'm'),
    );
    if (dir !== 'k8s')
      assert.doesNotMatch(applied.stdout, /^(clusterrole|namespace|customresourcedefinition)/m);
    const ns = podSetNamespace;
    const since = new Date().toISOString();
    // Pods created with a blocking ownerReference to a PodSet, by namespace/name: their owner's name.
    const blockingOwners = new Map<string, string>();
    const stopRecording = env.sim.cluster.subscribe((ev) => {
      if (ev.resource !== 'pods' || ev.type !== 'ADDED') return;
      const m = ev.object.metadata;
      const ref = (m.ownerReferences ?? []).find((o) => o.kind === 'PodSet' && o.blockOwnerDeletion === true);
      if (ref) blockingOwners.set(`${m.namespace ?? ''}/${m.name ?? ''}`, ref.name);
    });

    // Twice: the default (the workers plan from the projection and read the API only as a fallback) and
    // STATE_SOURCE=api, so the rules that only the fallback needs (get podsets, list pods) are used too.
    const stopped: Proc[] = [];
    for (const stateSource of ['projection', 'api'] as const) {
      const local = { HTTP_PORT: '0', SHUTDOWN_TIMEOUT_SECONDS: '5', STATE_SOURCE: stateSource };
      const watcher = env.startWatcher(
        `watcher-${stateSource}`,
        {
          ...deploymentEnv(objects, 'podset-watcher', 'podset-watcher-0'),
          ...local,
          REDIS_URL: env.redis.url,
        },
        SA.watcher,
      );
      const worker = env.startWorker(
        `worker-${stateSource}`,
        { ...deploymentEnv(objects, 'podset-worker', 'podset-worker-0'), ...local, REDIS_URL: env.redis.url },
        SA.worker,
      );

      const uiPort = await freePort();
      const probePort = await freePort();
      const dashboard = new Proc(
        `dashboard-${stateSource}`,
        ['apps/dashboard/src/main.ts'],
        {
          PATH: process.env.PATH ?? '',
          ...deploymentEnv(objects, 'podset-dashboard', 'podset-dashboard-0'),
          KUBECONFIG: env.sim.kubeconfigFor(SA.dashboard),
          REDIS_URL: env.redis.url,
          DASHBOARD_PORT: String(uiPort),
          DASHBOARD_HOST: '127.0.0.1',
          DASHBOARD_TOKEN,
          HTTP_PORT: String(probePort),
        },
        env.logDir,
      );
      env.procs.push(dashboard);
      /** What a user of the dashboard does: look at the PodSet overview. */
      const lookAtDashboard = async () => {
        const deadline = Date.now() + 30_000;
        for (;;) {
          try {
            const res = await fetch(`http://127.0.0.1:${uiPort}/api/overview`, {
              headers: { authorization: `Bearer ${DASHBOARD_TOKEN}` },
            });
            if (res.ok) return (await res.json()) as { podSets: unknown[]; errors?: string[] };
          } catch {
            // not listening yet
          }
          assert.ok(Date.now() < deadline, `the dashboard answers /api/overview\n${dashboard.describe()}`);
          await new Promise((r) => setTimeout(r, 200));
        }
      };

      // A PodSet's life: create, scale to 0 and back (a repeated Event is patched), scale, delete.
      const manifest = env.writeManifest('web.yaml', [podSetManifest('web', 3, { namespace: ns })]);
      await env.kubectl(['apply', '-f', manifest]);
      await env.waitConverged(['web'], { timeoutMs: 90_000, namespace: ns });
      await env.waitFor('the dashboard to be ready', async () => {
        const res = await fetch(`http://127.0.0.1:${probePort}/readyz`).catch((err: unknown) => String(err));
        return typeof res === 'string' ? [res] : res.ok ? [] : [`/readyz ${res.status}: ${await res.text()}`];
      });
      const overview = await lookAtDashboard();
      assert.equal(overview.podSets.length, 1, `the dashboard sees the PodSet: ${JSON.stringify(overview)}`);
      assert.deepEqual(overview.errors ?? [], [], 'the dashboard reads the PodSets and the Lease');
      // The PodSet's own page: the PodSet and its Warning Events.
      const page = await fetch(`http://127.0.0.1:${uiPort}/api/podsets/${ns}/web`, {
        headers: { authorization: `Bearer ${DASHBOARD_TOKEN}` },
      });
      const detail = (await page.json()) as { errors: string[] };
      assert.equal(page.status, 200, JSON.stringify(detail));
      assert.deepEqual(detail.errors, [], 'the dashboard reads the PodSet and its Events');
      // Pod creates that fail twice make the worker record FailedCreate twice: the repeat is a patch of the
      // first Event (count 2), so the run exercises the events `patch` rule as a real cluster's quota error would.
      env.sim.faults.set({ errors: [{ verb: 'create', resource: 'pods', code: 500, rate: 1, times: 2 }] });
      for (const replicas of [0, 3, 5, 2]) {
        await env.kubectl(['scale', 'podset', 'web', '-n', ns, `--replicas=${replicas}`]);
        await env.waitConverged(['web'], { timeoutMs: 90_000, namespace: ns });
      }
      // Template changes with a history of one: each new template a revision (create), the oldest pruned
      // (delete), an old template back renumbered as the newest (patch).
      for (const tag of ['1.37', '1.38', '1.37']) {
        const container = { name: 'app', image: `busybox:${tag}`, command: ['sleep', '3600'] };
        const spec = { revisionHistoryLimit: 1, template: { spec: { containers: [container] } } };
        await env.kubectl([
          'patch',
          'podset',
          'web',
          '-n',
          ns,
          '--type=merge',
          '-p',
          JSON.stringify({ spec }),
        ]);
        await env.waitConverged(['web'], { timeoutMs: 90_000, namespace: ns });
      }
      // A pod relabelled out of the PodSet: the worker looks it up (get) and releases it (patch).
      const taken = env
        .pods(ns)
        .find((p) => p.metadata.labels?.['podset.io/name'] === 'web' && !p.metadata.deletionTimestamp);
      assert.ok(taken, 'a pod of web');
      await env.kubectl(['label', 'pod', taken.metadata.name as string, '-n', ns, 'podset.io/name-']);
      await env.waitFor('the relabelled pod to be released', () => {
        const p = env.pods(ns).find((x) => x.metadata.name === taken.metadata.name);
        return p?.metadata.ownerReferences?.length ? [`${taken.metadata.name} still owned`] : [];
      });
      await env.waitConverged(['web'], { timeoutMs: 90_000, namespace: ns });
      await env.kubectl(['delete', 'podset', 'web', '-n', ns, '--wait=false']);
      await env.waitFor(
        'the PodSet and its pods to be gone',
        () => [
          ...(env.podSet('web', ns) ? ['podset web still exists'] : []),
          ...env
            .pods(ns)
            .filter((p) => p.metadata.labels?.['podset.io/name'] === 'web')
            .map((p) => `pod ${p.metadata.name}`),
        ],
        { timeoutMs: 90_000 },
      );
      env.assertAllRunning(stopped);
      await watcher.stop(10_000);
      await worker.stop(10_000);
      await dashboard.stop(10_000);
      stopped.push(watcher, worker, dashboard);
    }
    stopRecording();
    assert.ok(blockingOwners.size > 0, 'the worker created pods that block their PodSet’s deletion');

    const problems: string[] = [];
    for (const [app, user] of Object.entries(SA)) {
      const granted = rulesFor(objects, NS, user.split(':').at(-1) as string);
      assert.ok(granted.length > 0, `${app} is bound to some rules`);
      const entries = env.sim.audit.query({ user, since });
      assert.ok(entries.length > 0, `${app} made requests as ${user}`);
      const used = new Set<string>();
      const checks = entries.flatMap((e) => {
        const r = requestOf(e);
        return [...(r ? [r] : []), ...admissionChecksOf(e, blockingOwners)];
      });
      for (const e of entries) {
        if (e.code === 401 || e.code === 403)
          problems.push(`${app}: ${e.method} ${e.path} was refused (${e.code})`);
      }
      for (const r of checks) {
        const match = granted.filter((g) => ruleAllows(g.rule, g.namespace, r));
        if (match.length === 0) {
          const res = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
          problems.push(
            `${app}: ${r.verb} ${r.group || 'core'}/${res}${r.name ? ` ${r.name}` : ''} in ${r.namespace || 'all namespaces'} is not allowed by its roles`,
          );
        }
        for (const g of match) {
          const res = r.subresource ? `${r.resource}/${r.subresource}` : r.resource;
          used.add(`${g.role} ${r.verb} ${r.group}/${res}`);
        }
      }
      for (const g of granted) {
        for (const verb of g.rule.verbs) {
          for (const group of g.rule.apiGroups ?? []) {
            for (const res of g.rule.resources ?? []) {
              if (!used.has(`${g.role} ${verb} ${group}/${res}`)) {
                problems.push(
                  `${app}: ${g.role} grants ${verb} ${group || 'core'}/${res}, which ${app} never used`,
                );
              }
            }
          }
        }
      }
    }
    assert.deepEqual(problems, [], env.diagnostics());
  });
}
