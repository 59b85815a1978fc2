// Rendering k8s/ with the real kustomize (kubectl kustomize) and small typed views of the result.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { parseK8sYaml } from '../../scripts/k8s-yaml.ts';
import { REPO } from './support.ts';

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/** The kustomizations users apply: the default and each overlay. */
export const KUSTOMIZATIONS = [
  'k8s',
  'k8s/overlays/external-redis',
  'k8s/overlays/keda',
  'k8s/overlays/namespaced',
] as const;

/** `kubectl kustomize DIR` (with this kubectl binary), as text. */
export function kustomize(dir: string, kubectl = 'kubectl'): string {
  return execFileSync(kubectl, ['kustomize', path.join(REPO, dir)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 60_000,
  });
}

/** The objects a kustomization renders, read as kubectl reads them (YAML 1.1). */
export function render(dir: string, kubectl = 'kubectl'): K8sObject[] {
  return parseK8sYaml<K8sObject>(kustomize(dir, kubectl));
}

/** The kubectl minor versions the manifests support: kustomize v5.0 (kubectl 1.27) and later. */
export const KUBECTL_MINORS = [27, 28, 29, 30, 31, 32, 33] as const;

/**
 * The installed kubectl of each supported minor version: `kubectl.1.NN` on the PATH or beside the file the
 * `kubectl` on the PATH resolves to (the Google Cloud SDK installs them there, behind a dispatcher).
 */
export function kubectlClients(): Map<number, string> {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter((d) => d !== '');
  const found = dirs.map((d) => path.join(d, 'kubectl')).find((f) => existsSync(f));
  if (found !== undefined) dirs.push(path.dirname(realpathSync(found)));
  const out = new Map<number, string>();
  for (const minor of KUBECTL_MINORS) {
    for (const d of dirs) {
      const file = path.join(d, `kubectl.1.${minor}`);
      if (!out.has(minor) && existsSync(file)) out.set(minor, file);
    }
  }
  return out;
}

/** The default deployment (k8s/) and every overlay in k8s/overlays/ that renders on its own. */
export function allKustomizations(): string[] {
  const overlays = readdirSync(path.join(REPO, 'k8s', 'overlays'), { withFileTypes: true })
    .filter(
      (e) => e.isDirectory() && existsSync(path.join(REPO, 'k8s', 'overlays', e.name, 'kustomization.yaml')),
    )
    .map((e) => `k8s/overlays/${e.name}`)
    .sort();
  return ['k8s', ...overlays];
}

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: Record<string, unknown>;
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  ports?: { name?: string; containerPort: number }[];
  livenessProbe?: Probe;
  readinessProbe?: Probe;
  startupProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: SecurityContext;
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}

export interface Probe {
  httpGet?: { path: string; port: number | string };
  exec?: { command: string[] };
  periodSeconds?: number;
  failureThreshold?: number;
}

export interface SecurityContext {
  runAsNonRoot?: boolean;
  runAsUser?: number;
  readOnlyRootFilesystem?: boolean;
  allowPrivilegeEscalation?: boolean;
  capabilities?: { drop?: string[]; add?: string[] };
  seccompProfile?: { type: string };
  privileged?: boolean;
}

export interface PodSpec {
  serviceAccountName?: string;
  securityContext?: SecurityContext;
  containers: Container[];
  initContainers?: Container[];
  terminationGracePeriodSeconds?: number;
}

export interface Workload extends K8sObject {
  spec: {
    replicas?: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

export const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet', 'DaemonSet']);

export function workloads(objects: K8sObject[]): Workload[] {
  return objects.filter((o) => WORKLOAD_KINDS.has(o.kind)) as Workload[];
}

export function find<T extends K8sObject = K8sObject>(
  objects: K8sObject[],
  kind: string,
  name: string,
): T | undefined {
  return objects.find((o) => o.kind === kind && o.metadata.name === name) as T | undefined;
}

/** The operator app a container runs (`node apps/<app>/src/main.ts`), if any. */
export function appOf(c: Container): string | undefined {
  const argv = [...(c.command ?? []), ...(c.args ?? [])];
  const entry = argv.find((a) => /^(apps|tools)\/[^/]+\/src\/main\.ts$/.test(a));
  return entry?.split('/')[1];
}

export interface RbacRule {
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  verbs: string[];
  nonResourceURLs?: string[];
}

export interface Role extends K8sObject {
  rules: RbacRule[];
}

export interface Binding extends K8sObject {
  roleRef: { apiGroup: string; kind: string; name: string };
  subjects: { kind: string; name: string; namespace?: string }[];
}

/**
 * The rules granted to a ServiceAccount: from ClusterRoleBindings (cluster-wide) and RoleBindings
 * (in the binding's namespace), each with where it applies.
 */
export function rulesFor(
  objects: K8sObject[],
  namespace: string,
  serviceAccount: string,
): { rule: RbacRule; role: string; namespace: string | undefined }[] {
  const out: { rule: RbacRule; role: string; namespace: string | undefined }[] = [];
  for (const b of objects.filter(
    (o) => o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding',
  ) as Binding[]) {
    const bound = b.subjects.some(
      (s) =>
        s.kind === 'ServiceAccount' &&
        s.name === serviceAccount &&
        (s.namespace ?? b.metadata.namespace) === namespace,
    );
    if (!bound) continue;
    const role = find<Role>(objects, b.roleRef.kind, b.roleRef.name);
    if (role === undefined)
      throw new Error(`${b.kind} ${b.metadata.name} refers to a missing ${b.roleRef.kind} ${b.roleRef.name}`);
    const scope = b.kind === 'RoleBinding' ? b.metadata.namespace : undefined;
    for (const rule of role.rules)
      out.push({ rule, role: `${role.kind}/${role.metadata.name}`, namespace: scope });
  }
  return out;
}
