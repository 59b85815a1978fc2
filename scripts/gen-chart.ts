// The Helm chart (charts/podset-operator) is generated from the kustomize deployment, so k8s/ stays the
// one source of the manifests (the default and, behind `externalRedis.enabled`, k8s/overlays/external-redis):
//   npm run gen:chart                 rewrite the chart from `kubectl kustomize k8s` (and the overlay)
//   npm run gen:chart -- --check      exit 1 if the chart is stale
// test/deploy/helm-chart.test.ts checks the same, and that `helm template` gives back what kustomize gives.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { chartNotes } from './chart-notes.ts';
import { valuesSchema } from './chart-values-schema.ts';
import { parseK8sYaml, toK8sYaml } from './k8s-yaml.ts';

export const REPO = path.resolve(import.meta.dirname, '..');
export const CHART_DIR = path.join(REPO, 'charts', 'podset-operator');
/** What k8s/ deploys into (the release's namespace), and the image it names (a value). */
const NAMESPACE = 'podset-system';
const IMAGE_NAME = 'podset-operator';

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

const HEADER =
  '# GENERATED from k8s/ by `npm run gen:chart`. Do not edit by hand: edit k8s/ and regenerate\n' +
  '# (a test fails if this chart is stale).\n';

/** The rendered kustomize deployment, one object per document. */
export function kustomizeObjects(dir = path.join(REPO, 'k8s')): Manifest[] {
  const text = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return parseK8sYaml<Manifest>(text);
}

/** What the chart is made of: the default deployment and the external-Redis overlay, rendered. */
export interface ChartSources {
  base: Manifest[];
  externalRedis: Manifest[];
}

export function chartSources(): ChartSources {
  return {
    base: kustomizeObjects(),
    externalRedis: kustomizeObjects(path.join(REPO, 'k8s', 'overlays', 'external-redis')),
  };
}

interface Container {
  name: string;
  image?: string;
  resources?: unknown;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: { secretKeyRef?: { name?: string; key?: string } } }[];
}
interface PodOwner extends Manifest {
  metadata: Manifest['metadata'] & { labels?: Record<string, string> };
  spec: { replicas?: number; template: { spec: { containers: Container[] } } };
}

/** The app a Deployment or StatefulSet runs (its component label), the key of its values. */
function componentOf(o: Manifest): string | undefined {
  return (o as PodOwner).metadata.labels?.['app.kubernetes.io/component'];
}

/** The apps that follow WATCH_NAMESPACES (the worker refuses jobs of other namespaces). */
const WATCHING = new Set(['watcher', 'worker', 'dashboard']);
/** The apps that read STATE_SOURCE (the watcher folds into the projection, the workers plan from it). */
const STATEFUL = new Set(['watcher', 'worker']);
const CLUSTER_RBAC = new Set(['ClusterRole', 'ClusterRoleBinding']);
/** The variables naming a Redis ACL user: the app's own, and the script loader's watchdog's. */
const USERNAME_VARS = new Set(['REDIS_USERNAME', 'REDIS_OPS_USERNAME']);
/** Workloads whose replica count is not a value: the script loader (a second would repeat the work). */
const FIXED_REPLICAS = new Set(['redis-scripts']);
/** The Secret an external Redis's URL comes from, as k8s/overlays/external-redis names it. */
const REDIS_SECRET = 'podset-redis';

/** The policy whose first egress rule is the API server's, and how k8s/ marks it without addresses. */
const API_SERVER_POLICY = 'podset-api-server-egress';
const EGRESS_MODE = 'podset.io/api-server-egress';
const EGRESS_NOTE = 'podset.io/api-server-egress-note';
const PORT_ONLY = 'port-only';

interface ApiServerPolicy extends Manifest {
  metadata: Manifest['metadata'] & { annotations?: Record<string, string> };
  spec: { egress?: { to?: unknown[]; ports?: unknown[] }[] };
}

/**
 * k8s/ renders the API server rule by port only (kustomize cannot look addresses up); the chart confines
 * it when it knows them (apiServerCIDRs or the lookup), and says which in the policy and the ConfigMap.
 */
function withEgressMarkers(o: Manifest): Manifest {
  if (o.kind === 'ConfigMap' && o.metadata.name === 'podset-operator') {
    const c = structuredClone(o) as Manifest & { data?: Record<string, string> };
    if (c.data?.API_SERVER_EGRESS !== PORT_ONLY)
      throw new Error(`k8s/: ConfigMap podset-operator should set API_SERVER_EGRESS: ${PORT_ONLY}`);
    c.data.API_SERVER_EGRESS = '@@api-server-egress@@';
    return c;
  }
  if (o.kind !== 'NetworkPolicy' || o.metadata.name !== API_SERVER_POLICY) return o;
  const p = structuredClone(o) as ApiServerPolicy;
  const rule = p.spec.egress?.[0];
  const note = p.metadata.annotations?.[EGRESS_NOTE];
  // Port only, never every port: a rule without ports and peers would open everything.
  if (
    p.metadata.annotations?.[EGRESS_MODE] !== PORT_ONLY ||
    note === undefined ||
    rule === undefined ||
    rule.to !== undefined ||
    (rule.ports ?? []).length === 0
  )
    throw new Error(
      `k8s/: ${API_SERVER_POLICY} should render by port only, annotated, without its component`,
    );
  p.metadata.annotations = { [EGRESS_MODE]: '@@api-server-egress@@', '@@api-server-egress-note@@': note };
  // After the ports: a rule without peers then starts with them, as k8s/ renders it.
  p.spec.egress = [{ ports: rule.ports, to: ['@@api-server-peers@@'] }, ...(p.spec.egress ?? []).slice(1)];
  return p;
}

/** The values a Deployment or StatefulSet takes from the chart: markers, replaced in the text below. */
function withValueMarkers(o: Manifest, external: boolean): Manifest {
  if (o.kind !== 'Deployment' && o.kind !== 'StatefulSet') return o;
  const app = componentOf(o);
  if (app === undefined) return o;
  const w = structuredClone(o) as PodOwner;
  if (o.kind === 'Deployment' && w.spec.replicas !== undefined && !FIXED_REPLICAS.has(app))
    (w.spec as Record<string, unknown>).replicas = `@@replicas:${app}@@`;
  for (const c of w.spec.template.spec.containers) {
    // The first container is the workload's own (the app; Redis): its resources are a value. A helper
    // beside it (Redis's script loader) keeps those k8s/ gives it.
    if (c === w.spec.template.spec.containers[0]) c.resources = `@@resources:${app}@@`;
    // Redis's maxmemory follows its memory limit value (helpers: podset.redisMaxmemory).
    for (const list of [c.command, c.args]) {
      const at = list?.indexOf('--maxmemory') ?? -1;
      if (list !== undefined && at >= 0 && at + 1 < list.length) list[at + 1] = '@@redis-maxmemory@@';
    }
    if (WATCHING.has(app)) c.env = [...(c.env ?? []), { name: '@@watch-namespaces@@' }];
    if (STATEFUL.has(app)) c.env = [...(c.env ?? []), { name: '@@state-source@@' }];
    if (external) {
      // An app's Redis user (and the watchdog's), left out for a Redis without ACLs
      // (externalRedis.aclUsers: false), where each logs in as the `default` user.
      c.env = (c.env ?? []).map((e) =>
        USERNAME_VARS.has(e.name) ? { name: `@@redis-username:${e.name}:${e.value ?? ''}@@` } : e,
      );
      for (const e of c.env) {
        const ref = e.valueFrom?.secretKeyRef;
        if (ref?.name !== REDIS_SECRET) continue;
        ref.name = '@@redis-secret@@';
        if (ref.key === 'url') ref.key = '@@redis-url-key@@';
      }
    }
  }
  return w;
}

/** The defaults of the values: replicas and resources as k8s/ sets them. */
function defaultValues(
  base: readonly Manifest[],
): Record<string, { replicas?: number; resources?: unknown }> {
  const out: Record<string, { replicas?: number; resources?: unknown }> = {};
  for (const o of base) {
    if (o.kind !== 'Deployment' && o.kind !== 'StatefulSet') continue;
    const app = componentOf(o);
    const w = o as PodOwner;
    const c = w.spec.template.spec.containers[0];
    if (app === undefined || c === undefined) continue;
    out[app] = {
      ...(o.kind === 'Deployment' && w.spec.replicas !== undefined && !FIXED_REPLICAS.has(app)
        ? { replicas: w.spec.replicas }
        : {}),
      resources: c.resources ?? {},
    };
  }
  return out;
}

/** An object's template text; `scope` is `$` inside a range (where `.` is the range's item). */
function templated(o: Manifest, external: boolean, scope = ''): string {
  const v = `${scope}.Values`;
  const self = scope === '' ? '.' : scope;
  return toK8sYaml(withEgressMarkers(withValueMarkers(o, external)))
    .replaceAll(
      new RegExp(`image: ${IMAGE_NAME}:\\S+`, 'g'),
      `image: "{{ ${v}.image.repository }}:{{ ${v}.image.tag | default ${scope}.Chart.AppVersion }}"`,
    )
    .replaceAll(new RegExp(`\\b${NAMESPACE}\\b`, 'g'), `{{ ${scope}.Release.Namespace }}`)
    .replace(
      /replicas: "?@@replicas:([\w-]+)@@"?/g,
      (_m, app: string) => `replicas: {{ ${v}.${key(app)}.replicas }}`,
    )
    .replace(
      /^( *)resources: "?@@resources:([\w-]+)@@"?$/gm,
      (_m, indent: string, app: string) =>
        `${indent}resources:\n{{- toYaml ${v}.${key(app)}.resources | nindent ${indent.length + 2} }}`,
    )
    .replace(
      /^( *)to:\n *- "?@@api-server-peers@@"?$/gm,
      (_m, indent: string) =>
        `{{- with include "podset.apiServerCIDRs" ${self} | fromJsonArray }}\n${indent}to:\n{{- range . }}\n${indent}  - ipBlock:\n${indent}      cidr: {{ . | quote }}\n{{- end }}\n{{- end }}`,
    )
    .replace(
      /^( *)"?@@api-server-egress-note@@"?: (.*)$/gm,
      (_m, indent: string, note: string) =>
        `{{- if eq (include "podset.apiServerEgress" ${self}) "${PORT_ONLY}" }}\n${indent}${EGRESS_NOTE}: ${note}\n{{- end }}`,
    )
    .replaceAll(/"?@@api-server-egress@@"?/g, `{{ include "podset.apiServerEgress" ${self} | quote }}`)
    .replace(
      /^( *)- "?@@redis-maxmemory@@"?$/gm,
      (_m, indent: string) =>
        `${indent}- {{ include "podset.redisMaxmemory" ${scope === '' ? '.' : scope} | quote }}`,
    )
    .replace(
      /^( *)- name: "?@@watch-namespaces@@"?$/gm,
      (_m, indent: string) =>
        `{{- with ${v}.watchNamespaces }}\n${indent}- name: WATCH_NAMESPACES\n${indent}  value: {{ join "," . | quote }}\n{{- end }}`,
    )
    .replace(
      /^( *)- name: "?@@state-source@@"?$/gm,
      (_m, indent: string) =>
        `{{- with ${v}.stateSource }}\n${indent}- name: STATE_SOURCE\n${indent}  value: {{ . | quote }}\n{{- end }}`,
    )
    .replace(
      /^( *)- name: "?@@redis-username:(\w+):([\w-]+)@@"?$/gm,
      (_m, indent: string, name: string, user: string) =>
        `{{- if ${v}.externalRedis.aclUsers }}\n${indent}- name: ${name}\n${indent}  value: ${user}\n{{- end }}`,
    )
    .replaceAll(/"?@@redis-secret@@"?/g, `{{ ${v}.externalRedis.secretName | quote }}`)
    .replaceAll(/"?@@redis-url-key@@"?/g, `{{ ${v}.externalRedis.urlKey | quote }}`);
}

/** A values key for an app name (Go templates cannot select `a.redis-secret-init`). */
function key(app: string): string {
  return app.replace(/-(\w)/g, (_m, c: string) => c.toUpperCase());
}

/**
 * ClusterRoles and their bindings: named after the release's namespace, so that two releases (each in its
 * namespace, each watching its WATCH_NAMESPACES) do not share them; with `namespaced: true`, a Role and a
 * RoleBinding in each watched namespace instead.
 */
function rbacTemplate(o: Manifest, external: boolean): string {
  const b = o as Manifest & { roleRef?: { kind: string; name: string } };
  const cluster = structuredClone(b);
  cluster.metadata.name = `@@ns@@-${b.metadata.name}`;
  if (cluster.roleRef) cluster.roleRef.name = `@@ns@@-${b.roleRef?.name ?? ''}`;
  const roleKind = o.kind === 'ClusterRole' ? 'Role' : 'RoleBinding';
  const namespaced = structuredClone(b);
  namespaced.kind = roleKind;
  namespaced.metadata = { ...namespaced.metadata, namespace: '@@watched@@' };
  if (namespaced.roleRef) namespaced.roleRef.kind = 'Role';
  const fill = (text: string, scope: string) =>
    text
      .replace(/"?@@ns@@-([\w-]+)"?/g, `"{{ ${scope}.Release.Namespace }}-$1"`)
      .replace(/"?@@watched@@"?/g, '{{ $ns | quote }}');
  return [
    '{{- if .Values.namespaced }}',
    '{{- range $ns := .Values.watchNamespaces }}',
    '---',
    fill(templated(namespaced, external, '$'), '$').trimEnd(),
    '{{- end }}',
    '{{- else }}',
    fill(templated(cluster, external), '').trimEnd(),
    '{{- end }}',
    '',
  ].join('\n');
}

function valuesYaml(base: readonly Manifest[]): string {
  const defaults = defaultValues(base);
  const apps = Object.entries(defaults).map(([app, d]) => toK8sYaml({ [key(app)]: d }).trimEnd());
  return [
    '# The release is installed into its namespace, which it does not own: create it with the install',
    '# (`helm install podset-operator charts/podset-operator -n podset-system --create-namespace`); helm',
    '# uninstall then leaves it, with the Redis volume and the Secrets in it. One release per namespace.',
    'image:',
    `  repository: ${IMAGE_NAME}`,
    '  # Default: the chart appVersion.',
    "  tag: ''",
    '# Namespaces whose PodSets this release reconciles and shows (WATCH_NAMESPACES); empty: all.',
    'watchNamespaces: []',
    '# true: Roles in each of watchNamespaces (which must not be empty) instead of ClusterRoles, and no',
    '# cluster-scoped object but the CRD (install it beforehand and pass --skip-crds where you may not).',
    'namespaced: false',
    "# The API server's addresses, the only ones the apps may reach on 443 and 6443 (the NetworkPolicy",
    '# podset-api-server-egress), each as IP/32 (IPv6: /128). Empty: read from the cluster at install and',
    '# upgrade (the `kubernetes` Endpoints in `default`). Where none is known (helm template, helm lint,',
    '# GitOps tools that render offline) the rule is limited by port only (TCP 443 and 6443 to any address),',
    '# annotated so and API_SERVER_EGRESS=port-only for the apps; set them to confine it, from',
    "#   kubectl get endpoints kubernetes -n default -o jsonpath='{.subsets[*].addresses[*].ip}'",
    'apiServerCIDRs: []',
    "# Where the workers read a PodSet's state (STATE_SOURCE on the watcher and the workers alike). Empty:",
    "# the default, the watcher's projection in Redis; `api`: the fallback, a GET and a LIST per reconcile.",
    "stateSource: ''",
    '# An external Redis instead of the in-cluster StatefulSet: its URL comes from an existing Secret in the',
    "# release's namespace, and each app's password from its own Secret podset-redis-<app> (key `password`),",
    '# made beforehand like the URL one. aclUsers: each app logs in as its own ACL user (REDIS_USERNAME',
    '# podset-watcher, podset-worker, podset-dashboard: give the provider the lines of `npm run redis-acl`);',
    '# false: the single-password fallback for a Redis without ACLs (no username, the same password in the',
    '# three Secrets). The in-cluster Redis always has the users. The script loader (Deployment',
    '# podset-redis-scripts) caches the scripts in that Redis as podset-scripts (Secret podset-redis-scripts,',
    '# required) and kills a script busy past its bound as podset-ops (Secret podset-redis-ops, optional: no',
    '# watchdog without it). See docs/install.md.',
    'externalRedis:',
    '  enabled: false',
    `  secretName: ${REDIS_SECRET}`,
    '  urlKey: url',
    '  aclUsers: true',
    '# Replicas and resources of each app, as k8s/ sets them (the worker HPA scales the worker between its',
    '# bounds; the Redis StatefulSet has one replica). redisScripts: the script loader and BUSY watchdog',
    "# Deployment of externalRedis (one replica); beside the in-cluster Redis it is a container of Redis's pod.",
    ...apps,
    '',
  ].join('\n');
}

const ALL_WITH_WATCHED = [
  '{{- if and .Values.namespaced (empty .Values.watchNamespaces) }}',
  '{{- fail "namespaced: true needs watchNamespaces: the namespaces to grant Roles in" }}',
  '{{- end }}',
  // Never the operator's own namespace: a PodSet author there could mount the release's Secrets into a
  // pod, or label a pod to pass the Redis network policy (the watcher refuses it too, at start).
  '{{- if has .Release.Namespace .Values.watchNamespaces }}',
  '{{- fail (printf "watchNamespaces lists %q, the release\'s own namespace: PodSets there could use the operator\'s Secrets; watch other namespaces only" .Release.Namespace) }}',
  '{{- end }}',
  '{{- if not (has .Values.stateSource (list "" "projection" "api")) }}',
  '{{- fail (printf "stateSource: %q is not a state source: leave it empty (the projection) or set api" .Values.stateSource) }}',
  '{{- end }}',
  '',
].join('\n');

/**
 * Redis's --maxmemory: three quarters of redis.resources.limits.memory (k8s/ sets 768mb for 1Gi), so a
 * full Redis refuses writes before the kernel kills it for memory; the rest covers the AOF rewrite's fork
 * and client buffers. In mb when it is a whole number of them (as k8s/ writes it), else in bytes.
 */
const HELPERS = [
  // The API server's addresses as a JSON list: apiServerCIDRs, or else the ready addresses of the
  // `kubernetes` Endpoints (the API server keeps them current in every cluster), looked up at install and
  // upgrade; IPv6 ones as /128. Empty where none is known (a render without the cluster: helm template,
  // lint, GitOps tools): the policy is then limited by port only, as k8s/ renders it, and says so.
  '{{- define "podset.apiServerCIDRs" -}}',
  '{{- $cidrs := .Values.apiServerCIDRs | default list -}}',
  '{{- if empty $cidrs -}}',
  '{{- $ips := list -}}',
  '{{- $endpoints := lookup "v1" "Endpoints" "default" "kubernetes" -}}',
  '{{- range $subset := dig "subsets" list $endpoints -}}',
  '{{- range $address := dig "addresses" list $subset -}}',
  '{{- $ips = append $ips (dig "ip" "" $address) -}}',
  '{{- end -}}',
  '{{- end -}}',
  '{{- range $ip := without (uniq $ips) "" -}}',
  '{{- $cidrs = append $cidrs (printf "%s/%s" $ip (ternary "128" "32" (contains ":" $ip))) -}}',
  '{{- end -}}',
  '{{- end -}}',
  '{{- toJson $cidrs -}}',
  '{{- end -}}',
  // `confined` (the API server rule names its addresses) or `port-only` (no address known).
  '{{- define "podset.apiServerEgress" -}}',
  `{{- if empty (include "podset.apiServerCIDRs" . | fromJsonArray) -}}${PORT_ONLY}{{- else -}}confined{{- end -}}`,
  '{{- end -}}',
  '{{- define "podset.redisMaxmemory" -}}',
  '{{- $limit := toString ((.Values.redis.resources).limits).memory -}}',
  '{{- if not (regexMatch "^[0-9]+(Ki|Mi|Gi|Ti|k|M|G|T)?$" $limit) -}}',
  '{{- fail (printf "redis.resources.limits.memory: %q is not a whole memory quantity such as 1Gi or 512Mi; Redis\'s maxmemory (3/4 of it) is derived from it" $limit) -}}',
  '{{- end -}}',
  '{{- $number := regexFind "^[0-9]+" $limit -}}',
  '{{- $units := dict "" 1 "k" 1000 "M" 1000000 "G" 1000000000 "T" 1000000000000 "Ki" 1024 "Mi" 1048576 "Gi" 1073741824 "Ti" 1099511627776 -}}',
  '{{- $bytes := div (mul (atoi $number) (get $units (trimPrefix $number $limit)) 3) 4 -}}',
  '{{- if lt $bytes 33554432 -}}',
  '{{- fail (printf "redis.resources.limits.memory: %q leaves Redis a maxmemory under 32mb" $limit) -}}',
  '{{- end -}}',
  '{{- if eq (mod $bytes 1048576) 0 -}}{{ div $bytes 1048576 }}mb{{- else -}}{{ $bytes }}{{- end -}}',
  '{{- end -}}',
  '',
].join('\n');

/** The helm version scripts/install-helm.sh installs: the one the chart is tested with. */
export function checkedHelmVersion(): string {
  const script = readFileSync(path.join(REPO, 'scripts', 'install-helm.sh'), 'utf8');
  const version = /^HELM_VERSION='(v\d+\.\d+\.\d+)'$/m.exec(script)?.[1];
  if (version === undefined) throw new Error("scripts/install-helm.sh sets no HELM_VERSION='vX.Y.Z'");
  return version;
}

function readme(helmVersion: string): string {
  return [
    '<!-- GENERATED from k8s/ by `npm run gen:chart` (scripts/gen-chart.ts). Do not edit by hand. -->',
    '',
    '# podset-operator',
    '',
    'The deployment of `k8s/` as a Helm chart, generated from `kubectl kustomize k8s` (and, behind',
    '`externalRedis.enabled`, `k8s/overlays/external-redis`), so the two never differ.',
    '',
    '```sh',
    'helm install podset-operator charts/podset-operator -n podset-system --create-namespace \\',
    '  --set image.repository=REGISTRY/podset-operator --set image.tag=TAG',
    '```',
    '',
    'The values are in `values.yaml` and described in',
    '[docs/install.md](../../docs/install.md#with-helm).',
    '',
    `**Helm version checked:** ${helmVersion}, what \`scripts/install-helm.sh\` installs. With it,`,
    'test/deploy/helm-chart.test.ts lints the chart (`helm lint --strict`), compares the objects with',
    "`kubectl kustomize`'s and reads them with kubectl's own YAML decoder; helm-render.test.ts renders it",
    'with each kind of values; helm-kube-sim.test.ts installs, upgrades and uninstalls releases against',
    'kube-sim.',
    '',
    '## Egress to the API server',
    '',
    "The NetworkPolicy `podset-api-server-egress` confines the apps' egress to the API server's addresses",
    '(TCP 443 and 6443): `apiServerCIDRs`, or else the `kubernetes` Endpoints, looked up at `helm install` and',
    '`helm upgrade`. Where none is known (`helm template`, `helm lint`, GitOps tools that render offline) the',
    'rule is limited by port only (those ports to any address, never another): the policy is annotated',
    '`podset.io/api-server-egress: port-only` with a note, the ConfigMap sets `API_SERVER_EGRESS=port-only`',
    "and the apps warn at start. Confine it with `--set 'apiServerCIDRs={172.18.0.2/32}'` (one item per address), from",
    "`kubectl get endpoints kubernetes -n default -o jsonpath='{.subsets[*].addresses[*].ip}'`. The notes helm",
    'prints after an install say which you got. See',
    '[docs/install.md](../../docs/install.md#network-policy).',
    '',
    '## Values checked',
    '',
    '`values.schema.json` (generated with `values.yaml`) types every value: helm refuses a wrong one before',
    'rendering, naming it (`- worker.replicas: Invalid type. Expected: integer, given: string`), as it does an',
    'address without its prefix length in `apiServerCIDRs`, an unknown `stateSource`, a quantity Kubernetes',
    'would not read, or a misspelt key.',
    '',
    '## Redis users',
    '',
    'The in-cluster Redis has one ACL user per app, with only the rights that app needs (the rules of',
    '`libs/redis/src/acl.ts`), and the `default` user off. The hook Job `podset-redis-secret-init` makes one',
    'Secret per user (key `password`) unless it exists, and never changes it: `podset-redis-watcher`,',
    "`podset-redis-worker`, `podset-redis-dashboard`, and `podset-redis-health` for Redis's probes (`PING`",
    "only). Each app gets its own user's password and no other; the Redis pod's init container writes the",
    'ACL file from the four at each start. To rotate one: delete its Secret, `helm upgrade` (the hook makes',
    'a new one), then `kubectl rollout restart statefulset/podset-redis deployment/podset-<app>`.',
    '',
    'With `externalRedis.enabled` the Secrets are yours (`podset-redis-<app>`, key `password`, beside the',
    "URL's; `podset-redis-scripts` for the Deployment `podset-redis-scripts`, which caches the apps' scripts",
    'in that Redis and reloads them after its restarts, and optionally `podset-redis-ops` for its BUSY',
    "watchdog), and the provider is given the users' ACL lines (`npm run redis-acl`);",
    '`externalRedis.aclUsers=false` is the fallback for a Redis without ACLs: no username, one password in',
    'the three Secrets. See [docs/install.md](../../docs/install.md#redis-users-acl-one-per-app).',
    '',
  ].join('\n');
}

/** The chart's files (relative path → content). */
export function chartFiles(sources: ChartSources, version: string): Map<string, string> {
  const { base, externalRedis } = sources;
  const files = new Map<string, string>();
  const image = base
    .flatMap((o) => JSON.stringify(o).match(new RegExp(`"image":"${IMAGE_NAME}:([^"]+)"`)) ?? [])
    .at(1);
  if (image === undefined) throw new Error(`k8s/ names no image ${IMAGE_NAME}:TAG`);
  if (image !== version) {
    throw new Error(`k8s/kustomization.yaml deploys ${IMAGE_NAME}:${image}, package.json is ${version}`);
  }
  files.set(
    'Chart.yaml',
    HEADER +
      toK8sYaml({
        apiVersion: 'v2',
        name: 'podset-operator',
        description: 'A Kubernetes operator for PodSet: an event-sourced reconciler on a BullMQ queue',
        type: 'application',
        version,
        appVersion: version,
      }),
  );
  files.set('README.md', readme(checkedHelmVersion()));
  const baseIds = new Set(base.map((o) => `${o.kind}/${o.metadata.name}`));
  const externalOnly = externalRedis.filter((o) => !baseIds.has(`${o.kind}/${o.metadata.name}`));
  files.set('values.yaml', HEADER + valuesYaml([...base, ...externalOnly]));
  files.set(
    'values.schema.json',
    `${JSON.stringify(valuesSchema(Object.fromEntries(Object.entries(defaultValues([...base, ...externalOnly])).map(([app, d]) => [key(app), d]))), null, 2)}\n`,
  );
  files.set('templates/NOTES.txt', chartNotes());
  files.set('templates/validate.yaml', HEADER + ALL_WITH_WATCHED);
  files.set('templates/_helpers.tpl', HEADER + HELPERS);
  const id = (o: Manifest) => `${o.kind}/${o.metadata.name}`;
  const ext = new Map(externalRedis.map((o) => [id(o), o]));
  const inBase = new Set(base.map(id));
  for (const o of [...base, ...externalRedis.filter((x) => !inBase.has(id(x)))]) {
    // The Namespace is not the release's: helm uninstall would delete it with the Redis volume and Secrets.
    if (o.kind === 'Namespace') continue;
    if (o.kind === 'CustomResourceDefinition') {
      // Helm installs crds/ (untemplated) before the templates and never deletes it: `helm uninstall`
      // must not take every PodSet with it while the operator that would finalize them goes too.
      files.set(`crds/${o.metadata.name}.yaml`, HEADER + toK8sYaml(o));
      continue;
    }
    const render = (x: Manifest, external: boolean) =>
      CLUSTER_RBAC.has(x.kind) ? rbacTemplate(x, external) : templated(asHook(x), external);
    const b = inBase.has(id(o)) ? o : undefined;
    const e = ext.get(id(o));
    let body: string;
    if (b !== undefined && e !== undefined && JSON.stringify(b) === JSON.stringify(e))
      body = render(b, false);
    else if (b !== undefined && e !== undefined)
      body = `{{- if .Values.externalRedis.enabled }}\n${render(e, true)}{{- else }}\n${render(b, false)}{{- end }}\n`;
    else if (b !== undefined)
      body = `{{- if not .Values.externalRedis.enabled }}\n${render(b, false)}{{- end }}\n`;
    else body = `{{- if .Values.externalRedis.enabled }}\n${render(e as Manifest, true)}{{- end }}\n`;
    files.set(`templates/${o.kind.toLowerCase()}-${o.metadata.name}.yaml`, HEADER + body);
  }
  return files;
}

/**
 * The secret-init Job and its ServiceAccount, Role and RoleBinding as Helm hooks, run before install and
 * upgrade (the apps' pods need the Secret) and deleted once the Job succeeded: the Role that may create
 * Secrets in the namespace does not outlive the install. The account and its rights come first (weight).
 */
export const HOOK_ANNOTATIONS = {
  'helm.sh/hook': 'pre-install,pre-upgrade',
  'helm.sh/hook-delete-policy': 'before-hook-creation,hook-succeeded',
} as const;

function asHook(o: Manifest): Manifest {
  if (componentOf(o) !== 'redis-secret-init') return o;
  const h = structuredClone(o) as Manifest & { metadata: { annotations?: Record<string, string> } };
  h.metadata.annotations = {
    ...h.metadata.annotations,
    ...HOOK_ANNOTATIONS,
    'helm.sh/hook-weight': o.kind === 'Job' ? '0' : '-5',
  };
  return h;
}

/** Every file now in the chart directory (relative paths). */
function filesOnDisk(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesOnDisk(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

/** Differences between the chart on disk and the generated one (empty: up to date). */
export function staleFiles(want: Map<string, string>, dir = CHART_DIR): string[] {
  const have = new Set(filesOnDisk(dir));
  const out: string[] = [];
  for (const [file, text] of want) {
    if (!have.has(file)) out.push(`${file}: missing`);
    else if (readFileSync(path.join(dir, file), 'utf8') !== text) out.push(`${file}: differs`);
    have.delete(file);
  }
  for (const file of have) out.push(`${file}: not generated`);
  return out;
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
}

if (import.meta.main) {
  const want = chartFiles(chartSources(), packageVersion());
  if (process.argv.includes('--check')) {
    const stale = staleFiles(want);
    if (stale.length > 0) {
      process.stderr.write(`charts/podset-operator is stale (npm run gen:chart):\n  ${stale.join('\n  ')}\n`);
      process.exit(1);
    }
  } else {
    rmSync(CHART_DIR, { recursive: true, force: true });
    for (const [file, text] of want) {
      mkdirSync(path.dirname(path.join(CHART_DIR, file)), { recursive: true });
      writeFileSync(path.join(CHART_DIR, file), text);
    }
    process.stdout.write(`wrote ${want.size} files to ${path.relative(process.cwd(), CHART_DIR)}\n`);
  }
}
