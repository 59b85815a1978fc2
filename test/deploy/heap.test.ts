// The apps' V8 heap in every shipped deployment (docs/PERFORMANCE.md F6). Each app container sets
// NODE_OPTIONS with --max-old-space-size-percentage (old space as a share of the container's memory limit,
// which Node reads from the cgroup) and --max-semi-space-size, and has a memory limit. The heap limit that
// gives (old space + 3 semi-spaces) must stay within 60 % of the memory limit and leave room for what a Node
// process keeps outside its heap, in k8s/ (base and overlays, as kustomize renders them) and in
// docker-compose.yml (and its kind override). Node itself is asked: the flags must be accepted in
// NODE_OPTIONS and give the heap limit computed here; where a cgroup limit can be faked (root, a private
// mount namespace) they must give it from the memory limit alone.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { after, test } from 'node:test';
import { parse } from 'yaml';
import {
  KUSTOMIZATIONS,
  appOf,
  render,
  workloads,
  type Container,
  type K8sObject,
  type Workload,
} from './manifests.ts';
import { quantityBytes as k8sBytes } from '../../bench/lib/app-heap.ts';
import { REPO, parseDockerfile, readRepo, stages } from './support.ts';

const MiB = 1024 ** 2;
const NODE = path.join(REPO, 'node_modules/.bin/node');
/** The share of its memory limit an app's heap limit may take. */
const MAX_HEAP_SHARE = 0.6;
/**
 * What a Node process of these apps keeps outside its JS heap (code, type stripping, buffers): 102–113 MiB
 * resident beyond the committed heap, idle, for the watcher, a worker and the dashboard (Node 24.9), rounded
 * up. The heap limit plus this must fit in the memory limit, so that V8 reaches its own limit (and collects
 * harder before it) instead of the container being OOM-killed first.
 */
const OUTSIDE_HEAP = 128 * MiB;
/**
 * The watcher's heap as measured (docs/PERFORMANCE.md F6 the old space, RSS flat from 1k to 100k pods;
 * "The shipped heap" the semi-spaces: 4 MiB cost ~30 % more CPU, 8 MiB about what 16 cost, with RSS
 * within the 4 MiB runs' spread).
 */
const WATCHER_F6 = { semiSpace: 8 * MiB, oldSpace: 128 * MiB };
const APPS = ['watcher', 'worker', 'dashboard'] as const;

const dir = mkdtempSync(path.join(os.tmpdir(), 'podset-deploy-heap-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A docker compose memory size ("320m", "1g", "512mb", "268435456"; binary units, as docker reads them). */
export function composeBytes(q: string | number): number {
  const m = /^(\d+)\s*([bkmg])?b?$/i.exec(String(q));
  if (!m) throw new Error(`not a memory size: ${q}`);
  return Number(m[1]) * 1024 ** 'bkmg'.indexOf((m[2] ?? 'b').toLowerCase());
}

export interface HeapFlags {
  /** --max-semi-space-size, in bytes. */
  semiSpace: number;
  /** --max-old-space-size-percentage. */
  oldPercent: number;
}

/** The two heap flags of a NODE_OPTIONS value, or what is wrong with it. */
export function heapFlags(nodeOptions: string | undefined): HeapFlags | string {
  if (nodeOptions === undefined) return 'no NODE_OPTIONS';
  const flags = new Map<string, string>();
  for (const token of nodeOptions.split(/\s+/).filter((t) => t !== '')) {
    const m = /^--([a-z_-]+)(?:=(.*))?$/.exec(token);
    if (m) flags.set((m[1] as string).replace(/_/g, '-'), m[2] ?? '');
  }
  const semi = flags.get('max-semi-space-size');
  const pct = flags.get('max-old-space-size-percentage');
  if (semi === undefined || !/^\d+$/.test(semi))
    return `NODE_OPTIONS ${JSON.stringify(nodeOptions)} sets no --max-semi-space-size=<MiB>`;
  if (pct === undefined || !/^\d+(\.\d+)?$/.test(pct))
    return `NODE_OPTIONS ${JSON.stringify(nodeOptions)} sets no --max-old-space-size-percentage=<percent>`;
  return { semiSpace: Number(semi) * MiB, oldPercent: Number(pct) };
}

/** The old space Node derives from a memory limit (whole MiB of the limit × percent, rounded down). */
export function oldSpace(limit: number, f: HeapFlags): number {
  return Math.floor((Math.floor(limit / MiB) * f.oldPercent) / 100) * MiB;
}

/** V8's heap limit (heap_size_limit): the old space plus the young generation, 3 semi-spaces. */
export function heapLimit(limit: number, f: HeapFlags): number {
  return oldSpace(limit, f) + 3 * f.semiSpace;
}

function boundProblems(where: string, nodeOptions: string | undefined, limit: number | undefined): string[] {
  const f = heapFlags(nodeOptions);
  if (typeof f === 'string') return [`${where}: ${f}`];
  if (limit === undefined) return [`${where}: no memory limit (the old space is a share of it)`];
  const heap = heapLimit(limit, f);
  const mib = (b: number) => `${(b / MiB).toFixed(0)} MiB`;
  const problems: string[] = [];
  if (heap > MAX_HEAP_SHARE * limit)
    problems.push(`${where}: heap limit ${mib(heap)} is over ${MAX_HEAP_SHARE * 100} % of ${mib(limit)}`);
  if (heap + OUTSIDE_HEAP > limit)
    problems.push(
      `${where}: heap limit ${mib(heap)} + ${mib(OUTSIDE_HEAP)} outside the heap exceeds the limit ${mib(limit)}`,
    );
  return problems;
}

const envValue = (c: Container, name: string): string | undefined =>
  c.env?.find((e) => e.name === name)?.value;

const rendered = new Map<string, K8sObject[]>(KUSTOMIZATIONS.map((k) => [k, render(k)]));

/** Each app's container in a rendered kustomization. */
function appContainers(kustomization: string): Map<string, Container> {
  const out = new Map<string, Container>();
  for (const w of workloads(rendered.get(kustomization) ?? []) as Workload[]) {
    for (const c of w.spec.template.spec.containers) {
      const app = appOf(c);
      if (app !== undefined) out.set(app, c);
    }
  }
  return out;
}
const base = appContainers('k8s');

for (const k of KUSTOMIZATIONS) {
  test(`${k}: every app bounds its V8 heap (NODE_OPTIONS) within its container's memory limit`, () => {
    const containers = appContainers(k);
    assert.deepEqual([...containers.keys()].sort(), [...APPS].sort());
    const problems: string[] = [];
    for (const [app, c] of containers) {
      const limit = c.resources?.limits?.memory;
      problems.push(
        ...boundProblems(`${k} ${app}`, envValue(c, 'NODE_OPTIONS'), limit ? k8sBytes(limit) : undefined),
      );
      const byRef = c.env?.find((e) => e.name === 'NODE_OPTIONS')?.valueFrom;
      if (byRef !== undefined) problems.push(`${k} ${app}: NODE_OPTIONS must be a literal, not a reference`);
    }
    assert.deepEqual(problems, []);
  });

  test(`${k}: the watcher's heap is the one measured (semi-spaces 8 MiB, old space 128 MiB)`, () => {
    const c = appContainers(k).get('watcher');
    assert.ok(c, 'a watcher container');
    const f = heapFlags(envValue(c, 'NODE_OPTIONS'));
    assert.ok(typeof f !== 'string', String(f));
    assert.equal(f.semiSpace, WATCHER_F6.semiSpace, '--max-semi-space-size');
    assert.equal(
      oldSpace(k8sBytes(c.resources?.limits?.memory ?? '0'), f),
      WATCHER_F6.oldSpace,
      'old space = --max-old-space-size-percentage of the memory limit',
    );
  });
}

interface ComposeService {
  mem_limit?: string | number;
  environment?: Record<string, string>;
}
const compose = parse(readRepo('docker-compose.yml'), { merge: true }) as {
  services: Record<string, ComposeService>;
};
const kindOverride = parse(readRepo('docker-compose.kind.yml'), { merge: true, logLevel: 'error' }) as {
  services: Record<string, ComposeService>;
};

for (const [name, services] of [
  ['docker-compose.yml', compose.services],
  [
    'docker-compose.yml + docker-compose.kind.yml',
    // compose merges an override's environment map and replaces scalars such as mem_limit.
    Object.fromEntries(
      Object.entries(compose.services).map(([s, svc]) => {
        const o = kindOverride.services[s] ?? {};
        return [
          s,
          {
            mem_limit: o.mem_limit ?? svc.mem_limit,
            environment: { ...(svc.environment ?? {}), ...(o.environment ?? {}) },
          },
        ];
      }),
    ),
  ],
] as const) {
  test(`${name}: every app has the heap flags and memory limit of its k8s container`, () => {
    const problems: string[] = [];
    for (const app of APPS) {
      const s = services[app];
      assert.ok(s, `service ${app}`);
      const nodeOptions = s.environment?.NODE_OPTIONS;
      const limit = s.mem_limit === undefined ? undefined : composeBytes(s.mem_limit);
      problems.push(...boundProblems(`${name} ${app}`, nodeOptions, limit));
      const k8s = base.get(app) as Container;
      assert.equal(nodeOptions, envValue(k8s, 'NODE_OPTIONS'), `${app}: NODE_OPTIONS as in k8s/base`);
      assert.equal(limit, k8sBytes(k8s.resources?.limits?.memory ?? '0'), `${app}: mem_limit as in k8s/base`);
    }
    assert.deepEqual(problems, []);
  });
}

/** Runs node with NODE_OPTIONS and returns V8's heap_size_limit (bytes), or fails with node's output. */
function nodeHeapLimit(nodeOptions: string): number {
  const res = spawnSync(NODE, ['-p', 'v8.getHeapStatistics().heap_size_limit'], {
    env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: nodeOptions },
    encoding: 'utf8',
    timeout: 30_000,
  });
  assert.equal(res.status, 0, `NODE_OPTIONS=${JSON.stringify(nodeOptions)}: ${res.stderr}${res.stdout}`);
  return Number(res.stdout.trim());
}

test("Node 24 accepts each app's NODE_OPTIONS, and V8's heap limit is old space + 3 semi-spaces", () => {
  for (const app of APPS) {
    const c = base.get(app) as Container;
    const nodeOptions = envValue(c, 'NODE_OPTIONS') ?? '';
    const f = heapFlags(nodeOptions);
    assert.ok(typeof f !== 'string', f as string);
    // Accepted as they are (NODE_OPTIONS allows only some flags; a bad one stops node before the app).
    assert.ok(nodeHeapLimit(nodeOptions) > 0);
    // With the old space the percentage gives under the container's limit, set directly (no cgroup here):
    // the heap limit this file computes is V8's.
    const limit = k8sBytes(c.resources?.limits?.memory ?? '0');
    const fixed = `--max-semi-space-size=${f.semiSpace / MiB} --max-old-space-size=${oldSpace(limit, f) / MiB}`;
    assert.equal(nodeHeapLimit(fixed), heapLimit(limit, f), `${app}: ${fixed}`);
  }
});

/**
 * The cgroup file libuv reads the memory limit from (uv_get_constrained_memory): cgroup v2's memory.max,
 * or cgroup v1's memory.limit_in_bytes, of this process's cgroup.
 */
function cgroupLimitFile(): string | undefined {
  const lines = readFileSync('/proc/self/cgroup', 'utf8').split('\n');
  if (lines[0]?.startsWith('0::/')) return path.join('/sys/fs/cgroup', lines[0].slice(3), 'memory.max');
  const v1 = lines
    .map((l) => /^\d+:([^:]*):(.*)$/.exec(l))
    .find((m) => m?.[1]?.split(',').includes('memory'));
  return v1 ? path.join('/sys/fs/cgroup/memory', v1[2] as string, 'memory.limit_in_bytes') : undefined;
}

test("under each app's memory limit (a faked cgroup limit), its NODE_OPTIONS give the heap limit computed", (t) => {
  const file = process.platform === 'linux' ? cgroupLimitFile() : undefined;
  const probe = (limit: number, nodeOptions: string, expression: string) => {
    const fake = path.join(dir, `limit-${limit}`);
    writeFileSync(fake, `${limit}\n`);
    // A private mount namespace: the fake file is bind-mounted over the cgroup's only for this child.
    const script = 'mount --bind "$1" "$2" && exec "$3" -p "$4"';
    return spawnSync(
      'unshare',
      ['-m', '--propagation', 'private', 'sh', '-c', script, 'sh', fake, file ?? '', NODE, expression],
      { env: { PATH: process.env.PATH ?? '', NODE_OPTIONS: nodeOptions }, encoding: 'utf8', timeout: 30_000 },
    );
  };
  const check = file === undefined ? undefined : probe(300 * MiB, '', 'process.constrainedMemory()');
  if (check?.status !== 0 || Number(check.stdout.trim()) !== 300 * MiB) {
    t.skip(
      `cannot fake a cgroup memory limit here (needs root and unshare -m): ${String(check?.stderr ?? check?.error ?? 'no cgroup file').trim()}`,
    );
    return;
  }
  for (const app of APPS) {
    const c = base.get(app) as Container;
    const nodeOptions = envValue(c, 'NODE_OPTIONS') ?? '';
    const f = heapFlags(nodeOptions);
    assert.ok(typeof f !== 'string', f as string);
    const limit = k8sBytes(c.resources?.limits?.memory ?? '0');
    const res = probe(limit, nodeOptions, 'v8.getHeapStatistics().heap_size_limit');
    assert.equal(res.status, 0, res.stderr);
    assert.equal(Number(res.stdout.trim()), heapLimit(limit, f), `${app} under ${limit / MiB} MiB`);
    // Without the flags, Node 24 sizes the heap from the limit too, but never below a 256 MiB old space.
    const unbounded = probe(limit, '', 'v8.getHeapStatistics().heap_size_limit');
    t.diagnostic(
      `${app}: heap limit ${heapLimit(limit, f) / MiB} MiB with its NODE_OPTIONS, ${Number(unbounded.stdout.trim()) / MiB} MiB without, in ${limit / MiB} MiB`,
    );
  }
});

test('the image runs a Node 24 that has --max-old-space-size-percentage (24.9 or newer, or the floating node:24 tag)', () => {
  const runtime = stages(parseDockerfile(readRepo('Dockerfile'))).at(-1);
  assert.ok(runtime, 'a runtime stage');
  const tag = /^node:([^@]+)/.exec(runtime.image)?.[1] ?? '';
  const m = /^24(?:\.(\d+))?(?:\.\d+)?(?:-|$)/.exec(tag);
  assert.ok(m, `the runtime stage is on node:24*, saw ${runtime.image}`);
  if (m[1] !== undefined) assert.ok(Number(m[1]) >= 9, `node:${tag} predates the flags' verification (24.9)`);
});
