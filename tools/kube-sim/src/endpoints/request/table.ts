// Server-side printing: meta.k8s.io/v1 Table for get/list/watch, as kubectl asks for it.
import { partialObjectMetadata } from './negotiate.ts';
import type { Json, JsonObject, KubeObject, ResourceType } from '../../apimachinery/types.ts';

export type IncludeObject = 'None' | 'Metadata' | 'Object';

interface Column {
  name: string;
  type: string;
  format: string;
  description: string;
  priority: number;
}

function col(name: string, type = 'string', priority = 0, format = ''): Column {
  return { name, type, format, description: name, priority };
}

/** Kubernetes' duration.HumanDuration. */
export function humanDuration(ms: number): string {
  if (ms < -1000) return '<invalid>';
  if (ms < 0) return '0s';
  const seconds = Math.floor(ms / 1000);
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.floor(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const dy = Math.floor(hours / 24) % 365;
    const y = Math.floor(hours / 24 / 365);
    return dy === 0 ? `${y}y` : `${y}y${dy}d`;
  }
  return `${Math.floor(hours / 24 / 365)}y`;
}

function age(ts: string | undefined, now: number): string {
  if (!ts) return '<unknown>';
  return humanDuration(now - Date.parse(ts));
}

function obj(v: unknown): JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as JsonObject) : {};
}

function arr(v: unknown): Json[] {
  return Array.isArray(v) ? v : [];
}

/**
 * A small JSONPath evaluator for printer columns: `.a.b`, `.a[0]`, `.a[*].b`, `.a[?(@.type=="Ready")].status`.
 * Returns all matches.
 */
export function evalJsonPath(root: unknown, path: string): Json[] {
  let p = path.trim();
  if (p.startsWith('{') && p.endsWith('}')) p = p.slice(1, -1);
  if (p.startsWith('$')) p = p.slice(1);
  const tokens: string[] = [];
  const re = /\.([^.[\]]+)|\[([^\]]*)\]/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(p))) tokens.push(m[1] !== undefined ? `.${m[1]}` : `[${m[2]}]`);
  let cur: unknown[] = [root];
  for (const tok of tokens) {
    const next: unknown[] = [];
    for (const c of cur) {
      if (tok.startsWith('.')) {
        const v = obj(c)[tok.slice(1)];
        if (v !== undefined) next.push(v);
      } else {
        const inner = tok.slice(1, -1);
        if (inner === '*') next.push(...(Array.isArray(c) ? c : Object.values(obj(c))));
        else if (/^-?\d+$/.test(inner)) {
          const a = arr(c);
          const i = Number(inner);
          const v = a[i < 0 ? a.length + i : i];
          if (v !== undefined) next.push(v);
        } else {
          const f = /^\?\(@\.([\w.-]+)\s*(==|!=)\s*["']?([^"']*)["']?\)$/.exec(inner);
          if (f) {
            for (const item of arr(c)) {
              const val = evalJsonPath(item, `.${f[1]}`)[0];
              const eq = String(val) === f[3];
              if ((f[2] === '==') === eq) next.push(item);
            }
          }
        }
      }
    }
    cur = next;
  }
  return cur as Json[];
}

function podRow(o: KubeObject, now: number): { cells: Json[] } {
  const spec = obj(o.spec);
  const status = obj(o.status);
  const containers = arr(spec.containers);
  const cstat = arr(status.containerStatuses).map(obj);
  const ready = cstat.filter((c) => c.ready === true).length;
  const restarts = cstat.reduce((n, c) => n + (typeof c.restartCount === 'number' ? c.restartCount : 0), 0);
  // As kubectl's printer: the restarts, and how long ago the last restarted container exited.
  const lastExit = cstat
    .map((c) => obj(obj(obj(c.lastState).terminated)).finishedAt)
    .filter((t): t is string => typeof t === 'string')
    .sort()
    .at(-1);
  const restartsCell = restarts !== 0 && lastExit ? `${restarts} (${age(lastExit, now)} ago)` : restarts;
  let reason = String(status.reason ?? status.phase ?? 'Unknown');
  for (const c of cstat) {
    const st = obj(c.state);
    const w = obj(st.waiting);
    const t = obj(st.terminated);
    if (typeof w.reason === 'string' && w.reason) reason = w.reason;
    else if (typeof t.reason === 'string' && t.reason) reason = t.reason;
  }
  if (o.metadata.deletionTimestamp) reason = status.reason === 'NodeLost' ? 'Unknown' : 'Terminating';
  const gates = arr(spec.readinessGates);
  return {
    cells: [
      o.metadata.name ?? '',
      `${ready}/${containers.length}`,
      reason,
      restartsCell,
      age(o.metadata.creationTimestamp, now),
      String(status.podIP ?? '<none>'),
      String(spec.nodeName ?? '<none>'),
      String(status.nominatedNodeName ?? '<none>'),
      gates.length ? `${gates.length}` : '<none>',
    ],
  };
}

interface Printer {
  columns: Column[];
  row: (o: KubeObject, now: number) => Json[];
}

function conditionStatus(o: KubeObject, type: string): string | undefined {
  const c = arr(obj(o.status).conditions)
    .map(obj)
    .find((x) => x.type === type);
  return c ? String(c.status) : undefined;
}

/** DESIRED, CURRENT, READY, AGE: what a ReplicaSet and a ReplicationController show. */
const replicaCounts: Printer = {
  columns: [
    col('Name', 'string', 0, 'name'),
    col('Desired', 'integer'),
    col('Current', 'integer'),
    col('Ready', 'integer'),
    col('Age'),
  ],
  row: (o, now) => {
    const s = obj(o.status);
    return [
      o.metadata.name ?? '',
      Number(obj(o.spec).replicas ?? 1),
      Number(s.replicas ?? 0),
      Number(s.readyReplicas ?? 0),
      age(o.metadata.creationTimestamp, now),
    ];
  },
};

const BUILTIN: Record<string, Printer> = {
  pods: {
    columns: [
      col('Name', 'string', 0, 'name'),
      col('Ready'),
      col('Status'),
      col('Restarts', 'string'),
      col('Age'),
      col('IP', 'string', 1),
      col('Node', 'string', 1),
      col('Nominated Node', 'string', 1),
      col('Readiness Gates', 'string', 1),
    ],
    row: (o, now) => podRow(o, now).cells,
  },
  namespaces: {
    columns: [col('Name', 'string', 0, 'name'), col('Status'), col('Age')],
    row: (o, now) => [
      o.metadata.name ?? '',
      String(obj(o.status).phase ?? 'Active'),
      age(o.metadata.creationTimestamp, now),
    ],
  },
  nodes: {
    columns: [col('Name', 'string', 0, 'name'), col('Status'), col('Roles'), col('Age'), col('Version')],
    row: (o, now) => {
      const ready = conditionStatus(o, 'Ready');
      const unsched = obj(o.spec).unschedulable === true;
      const roles = Object.keys(o.metadata.labels ?? {})
        .filter((k) => k.startsWith('node-role.kubernetes.io/'))
        .map((k) => k.slice('node-role.kubernetes.io/'.length));
      return [
        o.metadata.name ?? '',
        (ready === 'True' ? 'Ready' : ready === undefined ? 'Unknown' : 'NotReady') +
          (unsched ? ',SchedulingDisabled' : ''),
        roles.length ? roles.join(',') : '<none>',
        age(o.metadata.creationTimestamp, now),
        String(obj(obj(o.status).nodeInfo).kubeletVersion ?? ''),
      ];
    },
  },
  'deployments.apps': {
    columns: [
      col('Name', 'string', 0, 'name'),
      col('Ready'),
      col('Up-to-date', 'integer'),
      col('Available', 'integer'),
      col('Age'),
    ],
    row: (o, now) => {
      const s = obj(o.status);
      return [
        o.metadata.name ?? '',
        `${Number(s.readyReplicas ?? 0)}/${Number(obj(o.spec).replicas ?? 1)}`,
        Number(s.updatedReplicas ?? 0),
        Number(s.availableReplicas ?? 0),
        age(o.metadata.creationTimestamp, now),
      ];
    },
  },
  configmaps: {
    columns: [col('Name', 'string', 0, 'name'), col('Data', 'integer'), col('Age')],
    row: (o, now) => [
      o.metadata.name ?? '',
      Object.keys(obj(o.data)).length + Object.keys(obj(o.binaryData)).length,
      age(o.metadata.creationTimestamp, now),
    ],
  },
  secrets: {
    columns: [col('Name', 'string', 0, 'name'), col('Type'), col('Data', 'integer'), col('Age')],
    row: (o, now) => [
      o.metadata.name ?? '',
      String(o.type ?? 'Opaque'),
      Object.keys(obj(o.data)).length,
      age(o.metadata.creationTimestamp, now),
    ],
  },
  events: {
    columns: [
      col('Last Seen'),
      col('Type'),
      col('Reason'),
      col('Object'),
      col('Message'),
      col('Name', 'string', 1, 'name'),
    ],
    row: (o, now) => {
      const io = obj(o.involvedObject);
      const last = (o.lastTimestamp ?? o.eventTime ?? o.metadata.creationTimestamp) as string | undefined;
      return [
        age(last ?? undefined, now),
        String(o.type ?? ''),
        String(o.reason ?? ''),
        `${String(io.kind ?? '').toLowerCase()}/${String(io.name ?? '')}`,
        String(o.message ?? ''),
        o.metadata.name ?? '',
      ];
    },
  },
  services: {
    columns: [
      col('Name', 'string', 0, 'name'),
      col('Type'),
      col('Cluster-IP'),
      col('External-IP'),
      col('Port(s)'),
      col('Age'),
      col('Selector', 'string', 1),
    ],
    row: (o, now) => {
      const spec = obj(o.spec);
      const ports = arr(spec.ports)
        .map(obj)
        .map(
          (p) =>
            `${String(p.port)}${p.nodePort ? `:${String(p.nodePort)}` : ''}/${String(p.protocol ?? 'TCP')}`,
        );
      const external = arr(spec.externalIPs).map(String);
      const sel = Object.entries(obj(spec.selector)).map(([k, v]) => `${k}=${String(v)}`);
      return [
        o.metadata.name ?? '',
        String(spec.type ?? 'ClusterIP'),
        String(spec.clusterIP ?? '<none>'),
        external.length ? external.join(',') : spec.type === 'LoadBalancer' ? '<pending>' : '<none>',
        ports.length ? ports.join(',') : '<none>',
        age(o.metadata.creationTimestamp, now),
        sel.length ? sel.join(',') : '<none>',
      ];
    },
  },
  'statefulsets.apps': {
    columns: [col('Name', 'string', 0, 'name'), col('Ready'), col('Age')],
    row: (o, now) => [
      o.metadata.name ?? '',
      `${Number(obj(o.status).readyReplicas ?? 0)}/${Number(obj(o.spec).replicas ?? 1)}`,
      age(o.metadata.creationTimestamp, now),
    ],
  },
  'replicasets.apps': replicaCounts,
  // As kubectl shows them: the same columns as a ReplicaSet's.
  replicationcontrollers: replicaCounts,

  'jobs.batch': {
    columns: [
      col('Name', 'string', 0, 'name'),
      col('Status'),
      col('Completions'),
      col('Duration'),
      col('Age'),
    ],
    row: (o, now) => {
      const s = obj(o.status);
      const done = conditionStatus(o, 'Complete') === 'True';
      const failed = conditionStatus(o, 'Failed') === 'True';
      const start = typeof s.startTime === 'string' ? Date.parse(s.startTime) : undefined;
      const end = typeof s.completionTime === 'string' ? Date.parse(s.completionTime) : now;
      return [
        o.metadata.name ?? '',
        done ? 'Complete' : failed ? 'Failed' : 'Running',
        `${Number(s.succeeded ?? 0)}/${Number(obj(o.spec).completions ?? 1)}`,
        start === undefined ? '' : humanDuration(end - start),
        age(o.metadata.creationTimestamp, now),
      ];
    },
  },
  // used/hard per resource of status.hard, limits.* in their own column, as kubectl prints a quota.
  resourcequotas: {
    columns: [col('Name', 'string', 0, 'name'), col('Age'), col('Request'), col('Limit')],
    row: (o, now) => {
      const hard = obj(obj(o.status).hard);
      const used = obj(obj(o.status).used);
      const request: string[] = [];
      const limit: string[] = [];
      for (const k of Object.keys(hard).sort()) {
        const cell = `${k}: ${String(used[k] ?? '0')}/${String(hard[k])}`;
        (k.split('.')[0] === 'limits' && k.includes('.') ? limit : request).push(cell);
      }
      return [
        o.metadata.name ?? '',
        age(o.metadata.creationTimestamp, now),
        request.join(', '),
        limit.join(', '),
      ];
    },
  },
  'leases.coordination.k8s.io': {
    columns: [col('Name', 'string', 0, 'name'), col('Holder'), col('Age')],
    row: (o, now) => [
      o.metadata.name ?? '',
      String(obj(o.spec).holderIdentity ?? ''),
      age(o.metadata.creationTimestamp, now),
    ],
  },
};

const DEFAULT_PRINTER: Printer = {
  columns: [col('Name', 'string', 0, 'name'), col('Age', 'date')],
  row: (o, now) => [o.metadata.name ?? '', age(o.metadata.creationTimestamp, now)],
};

function printerFor(t: ResourceType, id: string): Printer {
  const builtin = BUILTIN[id];
  if (builtin) return builtin;
  const pcs = t.printerColumns;
  if (!pcs || pcs.length === 0) return DEFAULT_PRINTER;
  return {
    columns: [
      col('Name', 'string', 0, 'name'),
      ...pcs.map((p) => ({
        name: p.name,
        type: p.type,
        format: p.format ?? '',
        description: p.description ?? '',
        priority: p.priority ?? 0,
      })),
    ],
    row: (o, now) => [
      o.metadata.name ?? '',
      ...pcs.map((p): Json => {
        const vals = evalJsonPath(o, p.jsonPath);
        if (vals.length === 0) return null;
        const v = vals[0] as Json;
        if (p.type === 'date') return typeof v === 'string' ? age(v, now) : null;
        if (vals.length > 1)
          return vals.map((x) => (typeof x === 'object' ? JSON.stringify(x) : String(x))).join(',');
        if (typeof v === 'object' && v !== null) return JSON.stringify(v);
        return v;
      }),
    ],
  };
}

export interface TableOptions {
  includeObject: IncludeObject;
  withColumns: boolean;
  now: number;
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

function embedded(o: KubeObject, include: IncludeObject): Json {
  if (include === 'None') return null;
  if (include === 'Object') return o as unknown as Json;
  return partialObjectMetadata(o);
}

export function table(t: ResourceType, id: string, objects: KubeObject[], opts: TableOptions): JsonObject {
  const p = printerFor(t, id);
  const meta: JsonObject = {};
  if (opts.resourceVersion) meta.resourceVersion = opts.resourceVersion;
  if (opts.continue) meta.continue = opts.continue;
  if (opts.remainingItemCount !== undefined) meta.remainingItemCount = opts.remainingItemCount;
  return {
    kind: 'Table',
    apiVersion: 'meta.k8s.io/v1',
    metadata: meta,
    columnDefinitions: opts.withColumns ? (p.columns as unknown as Json[]) : [],
    rows: objects.map((o) => ({ cells: p.row(o, opts.now), object: embedded(o, opts.includeObject) })),
  };
}

export function includeObjectParam(v: string | null): IncludeObject {
  return v === 'None' || v === 'Object' ? v : 'Metadata';
}
