// The V8 heap the bench's watcher and workers run with. By default the one a container of the shipped
// manifests gives them (k8s/base/<app>.yaml: NODE_OPTIONS and the memory limit), so the CPU the bench
// reports is the CPU of the heap users run: young-generation size decides how often V8 scavenges, and the
// shipped semi-spaces are far smaller than Node's host defaults. `host` leaves Node's defaults (what the
// bench ran before), for comparing the two.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

export type AppHeap = 'shipped' | 'host';
export type HeapApp = 'watcher' | 'worker';

const MiB = 1024 ** 2;

/** A Kubernetes memory quantity ("320Mi", "1Gi", "512M", "268435456") in bytes. */
export function quantityBytes(q: string): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(q);
  if (!m) throw new Error(`not a memory quantity: ${q}`);
  const unit = { Ki: 1024, Mi: MiB, Gi: 1024 ** 3, Ti: 1024 ** 4, k: 1e3, M: 1e6, G: 1e9, T: 1e12 };
  return Math.round(Number(m[1]) * (m[2] ? unit[m[2] as keyof typeof unit] : 1));
}

interface Container {
  name?: string;
  env?: { name?: string; value?: string }[];
  resources?: { limits?: { memory?: string } };
}

/**
 * `app`'s container in a manifest's text: its NODE_OPTIONS and memory limit. Throws, naming the file, when
 * the manifest has no such container, or it lacks either.
 */
export function shippedHeapOf(
  manifest: string,
  app: HeapApp,
  file: string,
): { nodeOptions: string; memory: string } {
  for (const doc of parseAllDocuments(manifest)) {
    const obj = doc.toJS() as {
      kind?: string;
      spec?: { template?: { spec?: { containers?: Container[] } } };
    };
    if (obj?.kind !== 'Deployment') continue;
    const container = obj.spec?.template?.spec?.containers?.find((c) => c.name === app);
    if (container === undefined) continue;
    const nodeOptions = container.env?.find((e) => e.name === 'NODE_OPTIONS')?.value;
    const memory = container.resources?.limits?.memory;
    if (nodeOptions === undefined || memory === undefined) {
      throw new Error(
        `${file}: the ${app} container has no ${nodeOptions === undefined ? 'NODE_OPTIONS' : 'memory limit'}`,
      );
    }
    return { nodeOptions, memory };
  }
  throw new Error(`${file}: no Deployment with a container named ${app}`);
}

/**
 * The node flags that give a process outside a container the heap `nodeOptions` gives one under a
 * `memory` limit: --max-old-space-size-percentage=P becomes --max-old-space-size of P % of the limit (in
 * MiB, rounded down), since Node takes the percentage of the host's RAM where no cgroup limit is set; the
 * other flags pass as they are.
 */
export function containerHeapFlags(nodeOptions: string, memory: string): string[] {
  const limitMiB = quantityBytes(memory) / MiB;
  return nodeOptions
    .split(/\s+/)
    .filter((f) => f !== '')
    .map((flag) => {
      const pct = /^--max-old-space-size-percentage=(\d+(?:\.\d+)?)$/.exec(flag);
      return pct === null ? flag : `--max-old-space-size=${Math.floor((Number(pct[1]) * limitMiB) / 100)}`;
    });
}

/** The shipped heap flags of `app`, as containerHeapFlags gives them, read from the repository's k8s/base. */
export function shippedHeapFlags(repo: string, app: HeapApp): string[] {
  const file = path.join(repo, 'k8s/base', `${app}.yaml`);
  const { nodeOptions, memory } = shippedHeapOf(readFileSync(file, 'utf8'), app, file);
  return containerHeapFlags(nodeOptions, memory);
}

/**
 * NODE_OPTIONS of the watcher and of every worker the bench starts (cluster.ts): set by setAppHeap; none
 * until then. A role's own NODE_OPTIONS (--watcher-env, --worker-env) replaces it.
 */
const heapEnv: Record<HeapApp, Record<string, string>> = { watcher: {}, worker: {} };

/** The environment that gives `app` the heap setAppHeap chose. */
export function heapEnvOf(app: HeapApp): Record<string, string> {
  return heapEnv[app];
}

/** Sets the apps' heap (the shipped one from `repo`'s k8s/base, or Node's defaults); returns each app's flags. */
export function setAppHeap(heap: AppHeap, repo: string): Record<HeapApp, string[]> {
  const flags: Record<HeapApp, string[]> = { watcher: [], worker: [] };
  for (const app of ['watcher', 'worker'] as const) {
    flags[app] = heap === 'shipped' ? shippedHeapFlags(repo, app) : [];
    heapEnv[app] = flags[app].length > 0 ? { NODE_OPTIONS: flags[app].join(' ') } : {};
  }
  return flags;
}
