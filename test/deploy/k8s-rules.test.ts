// k8s/ and every overlay, rendered with kustomize: every object validates against the Kubernetes schemas of
// kubernetes-models (KEDA's from @kubernetes-models/keda), and the manifests keep the deployment rules
// (namespaces, hardened pods, probes, resources, no RBAC wildcards, env names the apps declare).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { envProblems, loadAppEnv, type PortUse, type Setting } from './env-specs.ts';
import {
  KUSTOMIZATIONS,
  appOf,
  find,
  render,
  workloads,
  type Container,
  type K8sObject,
  type PodSpec,
  type Role,
  type Workload,
} from './manifests.ts';

const rendered = new Map<string, K8sObject[]>(KUSTOMIZATIONS.map((k) => [k, render(k)]));
const NS = 'podset-system';
/** The namespace k8s/overlays/namespaced watches (its Roles are there). */
const WATCHED = 'team-a';

/** The schema library (devDependencies the tests need). */
export const SCHEMA_PACKAGES = 'kubernetes-models@5.1.0 and @kubernetes-models/keda@2.0.0';

interface Model {
  validate(): void;
}

/** The kubernetes-models class for an object's apiVersion/kind. */
async function modelFor(o: K8sObject): Promise<new (data: unknown) => Model> {
  const [group, version] = o.apiVersion.includes('/') ? o.apiVersion.split('/') : ['', o.apiVersion];
  const pkg = group === 'keda.sh' ? '@kubernetes-models/keda' : 'kubernetes-models';
  const spec = group === '' ? `${pkg}/${version}/${o.kind}` : `${pkg}/${group}/${version}/${o.kind}`;
  let mod: Record<string, unknown>;
  try {
    mod = (await import(spec)) as Record<string, unknown>;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'ERR_MODULE_NOT_FOUND' && String(err).includes(`'${pkg}'`)) {
      throw new Error(`the schema library is not installed: add ${SCHEMA_PACKAGES} as devDependencies`);
    }
    throw new Error(`no schema for ${o.apiVersion} ${o.kind} (${spec}): ${String(err)}`);
  }
  const cls = mod[o.kind] ?? mod.default;
  if (typeof cls !== 'function') throw new Error(`${spec} exports no class ${o.kind}`);
  return cls as new (data: unknown) => Model;
}

for (const [dir, objects] of rendered) {
  test(`${dir}: every rendered object validates against the Kubernetes schemas`, async () => {
    assert.ok(objects.length > 0, 'renders objects');
    const problems: string[] = [];
    for (const o of objects) {
      const Cls = await modelFor(o);
      try {
        new Cls(structuredClone(o)).validate();
      } catch (err) {
        problems.push(`${o.kind}/${o.metadata.name}: ${(err as Error).message}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test(`${dir}: namespaced objects are in ${NS}, names are unique`, () => {
    const clusterScoped = new Set([
      'Namespace',
      'CustomResourceDefinition',
      'ClusterRole',
      'ClusterRoleBinding',
    ]);
    // The namespaced install's apps get their Roles in the watched namespace, never the operator's.
    const inWatched = (o: K8sObject) =>
      dir === 'k8s/overlays/namespaced' &&
      (o.kind === 'Role' || o.kind === 'RoleBinding') &&
      /^podset-(watcher|worker|dashboard)$/.test(o.metadata.name);
    for (const o of objects) {
      if (clusterScoped.has(o.kind))
        assert.equal(o.metadata.namespace, undefined, `${o.kind}/${o.metadata.name}`);
      else
        assert.equal(
          o.metadata.namespace,
          inWatched(o) ? WATCHED : NS,
          `${o.kind}/${o.metadata.name} namespace`,
        );
    }
    const ids = objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`);
    assert.equal(new Set(ids).size, ids.length);
    if (dir === 'k8s/overlays/namespaced') {
      // A team's install: every cluster-scoped object (Namespace, CRD, ClusterRoles) is the administrator's.
      assert.deepEqual(
        objects.filter((o) => clusterScoped.has(o.kind)).map((o) => `${o.kind}/${o.metadata.name}`),
        [],
        'no cluster-scoped object',
      );
      // It never reconciles in its own namespace: the watcher and dashboard watch WATCHED only, and
      // the watcher knows its own namespace (downward API) to refuse a list that names it.
      for (const name of ['podset-watcher', 'podset-dashboard']) {
        const env = find<Workload>(objects, 'Deployment', name)?.spec.template.spec.containers[0]?.env ?? [];
        const watch = env.find((e) => e.name === 'WATCH_NAMESPACES')?.value;
        assert.equal(watch, WATCHED, `${name} WATCH_NAMESPACES`);
        assert.ok(!watch.split(',').includes(NS), `${name} does not watch ${NS}`);
      }
      const watcherEnv = find<Workload>(objects, 'Deployment', 'podset-watcher')?.spec.template.spec
        .containers[0]?.env;
      assert.deepEqual(
        watcherEnv?.find((e) => e.name === 'POD_NAMESPACE')?.valueFrom,
        { fieldRef: { fieldPath: 'metadata.namespace' } },
        'the watcher gets POD_NAMESPACE from the downward API',
      );
      return;
    }
    assert.ok(find(objects, 'Namespace', NS), 'the Namespace');
    assert.ok(find(objects, 'CustomResourceDefinition', 'podsets.podset.io'), 'the CRD (from crds/)');
  });

  test(`${dir}: pods are hardened, probed and sized`, () => {
    const problems: string[] = [];
    for (const w of workloads(objects)) {
      const pod = w.spec.template.spec;
      const where = `${w.kind}/${w.metadata.name}`;
      problems.push(...podProblems(pod, where));
      // Every selector matches its template's labels.
      for (const [k, v] of Object.entries(w.spec.selector.matchLabels)) {
        if (w.spec.template.metadata.labels[k] !== v)
          problems.push(`${where}: template lacks selector label ${k}=${v}`);
      }
    }
    assert.deepEqual(problems, []);
  });

  test(`${dir}: RBAC has no wildcards, every binding resolves, every app has its own ServiceAccount`, () => {
    const roles = objects.filter((o) => o.kind === 'ClusterRole' || o.kind === 'Role') as Role[];
    assert.ok(roles.length > 0);
    for (const r of roles) {
      for (const rule of r.rules) {
        for (const f of ['apiGroups', 'resources', 'verbs', 'resourceNames', 'nonResourceURLs'] as const) {
          assert.ok(
            !(rule[f] ?? []).some((x) => x.includes('*')),
            `${r.kind}/${r.metadata.name}: wildcard in ${f}`,
          );
        }
        assert.ok(
          !rule.verbs.some((v) => ['escalate', 'bind', 'impersonate'].includes(v)),
          'no privilege verbs',
        );
        // Only the install's Redis secret-init Job may create (never read) Secrets.
        const createsOnly = r.metadata.name === 'podset-redis-secret-init' && rule.verbs.join() === 'create';
        assert.ok(
          createsOnly || !(rule.resources ?? []).includes('secrets'),
          `${r.metadata.name}: no access to Secrets`,
        );
      }
    }
    for (const b of objects.filter((o) => o.kind.endsWith('Binding')) as (K8sObject & {
      roleRef: { kind: string; name: string };
      subjects: { kind: string; name: string; namespace?: string }[];
    })[]) {
      assert.ok(
        find(objects, b.roleRef.kind, b.roleRef.name),
        `${b.metadata.name}: role ${b.roleRef.name} exists`,
      );
      for (const s of b.subjects) {
        assert.equal(s.kind, 'ServiceAccount');
        assert.ok(
          find(objects, 'ServiceAccount', s.name),
          `${b.metadata.name}: ServiceAccount ${s.name} exists`,
        );
      }
    }
    const accounts = new Map<string, string>();
    for (const w of workloads(objects)) {
      const c = w.spec.template.spec.containers[0] as Container;
      const app = appOf(c);
      if (app === undefined) continue;
      const sa = w.spec.template.spec.serviceAccountName;
      assert.ok(sa !== undefined && sa !== 'default', `${w.metadata.name} runs as its own ServiceAccount`);
      assert.ok(find(objects, 'ServiceAccount', sa), `${w.metadata.name}: ServiceAccount ${sa} exists`);
      assert.ok(!accounts.has(sa), `${sa} is shared by ${accounts.get(sa)} and ${app}`);
      accounts.set(sa, app);
    }
    assert.deepEqual([...accounts.values()].sort(), ['dashboard', 'watcher', 'worker']);
  });

  test(`${dir}: each app's environment is what the app declares; ports and probes agree`, async (t) => {
    const problems: string[] = [];
    for (const w of workloads(objects)) {
      for (const c of w.spec.template.spec.containers) {
        const app = appOf(c);
        if (app === undefined) continue;
        const env = await loadAppEnv(app);
        if (typeof env === 'string') {
          t.diagnostic(`${app}: not checked: ${env}`);
          continue;
        }
        const uses: PortUse[] = (c.ports ?? []).map((p) => ({
          variable: p.name === 'probes' ? env.probeVar : env.serveVar,
          port: p.containerPort,
          what: `containerPort ${p.name ?? p.containerPort}`,
        }));
        for (const probe of [c.livenessProbe, c.readinessProbe]) {
          const port = probe?.httpGet?.port;
          const num = typeof port === 'number' ? port : c.ports?.find((p) => p.name === port)?.containerPort;
          if (num !== undefined)
            uses.push({ variable: env.probeVar, port: num, what: `probe ${probe?.httpGet?.path}` });
        }
        problems.push(...envProblems(env, containerEnv(objects, c), uses, `${w.kind}/${w.metadata.name}`));
      }
    }
    assert.deepEqual(problems, []);
  });
}

function podProblems(pod: PodSpec, where: string): string[] {
  const problems: string[] = [];
  const psc = pod.securityContext ?? {};
  for (const c of [...pod.containers, ...(pod.initContainers ?? [])]) {
    const sc = c.securityContext ?? {};
    const at = `${where} container ${c.name}`;
    if ((sc.runAsNonRoot ?? psc.runAsNonRoot) !== true) problems.push(`${at}: runAsNonRoot`);
    const uid = sc.runAsUser ?? psc.runAsUser;
    if (uid === undefined || uid === 0) problems.push(`${at}: runAsUser non-zero (numeric)`);
    if (sc.readOnlyRootFilesystem !== true) problems.push(`${at}: readOnlyRootFilesystem`);
    if (sc.allowPrivilegeEscalation !== false) problems.push(`${at}: allowPrivilegeEscalation false`);
    if (sc.privileged === true) problems.push(`${at}: privileged`);
    if (!(sc.capabilities?.drop ?? []).includes('ALL')) problems.push(`${at}: capabilities drop ALL`);
    if ((sc.capabilities?.add ?? []).length > 0) problems.push(`${at}: adds capabilities`);
    if ((sc.seccompProfile ?? psc.seccompProfile)?.type !== 'RuntimeDefault')
      problems.push(`${at}: seccomp RuntimeDefault`);
    for (const r of ['requests', 'limits'] as const) {
      for (const k of ['cpu', 'memory']) {
        if (c.resources?.[r]?.[k] === undefined) problems.push(`${at}: resources.${r}.${k}`);
      }
    }
    // An init container runs to completion before the others: Kubernetes refuses probes on it.
    const init = (pod.initContainers ?? []).includes(c);
    if (!init && (c.livenessProbe === undefined || c.readinessProbe === undefined))
      problems.push(`${at}: liveness and readiness probes`);
    if (appOf(c) !== undefined) {
      if (c.livenessProbe?.httpGet?.path !== '/healthz') problems.push(`${at}: liveness on /healthz`);
      if (c.readinessProbe?.httpGet?.path !== '/readyz') problems.push(`${at}: readiness on /readyz`);
      // An app serves /healthz only once Redis answers its start-up check: a startup probe holds the
      // liveness probe off for minutes, so a Redis that is late to come up does not restart the app every 30 s.
      const startup = c.startupProbe;
      if (startup?.httpGet?.path !== '/healthz') problems.push(`${at}: startup probe on /healthz`);
      else if ((startup.periodSeconds ?? 10) * (startup.failureThreshold ?? 3) < 300)
        problems.push(`${at}: startup probe allows less than 5 minutes`);
      for (const probe of [c.livenessProbe, c.readinessProbe, c.startupProbe]) {
        const port = probe?.httpGet?.port;
        const known = (c.ports ?? []).some((p) => p.name === port || p.containerPort === port);
        if (!known) problems.push(`${at}: probe port ${String(port)} is not a container port`);
      }
      if (c.image?.startsWith('podset-operator') !== true)
        problems.push(`${at}: runs the podset-operator image`);
    }
  }
  return problems;
}

/** A container's environment as the kubelet builds it: envFrom ConfigMaps, then env (which wins). */
function containerEnv(objects: K8sObject[], c: Container): Map<string, Setting> {
  const out = new Map<string, Setting>();
  for (const from of c.envFrom ?? []) {
    if (from.configMapRef) {
      const cm = find<K8sObject & { data?: Record<string, string> }>(
        objects,
        'ConfigMap',
        from.configMapRef.name,
      );
      assert.ok(cm, `ConfigMap ${from.configMapRef.name} exists`);
      for (const [k, v] of Object.entries(cm.data ?? {})) out.set(k, { literal: v });
    } else {
      throw new Error(
        `container ${c.name}: envFrom a Secret hides which variables it sets; use env with secretKeyRef`,
      );
    }
  }
  for (const e of c.env ?? []) {
    out.set(e.name, e.value !== undefined ? { literal: e.value } : { from: JSON.stringify(e.valueFrom) });
  }
  return out;
}
