// Benchmark of tools/kube-sim: creates/s with concurrent clients, list latency of many pods (whole and
// paged), watch fan-out (events/s delivered to several watchers), the server's RSS, and "label LIST under
// writes" (the operator's pattern: LIST pods?labelSelector=podset.io/name=X interleaved with pod writes).
//
//   node_modules/.bin/node bench/kube-sim.ts [--pods 100000] [--clients 32] [--watchers 10]
//       [--watch-events 10000] [--json out.json] [--smoke] [--profile DIR]
//       [--only label-list] [--label-pods 10000] [--label-groups 1000] [--label-iterations 2000]
//
// --only label-list: run only the label-LIST scenario (in its own namespace; well under a minute).
//
// The server runs in a child process (the real CLI, tools/kube-sim/src/cmd/main.ts, with pod lifecycle off),
// so its RSS is measured alone (/proc/<pid>/status) and the load generator does not share its event loop.
// --smoke: a small run (2,000 pods) for CI, same code paths, no targets enforced.
// --profile DIR: the server is started with --cpu-prof and writes its profile to DIR on exit.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Proc } from '@podset/testkit';

const ROOT = join(import.meta.dirname, '..');
const MAIN = join(ROOT, 'tools', 'kube-sim', 'src', 'cmd', 'main.ts');
const NS = 'bench';

const { values: args } = parseArgs({
  options: {
    pods: { type: 'string' },
    clients: { type: 'string', default: '32' },
    watchers: { type: 'string', default: '10' },
    'watch-events': { type: 'string' },
    'page-size': { type: 'string', default: '500' },
    json: { type: 'string' },
    smoke: { type: 'boolean', default: false },
    profile: { type: 'string' },
    only: { type: 'string' },
    'label-pods': { type: 'string' },
    'label-groups': { type: 'string' },
    'label-iterations': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
  strict: true,
});
if (args.help) {
  console.log(
    'usage: npm run bench:kube-sim -- [--pods N] [--clients N] [--watchers N] [--watch-events N] [--page-size N] [--json FILE] [--smoke] [--profile DIR] [--only label-list] [--label-pods N] [--label-groups N] [--label-iterations N]',
  );
  process.exit(0);
}
const int = (name: string, v: string | undefined, dflt: number): number => {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0) {
    console.error(`bench: --${name} must be a positive integer, got "${v}"`);
    process.exit(2);
  }
  return n;
};
const SMOKE = args.smoke;
const PODS = int('pods', args.pods, SMOKE ? 2_000 : 100_000);
const CLIENTS = int('clients', args.clients, 32);
const WATCHERS = int('watchers', args.watchers, 10);
const WATCH_EVENTS = Math.min(int('watch-events', args['watch-events'], SMOKE ? 500 : 10_000), PODS);
const PAGE = int('page-size', args['page-size'], 500);
const LABEL_PODS = int('label-pods', args['label-pods'], SMOKE ? 2_000 : 10_000);
const LABEL_GROUPS = Math.min(int('label-groups', args['label-groups'], SMOKE ? 200 : 1_000), LABEL_PODS);
const LABEL_ITERATIONS = int('label-iterations', args['label-iterations'], SMOKE ? 300 : 2_000);
const LABEL_NS = 'bench-labels';
if (args.only !== undefined && args.only !== 'label-list') {
  console.error(`bench: --only knows "label-list", got "${args.only}"`);
  process.exit(2);
}
const TARGET_CREATES = 2_000;
const TARGET_RSS = 1024 ** 3;

// ---------------------------------------------------------------------------------------------------------
// The server, in a child process.

interface Server {
  proc: Proc;
  url: URL;
  token: string;
  dir: string;
  stop(): Promise<void>;
}

async function startServer(): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sim-bench-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const nodeArgs = args.profile ? ['--cpu-prof', '--cpu-prof-dir', args.profile] : [];
  const proc = new Proc({
    name: 'kube-sim',
    command: process.execPath,
    args: [...nodeArgs, MAIN, '--port', '0', '--kubeconfig', kubeconfig, '--no-lifecycle', '--no-pod-events'],
    env: process.env,
  });
  const url = new URL((await proc.waitForLine(/listening on (http:\/\/[^\s]+)/))[1]!);
  const token = /token: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'))?.[1];
  if (!token) throw new Error('no token in the kubeconfig');
  return {
    proc,
    url,
    token,
    dir,
    async stop() {
      await proc.stop(10_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resident set size of a process (Linux), in bytes; `peak` is the high-water mark. */
function rssOf(pid: number): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), peak: kb('VmHWM') };
}

/** CPU time (user + system) a process has used so far, in seconds (Linux; clock ticks of 10 ms). */
function cpuOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Resets the high-water mark (VmHWM) so that the next rssOf().peak is the peak of the next phase. */
function resetPeak(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // not Linux, or not allowed: the peak then covers the whole run so far
  }
}

// ---------------------------------------------------------------------------------------------------------
// HTTP with keep-alive agents.

interface Reply {
  status: number;
  body: Buffer;
}

function makeClient(server: Server, maxSockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const headers = { authorization: `Bearer ${server.token}`, accept: 'application/json' };
  function call(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<Reply> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent,
          host: server.url.hostname,
          port: server.url.port,
          method,
          path,
          headers: payload
            ? { ...headers, 'content-type': contentType, 'content-length': payload.length }
            : headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }
  return { call, agent, headers };
}

async function expectOk(p: Promise<Reply>, what: string): Promise<Reply> {
  const r = await p;
  if (r.status < 200 || r.status > 299)
    throw new Error(`${what}: HTTP ${r.status} ${r.body.toString().slice(0, 300)}`);
  return r;
}

function podBody(i: number) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `bench-${i}`,
      labels: { app: 'bench', shard: String(i % 16), 'pod-template-hash': '5d8f7c9b6' },
      annotations: { 'bench.example.com/index': String(i) },
    },
    spec: {
      containers: [
        {
          name: 'app',
          image: 'registry.example.com/bench/app:1.2.3',
          ports: [{ containerPort: 8080, name: 'http', protocol: 'TCP' }],
          env: [
            { name: 'MODE', value: 'bench' },
            { name: 'INDEX', value: String(i) },
          ],
          resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } },
          readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 5 },
        },
      ],
      restartPolicy: 'Always',
      terminationGracePeriodSeconds: 30,
    },
  };
}

const quantile = (sorted: number[], q: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN;
const median = (xs: number[]): number =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

// ---------------------------------------------------------------------------------------------------------
// Phases.

async function createPods(client: ReturnType<typeof makeClient>) {
  const latencies: number[] = new Array<number>(PODS);
  let next = 0;
  const started = performance.now();
  let lastReport = started;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= PODS) return;
      const t0 = performance.now();
      await expectOk(client.call('POST', `/api/v1/namespaces/${NS}/pods`, podBody(i)), `create pod ${i}`);
      const t1 = performance.now();
      latencies[i] = t1 - t0;
      if (!SMOKE && t1 - lastReport > 5_000) {
        lastReport = t1;
        const rate = Math.round(i / ((t1 - started) / 1000));
        process.stderr.write(`  ... ${i} pods created (${rate}/s)\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    pods: PODS,
    clients: CLIENTS,
    seconds,
    perSecond: PODS / seconds,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
  };
}

async function listAll(client: ReturnType<typeof makeClient>, repeats: number) {
  const whole: number[] = [];
  let bytes = 0;
  let items = 0;
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    const reply = await expectOk(client.call('GET', `/api/v1/namespaces/${NS}/pods`), 'list');
    whole.push(performance.now() - t0);
    bytes = reply.body.length;
    if (r === 0) items = (JSON.parse(reply.body.toString()) as { items: unknown[] }).items.length;
  }
  if (items !== PODS) throw new Error(`list returned ${items} pods, expected ${PODS}`);

  const paged: number[] = [];
  const firstPage: number[] = [];
  let pages = 0;
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    let cont = '';
    let seen = 0;
    pages = 0;
    do {
      const q = `limit=${PAGE}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`;
      const reply = await expectOk(client.call('GET', `/api/v1/namespaces/${NS}/pods?${q}`), 'list page');
      if (pages === 0) firstPage.push(performance.now() - t0);
      const list = JSON.parse(reply.body.toString()) as { items: unknown[]; metadata: { continue?: string } };
      seen += list.items.length;
      pages++;
      cont = list.metadata.continue ?? '';
    } while (cont);
    paged.push(performance.now() - t0);
    if (seen !== PODS) throw new Error(`paged list returned ${seen} pods, expected ${PODS}`);
  }
  return {
    items,
    bytes,
    wholeMs: median(whole),
    pageSize: PAGE,
    pages,
    pagedTotalMs: median(paged),
    firstPageMs: median(firstPage),
    repeats,
  };
}

async function watchFanOut(server: Server, client: ReturnType<typeof makeClient>) {
  const rvReply = await expectOk(client.call('GET', `/api/v1/namespaces/${NS}/pods?limit=1`), 'rv');
  const rv = (JSON.parse(rvReply.body.toString()) as { metadata: { resourceVersion: string } }).metadata
    .resourceVersion;
  const watchAgent = new Agent({ keepAlive: false });
  const counts = new Array<number>(WATCHERS).fill(0);
  let lastEventAt = 0;
  let allDone!: () => void;
  const done = new Promise<void>((r) => (allDone = r));
  let finished = 0;
  const reqs = await Promise.all(
    Array.from(
      { length: WATCHERS },
      (_, w) =>
        new Promise<ReturnType<typeof request>>((resolve, reject) => {
          const req = request(
            {
              agent: watchAgent,
              host: server.url.hostname,
              port: server.url.port,
              path: `/api/v1/namespaces/${NS}/pods?watch=1&resourceVersion=${rv}&labelSelector=app%3Dbench`,
              headers: { authorization: `Bearer ${server.token}`, accept: 'application/json' },
            },
            (res) => {
              if (res.statusCode !== 200) reject(new Error(`watch: HTTP ${res.statusCode}`));
              res.on('data', (chunk: Buffer) => {
                let n = 0;
                for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) n++;
                const before = counts[w]!;
                counts[w] = before + n;
                lastEventAt = performance.now();
                if (before < WATCH_EVENTS && counts[w]! >= WATCH_EVENTS && ++finished === WATCHERS) allDone();
              });
              resolve(req);
            },
          );
          req.on('error', (e) => {
            if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') reject(e);
          });
          req.end();
        }),
    ),
  );
  // Every watch is established (headers received); now WATCH_EVENTS modifications by CLIENTS writers.
  let next = 0;
  const started = performance.now();
  const writer = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= WATCH_EVENTS) return;
      await expectOk(
        client.call(
          'PATCH',
          `/api/v1/namespaces/${NS}/pods/bench-${i}`,
          { metadata: { labels: { touched: 'yes' } } },
          'application/merge-patch+json',
        ),
        `patch pod ${i}`,
      );
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, writer));
  const writesDone = performance.now();
  const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 120_000).unref());
  const outcome = await Promise.race([done.then(() => 'ok' as const), timeout]);
  for (const r of reqs) r.destroy();
  watchAgent.destroy();
  if (outcome === 'timeout') throw new Error(`watchers got ${counts.join(',')} of ${WATCH_EVENTS} events`);
  const seconds = (lastEventAt - started) / 1000;
  const delivered = counts.reduce((a, b) => a + b, 0);
  return {
    watchers: WATCHERS,
    events: WATCH_EVENTS,
    delivered,
    seconds,
    writesPerSecond: WATCH_EVENTS / ((writesDone - started) / 1000),
    deliveredPerSecond: delivered / seconds,
    lagAfterLastWriteMs: Math.max(0, lastEventAt - writesDone),
  };
}

/**
 * "Label LIST under writes": LABEL_PODS pods in LABEL_GROUPS groups (label podset.io/name), then
 * LABEL_ITERATIONS rounds of one pod write (alternately a create into the group and a merge patch of one of
 * its pods) followed by one `LIST ?labelSelector=podset.io/name=<group>`, one request at a time over one
 * keep-alive connection. A second pass does the same writes without the LISTs, so that the server CPU per
 * LIST is the difference of the two passes.
 */
async function labelListUnderWrites(server: Server, client: ReturnType<typeof makeClient>) {
  const pid = server.proc.pid!;
  const base = `/api/v1/namespaces/${LABEL_NS}/pods`;
  await expectOk(
    client.call('POST', '/api/v1/namespaces', {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: LABEL_NS },
    }),
    'namespace',
  );
  const group = (i: number): string => `ps-${i % LABEL_GROUPS}`;
  const labelPod = (name: string, g: string) => {
    const body = podBody(0);
    return { ...body, metadata: { name, labels: { 'podset.io/name': g, app: 'bench' } } };
  };
  let next = 0;
  const creator = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= LABEL_PODS) return;
      await expectOk(client.call('POST', base, labelPod(`lbl-${i}`, group(i))), `create pod lbl-${i}`);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, creator));

  const perGroup = Math.floor(LABEL_PODS / LABEL_GROUPS); // every group has at least this many pods
  let created = 0;
  const write = (k: number, pass: string): Promise<Reply> => {
    const g = k % LABEL_GROUPS;
    if (k % 2 === 0) {
      const name = `lbl-${pass}-${created++}`;
      return expectOk(client.call('POST', base, labelPod(name, group(g))), `create ${name}`);
    }
    const name = `lbl-${g + LABEL_GROUPS * (k % perGroup)}`;
    return expectOk(
      client.call(
        'PATCH',
        `${base}/${name}`,
        { metadata: { annotations: { 'bench.example.com/round': `${pass}-${k}` } } },
        'application/merge-patch+json',
      ),
      `patch ${name}`,
    );
  };
  // Pass 1: write + LIST.
  let items = 0;
  const cpu0 = cpuOf(pid);
  const t0 = performance.now();
  for (let k = 0; k < LABEL_ITERATIONS; k++) {
    await write(k, 'a');
    const sel = encodeURIComponent(`podset.io/name=${group(k % LABEL_GROUPS)}`);
    const reply = await expectOk(client.call('GET', `${base}?labelSelector=${sel}`), 'label list');
    if (k === 0 || k === LABEL_ITERATIONS - 1) {
      items = (JSON.parse(reply.body.toString()) as { items: unknown[] }).items.length;
      if (items < perGroup) throw new Error(`label list returned ${items} pods, expected ~${perGroup}`);
    }
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpuWithLists = cpuOf(pid) - cpu0;
  // Pass 2: the same writes alone.
  const cpu1 = cpuOf(pid);
  for (let k = 0; k < LABEL_ITERATIONS; k++) await write(k, 'b');
  const cpuWritesOnly = cpuOf(pid) - cpu1;
  return {
    pods: LABEL_PODS,
    groups: LABEL_GROUPS,
    iterations: LABEL_ITERATIONS,
    itemsPerList: items,
    seconds,
    listsPerSecond: LABEL_ITERATIONS / seconds,
    serverCpuSeconds: cpuWithLists,
    serverCpuWritesOnlySeconds: cpuWritesOnly,
    serverCpuMsPerRound: (1000 * cpuWithLists) / LABEL_ITERATIONS,
    serverCpuMsPerList: (1000 * Math.max(0, cpuWithLists - cpuWritesOnly)) / LABEL_ITERATIONS,
  };
}

// ---------------------------------------------------------------------------------------------------------

const fmt = (n: number, digits = 0): string =>
  Number.isFinite(n)
    ? n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })
    : 'n/a';
const mib = (b: number): string => `${fmt(b / 1024 ** 2)} MiB`;

type Row = [string, string, string, string];

function printTable(rows: Row[]): void {
  const w0 = Math.max(...rows.map((r) => r[0].length), 6);
  const w1 = Math.max(...rows.map((r) => r[1].length), 5);
  const w2 = Math.max(...rows.map((r) => r[2].length), 6);
  const line = (r: Row): string =>
    `${r[0].padEnd(w0)}  ${r[1].padStart(w1)}  ${r[2].padEnd(w2)}  ${r[3]}`.trimEnd();
  console.log(line(['metric', 'value', 'target', '']));
  console.log(line(['-'.repeat(w0), '-'.repeat(w1), '-'.repeat(w2), '------']));
  for (const r of rows) console.log(line(r));
}

function labelListRows(r: Awaited<ReturnType<typeof labelListUnderWrites>>): Row[] {
  return [
    [
      `label LIST under writes: ${fmt(r.pods)} pods in ${fmt(r.groups)} groups, ${fmt(r.iterations)} x (write + LIST)`,
      `${fmt(r.listsPerSecond)} LISTs/s`,
      '',
      '',
    ],
    ['  server CPU per write + LIST', `${fmt(r.serverCpuMsPerRound, 2)} ms`, '', ''],
    ['  server CPU per LIST (minus a writes-only pass)', `${fmt(r.serverCpuMsPerList, 2)} ms`, '', ''],
  ];
}

async function main(): Promise<void> {
  const server = await startServer();
  const stopOnSignal = (): void => {
    void server.stop().finally(() => process.exit(130));
  };
  process.on('SIGINT', stopOnSignal);
  process.on('SIGTERM', stopOnSignal);
  try {
    const client = makeClient(server, CLIENTS);
    const pid = server.proc.pid!;
    if (args.only === 'label-list') {
      const loadBefore = loadavg()[0] ?? NaN;
      const labelList = await labelListUnderWrites(server, client);
      client.agent.destroy();
      const machine = { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', node: process.version };
      console.log(
        `kube-sim benchmark (label LIST under writes) — ${machine.cpus} CPUs (${machine.cpuModel}), Node ${process.version}, ` +
          `load average ${fmt(loadBefore, 1)}${SMOKE ? ', SMOKE' : ''}`,
      );
      printTable(labelListRows(labelList));
      if (args.json) {
        const out = {
          time: new Date().toISOString(),
          machine,
          smoke: SMOKE,
          loadAverage1m: loadBefore,
          labelList,
        };
        writeFileSync(args.json, JSON.stringify(out, null, 2) + '\n');
      }
      return;
    }
    const rssIdle = rssOf(pid);
    await expectOk(
      client.call('POST', '/api/v1/namespaces', {
        apiVersion: 'v1',
        kind: 'Namespace',
        metadata: { name: NS },
      }),
      'namespace',
    );
    console.error(`bench: ${PODS} pods, ${CLIENTS} clients, ${WATCHERS} watchers, server pid ${pid}`);
    resetPeak(pid);
    const loadBefore = loadavg()[0] ?? NaN;
    const cpu0 = cpuOf(pid);
    const create = await createPods(client);
    const createCpu = cpuOf(pid) - cpu0;
    const loadAfter = loadavg()[0] ?? NaN;
    const rssCreatePeak = rssOf(pid).peak;
    await new Promise((r) => setTimeout(r, 1_000)); // let the server settle (controllers, GC of garbage)
    const rssAfterCreate = rssOf(pid);
    resetPeak(pid);
    const list = await listAll(client, SMOKE ? 1 : 3);
    const rssListPeak = rssOf(pid).peak;
    resetPeak(pid);
    const watch = await watchFanOut(server, client);
    const rssEnd = rssOf(pid);
    const labelList = await labelListUnderWrites(server, client);
    client.agent.destroy();

    const results = {
      time: new Date().toISOString(),
      machine: { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? '', node: process.version },
      smoke: SMOKE,
      loadAverage1m: { beforeCreates: loadBefore, afterCreates: loadAfter },
      create: {
        ...create,
        serverCpuSeconds: createCpu,
        serverCoreShare: createCpu / create.seconds,
        createsPerServerCpuSecond: create.pods / createCpu,
      },
      list,
      watch,
      labelList,
      rss: {
        idleBytes: rssIdle.rss,
        afterCreateBytes: rssAfterCreate.rss,
        endBytes: rssEnd.rss,
        peakCreateBytes: rssCreatePeak,
        peakListBytes: rssListPeak,
        peakWatchBytes: rssEnd.peak,
        peakBytes: Math.max(rssCreatePeak, rssListPeak, rssEnd.peak),
      },
      targets: {
        createsPerSecond: { target: TARGET_CREATES, met: create.perSecond >= TARGET_CREATES },
        rssBytes: { target: TARGET_RSS, met: rssAfterCreate.rss <= TARGET_RSS },
      },
    };

    const check = (met: boolean): string => (SMOKE ? '(smoke)' : met ? 'ok' : 'MISSED');
    const rows: [string, string, string, string][] = [
      [
        `creates/s (${CLIENTS} keep-alive clients, ${fmt(PODS)} pods)`,
        fmt(create.perSecond),
        `≥ ${fmt(TARGET_CREATES)}`,
        check(results.targets.createsPerSecond.met),
      ],
      ['  create latency p50 / p99', `${fmt(create.p50Ms, 1)} / ${fmt(create.p99Ms, 1)} ms`, '', ''],
      [
        '  server CPU during creates (share of one core)',
        `${fmt(createCpu, 1)} s (${fmt((100 * createCpu) / create.seconds)} %)`,
        '',
        '',
      ],
      ['  creates per server CPU-second', fmt(create.pods / createCpu), '', ''],
      [`list ${fmt(list.items)} pods, one request (${mib(list.bytes)})`, `${fmt(list.wholeMs)} ms`, '', ''],
      [
        `list ${fmt(list.items)} pods, paged limit=${PAGE} (${list.pages} pages)`,
        `${fmt(list.pagedTotalMs)} ms`,
        '',
        '',
      ],
      [`  first page (limit=${PAGE})`, `${fmt(list.firstPageMs, 1)} ms`, '', ''],
      [
        `watch fan-out: ${WATCHERS} watchers x ${fmt(WATCH_EVENTS)} changes`,
        `${fmt(watch.deliveredPerSecond)} events/s`,
        '',
        '',
      ],
      ['  writes/s during fan-out', fmt(watch.writesPerSecond), '', ''],
      [
        `server RSS at ${fmt(PODS)} pods`,
        mib(rssAfterCreate.rss),
        `≤ ${mib(TARGET_RSS)}`,
        check(rssAfterCreate.rss <= TARGET_RSS),
      ],
      [
        '  server RSS peak during create / list / watch',
        `${mib(rssCreatePeak)} / ${mib(rssListPeak)} / ${mib(rssEnd.peak)}`,
        '',
        '',
      ],
      ['  server RSS at the end', mib(rssEnd.rss), '', ''],
      ['  server RSS idle (before the run)', mib(rssIdle.rss), '', ''],
      ...labelListRows(labelList),
    ];
    console.log(
      `kube-sim benchmark — ${results.machine.cpus} CPUs (${results.machine.cpuModel}), Node ${process.version}, ` +
        `load average ${fmt(loadBefore, 1)} before / ${fmt(loadAfter, 1)} after the creates${SMOKE ? ', SMOKE' : ''}`,
    );
    printTable(rows);
    if (args.json) writeFileSync(args.json, JSON.stringify(results, null, 2) + '\n');
  } finally {
    await server.stop();
  }
}

await main();
