// Which resources the server serves: the built-in types and those registered by CRDs.
import type { ResourceType } from '../../apimachinery/types.ts';
import { resourceId } from '../../apimachinery/resource-ids.ts';

export { apiResourceId, apiVersionOf, resourceId } from '../../apimachinery/resource-ids.ts';

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

interface Spec {
  g: string;
  v: string;
  kind: string;
  plural: string;
  cluster?: boolean;
  short?: string[];
  cat?: string[];
  status?: boolean;
  scale?: boolean;
  verbs?: string[];
  /** Stored as another resource (its id). */
  store?: string;
}

const SPECS: Spec[] = [
  {
    g: '',
    v: 'v1',
    kind: 'Namespace',
    plural: 'namespaces',
    cluster: true,
    short: ['ns'],
    status: true,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
  },
  { g: '', v: 'v1', kind: 'Pod', plural: 'pods', short: ['po'], cat: ['all'], status: true },
  { g: '', v: 'v1', kind: 'Node', plural: 'nodes', cluster: true, short: ['no'], status: true },
  { g: '', v: 'v1', kind: 'Event', plural: 'events', short: ['ev'] },
  { g: '', v: 'v1', kind: 'ConfigMap', plural: 'configmaps', short: ['cm'] },
  { g: '', v: 'v1', kind: 'Secret', plural: 'secrets' },
  { g: '', v: 'v1', kind: 'ServiceAccount', plural: 'serviceaccounts', short: ['sa'] },
  {
    g: '',
    v: 'v1',
    kind: 'Service',
    plural: 'services',
    short: ['svc'],
    cat: ['all'],
    status: true,
    verbs: ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'],
  },
  { g: '', v: 'v1', kind: 'Endpoints', plural: 'endpoints', short: ['ep'] },
  {
    g: '',
    v: 'v1',
    kind: 'PersistentVolumeClaim',
    plural: 'persistentvolumeclaims',
    short: ['pvc'],
    status: true,
  },
  { g: '', v: 'v1', kind: 'ResourceQuota', plural: 'resourcequotas', short: ['quota'], status: true },
  {
    g: '',
    v: 'v1',
    kind: 'ReplicationController',
    plural: 'replicationcontrollers',
    short: ['rc'],
    cat: ['all'],
    status: true,
    scale: true,
  },
  { g: '', v: 'v1', kind: 'LimitRange', plural: 'limitranges', short: ['limits'] },
  {
    g: 'apps',
    v: 'v1',
    kind: 'Deployment',
    plural: 'deployments',
    short: ['deploy'],
    cat: ['all'],
    status: true,
    scale: true,
  },
  {
    g: 'apps',
    v: 'v1',
    kind: 'StatefulSet',
    plural: 'statefulsets',
    short: ['sts'],
    cat: ['all'],
    status: true,
    scale: true,
  },
  {
    g: 'apps',
    v: 'v1',
    kind: 'ReplicaSet',
    plural: 'replicasets',
    short: ['rs'],
    cat: ['all'],
    status: true,
    scale: true,
  },
  { g: 'apps', v: 'v1', kind: 'DaemonSet', plural: 'daemonsets', short: ['ds'], cat: ['all'], status: true },
  { g: 'apps', v: 'v1', kind: 'ControllerRevision', plural: 'controllerrevisions' },
  { g: 'batch', v: 'v1', kind: 'Job', plural: 'jobs', cat: ['all'], status: true },
  { g: 'batch', v: 'v1', kind: 'CronJob', plural: 'cronjobs', short: ['cj'], cat: ['all'], status: true },
  { g: 'events.k8s.io', v: 'v1', kind: 'Event', plural: 'events', short: ['ev'], store: 'events' },
  { g: 'coordination.k8s.io', v: 'v1', kind: 'Lease', plural: 'leases' },
  {
    g: 'apiregistration.k8s.io',
    v: 'v1',
    kind: 'APIService',
    plural: 'apiservices',
    cluster: true,
    status: true,
  },
  { g: 'rbac.authorization.k8s.io', v: 'v1', kind: 'Role', plural: 'roles' },
  { g: 'rbac.authorization.k8s.io', v: 'v1', kind: 'RoleBinding', plural: 'rolebindings' },
  { g: 'rbac.authorization.k8s.io', v: 'v1', kind: 'ClusterRole', plural: 'clusterroles', cluster: true },
  {
    g: 'rbac.authorization.k8s.io',
    v: 'v1',
    kind: 'ClusterRoleBinding',
    plural: 'clusterrolebindings',
    cluster: true,
  },
  {
    g: 'policy',
    v: 'v1',
    kind: 'PodDisruptionBudget',
    plural: 'poddisruptionbudgets',
    short: ['pdb'],
    status: true,
  },
  { g: 'discovery.k8s.io', v: 'v1', kind: 'EndpointSlice', plural: 'endpointslices' },
  { g: 'networking.k8s.io', v: 'v1', kind: 'NetworkPolicy', plural: 'networkpolicies', short: ['netpol'] },
  { g: 'networking.k8s.io', v: 'v1', kind: 'Ingress', plural: 'ingresses', short: ['ing'], status: true },
  { g: 'networking.k8s.io', v: 'v1', kind: 'IngressClass', plural: 'ingressclasses', cluster: true },
  {
    g: 'autoscaling',
    v: 'v2',
    kind: 'HorizontalPodAutoscaler',
    plural: 'horizontalpodautoscalers',
    short: ['hpa'],
    cat: ['all'],
    status: true,
  },
  {
    g: 'scheduling.k8s.io',
    v: 'v1',
    kind: 'PriorityClass',
    plural: 'priorityclasses',
    cluster: true,
    short: ['pc'],
  },
  {
    g: 'storage.k8s.io',
    v: 'v1',
    kind: 'StorageClass',
    plural: 'storageclasses',
    cluster: true,
    short: ['sc'],
  },
  {
    g: 'authorization.k8s.io',
    v: 'v1',
    kind: 'SelfSubjectAccessReview',
    plural: 'selfsubjectaccessreviews',
    cluster: true,
    verbs: ['create'],
  },
  {
    g: 'apiextensions.k8s.io',
    v: 'v1',
    kind: 'CustomResourceDefinition',
    plural: 'customresourcedefinitions',
    cluster: true,
    short: ['crd', 'crds'],
    cat: ['api-extensions'],
    status: true,
  },
];

export function builtinTypes(): ResourceType[] {
  return SPECS.map((s) => ({
    group: s.g,
    version: s.v,
    kind: s.kind,
    listKind: `${s.kind}List`,
    plural: s.plural,
    singular: s.kind.toLowerCase(),
    namespaced: !s.cluster,
    shortNames: s.short ?? [],
    categories: s.cat ?? [],
    verbs: s.verbs ?? ALL_VERBS,
    subresources: {
      ...(s.status ? { status: true } : {}),
      ...(s.scale
        ? {
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.replicas',
              labelSelectorPath: '.spec.selector',
            },
          }
        : {}),
    },
    ...(s.store ? { storageResource: s.store, storage: false } : { storage: true }),
  }));
}

/** Kubernetes version priority: GA > beta > alpha > other; higher numbers first. Negative: a first. */
export function compareVersions(a: string, b: string): number {
  const rank = (v: string): [number, number, number, string] => {
    const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
    if (!m) return [3, 0, 0, v];
    const major = Number(m[1]);
    if (!m[2]) return [0, -major, 0, v];
    return [m[2] === 'beta' ? 1 : 2, -major, -Number(m[3]), v];
  };
  const ra = rank(a);
  const rb = rank(b);
  for (let i = 0; i < 3; i++) {
    const d = (ra[i] as number) - (rb[i] as number);
    if (d !== 0) return d;
  }
  return ra[3] < rb[3] ? -1 : ra[3] > rb[3] ? 1 : 0;
}

export interface GroupInfo {
  name: string;
  versions: string[]; // preferred first
}

export class Registry {
  private readonly byGvr = new Map<string, ResourceType>();
  private readonly byId = new Map<string, ResourceType[]>();
  private readonly crds = new Map<string, ResourceType[]>();
  private readonly builtins: ResourceType[];
  private cachedAll: ResourceType[] | undefined;

  constructor() {
    this.builtins = builtinTypes();
    for (const t of this.builtins) this.index(t);
  }

  private index(t: ResourceType): void {
    this.byGvr.set(`${t.group}/${t.version}/${t.plural}`, t);
    const id = resourceId(t);
    const list = this.byId.get(id) ?? [];
    list.push(t);
    this.byId.set(id, list);
    this.cachedAll = undefined;
  }

  private unindex(t: ResourceType): void {
    this.byGvr.delete(`${t.group}/${t.version}/${t.plural}`);
    const id = resourceId(t);
    const list = (this.byId.get(id) ?? []).filter((x) => x !== t);
    if (list.length) this.byId.set(id, list);
    else this.byId.delete(id);
    this.cachedAll = undefined;
  }

  lookup(group: string, version: string, plural: string): ResourceType | undefined {
    return this.byGvr.get(`${group}/${version}/${plural}`);
  }

  /** The storage version's type for a resource id, or undefined when nothing serves it. */
  byResourceId(id: string): ResourceType | undefined {
    const list = this.byId.get(id);
    if (!list) return undefined;
    return list.find((t) => t.storage !== false) ?? list[0];
  }

  /** Registers (or re-registers) the versions of a CRD, by its name (`plural.group`). */
  setCrd(name: string, types: ResourceType[]): void {
    this.removeCrd(name);
    for (const t of types) {
      const existing = this.byGvr.get(`${t.group}/${t.version}/${t.plural}`);
      if (existing && this.builtins.includes(existing)) continue; // never shadow a built-in
      this.index(t);
    }
    this.crds.set(name, types);
  }

  removeCrd(name: string): void {
    const old = this.crds.get(name);
    if (!old) return;
    for (const t of old) if (this.byGvr.get(`${t.group}/${t.version}/${t.plural}`) === t) this.unindex(t);
    this.crds.delete(name);
  }

  isCrdType(t: ResourceType): boolean {
    return !this.builtins.includes(t);
  }

  all(): ResourceType[] {
    this.cachedAll ??= [...this.byGvr.values()];
    return this.cachedAll;
  }

  groups(): GroupInfo[] {
    const versions = new Map<string, Set<string>>();
    for (const t of this.all()) {
      if (t.group === '') continue;
      let s = versions.get(t.group);
      if (!s) versions.set(t.group, (s = new Set()));
      s.add(t.version);
    }
    const out: GroupInfo[] = [];
    for (const [name, vs] of versions) {
      let sorted = [...vs].sort(compareVersions);
      // A CRD's preferred version is its storage version's peer with the highest priority: Kubernetes orders
      // by version priority, which is what compareVersions does.
      sorted = sorted.length ? sorted : [];
      out.push({ name, versions: sorted });
    }
    return out;
  }

  typesIn(group: string, version: string): ResourceType[] {
    return this.all().filter((t) => t.group === group && t.version === version);
  }
}
