// The watch stream's cost per line between the socket and the consumer, over real HTTP: a child process
// serves a watch body (captured lines, or a synthesised ~2.5 KB pod line) in chunks, as a socket would give
// them, and this process reads it, in alternating rounds, the way main read it before (node:readline's
// async iterator, one generator yield and one awaited take per line) and through KubeClient's `stream`
// (one event a yield) and `streamBatches` (one array a read, the watch loop's way). Each event is parsed
// with managedFields cut, as the watcher asks. Reports this process's CPU µs per line (process.cpuUsage:
// the server's writes are the child's), and, in one more round each with an async hook on, the promises,
// nextTicks and immediates created per line. Read the ratios: the machine is shared.
//   node_modules/.bin/node bench/watch-stream-cost.ts [FILE.jsonl…] [--rounds 10] [--lines 20000] [--chunk 65536]
import { createHook } from 'node:async_hooks';
import { performance, PerformanceObserver } from 'node:perf_hooks';
import { fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { createKube, kubeConfigFor, withoutManagedFields, type WatchEvent } from '@podset/kube';
import { request } from 'undici';

const { values, positionals } = parseArgs({
  options: {
    rounds: { type: 'string', default: '10' },
    lines: { type: 'string', default: '20000' },
    chunk: { type: 'string', default: '65536' },
    serve: { type: 'boolean', default: false },
  },
  allowPositionals: true,
});

/** A pod as the API server writes it after its kubelet's status writes (~2.5 KB). */
function syntheticLine(i: number): string {
  const meta = {
    name: `web-${i}`,
    generateName: 'web-',
    namespace: 'bench',
    uid: `0d9c4a3e-5b1f-4c7e-9a2b-${String(i).padStart(12, '0')}`,
    resourceVersion: String(1000 + i),
    creationTimestamp: '2026-12-05T23:21:57Z',
    labels: { app: 'web', 'podset.io/name': 'web', 'podset.io/template-hash': 'f09fc2acd6' },
    ownerReferences: [
      { apiVersion: 'podset.io/v1', kind: 'PodSet', name: 'web', uid: 'u', controller: true },
    ],
    managedFields: ['podset-operator', 'kubelet'].map((manager) => ({
      manager,
      operation: 'Update',
      apiVersion: 'v1',
      time: '2026-12-05T23:21:58Z',
      fieldsType: 'FieldsV1',
      fieldsV1: {
        'f:status': { 'f:conditions': { '.': {}, 'k:{"type":"Ready"}': { '.': {}, 'f:status': {} } } },
      },
    })),
  };
  const condition = (type: string) => ({ type, status: 'True', lastTransitionTime: '2026-12-05T23:21:58Z' });
  const object = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: meta,
    spec: {
      nodeName: 'node-1',
      restartPolicy: 'Always',
      containers: [
        {
          name: 'app',
          image: 'busybox:1.36',
          env: ['MODE', 'REGION', 'ZONE', 'TIER'].map((name) => ({
            name,
            value: `value-of-${name.toLowerCase()}`,
          })),
          resources: { requests: { cpu: '10m', memory: '16Mi' } },
          volumeMounts: [
            {
              name: 'kube-api-access',
              mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
              readOnly: true,
            },
          ],
          terminationMessagePath: '/dev/termination-log',
          terminationMessagePolicy: 'File',
          imagePullPolicy: 'IfNotPresent',
        },
      ],
      tolerations: ['not-ready', 'unreachable'].map((t) => ({
        key: `node.kubernetes.io/${t}`,
        operator: 'Exists',
        effect: 'NoExecute',
        tolerationSeconds: 300,
      })),
    },
    status: {
      phase: 'Running',
      conditions: [
        'PodReadyToStartContainers',
        'Initialized',
        'Ready',
        'ContainersReady',
        'PodScheduled',
      ].map(condition),
      hostIP: '10.0.0.1',
      podIP: `10.128.${i % 250}.${i % 200}`,
      startTime: '2026-12-05T23:21:57Z',
      containerStatuses: [
        {
          name: 'app',
          ready: true,
          restartCount: 0,
          image: 'busybox:1.36',
          imageID: 'docker://sha256:abc',
          started: true,
        },
      ],
    },
  };
  return JSON.stringify({ type: 'MODIFIED', object });
}

/** The child: serves the body to every request, `chunk` bytes a write, waiting for the socket to drain. */
function serve(): void {
  const count = Number(values.lines);
  const chunk = Number(values.chunk);
  const source =
    positionals.length > 0
      ? positionals.flatMap((f) => readFileSync(f, 'utf8').split('\n')).filter((l) => l.trim() !== '')
      : [syntheticLine(0)];
  const lines = Array.from({ length: count }, (_, i) => source[i % source.length] ?? syntheticLine(i));
  const body = Buffer.from(lines.join('\n') + '\n');
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    let at = 0;
    const write = (): void => {
      while (at < body.length) {
        const ok = res.write(body.subarray(at, at + chunk));
        at += chunk;
        if (!ok) return void res.once('drain', write);
      }
      res.end();
    };
    write();
  });
  server.listen(0, '127.0.0.1', () => {
    const port = (server.address() as AddressInfo).port;
    process.send?.({ port, lines: count, bytes: body.length });
  });
  process.on('disconnect', () => process.exit(0));
}

type Event = WatchEvent<{ metadata: { resourceVersion?: string } }>;
type Path = 'readline' | 'stream' | 'batches';

let sink = 0;
/** The consumer's work per event, as small as the watch loop's before it hands the event on. */
function take(ev: Event): void {
  if (ev.object.metadata.resourceVersion !== undefined) sink++;
}
async function takeAsync(ev: Event): Promise<void> {
  take(ev);
}

/** main's way before this bench: readline's async iterator over the body, a generator yield per line. */
async function* readlineEvents(url: string): AsyncGenerator<Event> {
  const { body } = await request(url);
  const lines = createInterface({ input: body, crlfDelay: Infinity });
  try {
    for await (const line of lines) {
      if (line.trim() === '') continue;
      // The cut through its text form (watch-line.ts cuts bytes): the line encoded again first.
      yield JSON.parse(withoutManagedFields(line)) as Event;
    }
  } finally {
    lines.close();
    body.destroy();
  }
}

async function client(port: number, lineCount: number): Promise<void> {
  const kube = createKube(kubeConfigFor(port), { qps: 1e6, burst: 1e6 });
  const url = `http://127.0.0.1:${port}/api/v1/pods?watch=true`;
  const opts = { dropManagedFields: true } as const;
  const read = async (path: Path): Promise<number> => {
    let n = 0;
    if (path === 'readline') {
      for await (const ev of readlineEvents(url)) {
        await takeAsync(ev);
        n++;
      }
    } else if (path === 'stream') {
      for await (const ev of kube.pods.watch(undefined, opts)) {
        take(ev);
        n++;
      }
    } else {
      for await (const batch of kube.pods.watchBatches(undefined, opts)) {
        for (const ev of batch) take(ev);
        n += batch.length;
      }
    }
    if (n !== lineCount) throw new Error(`${path} read ${n} of ${lineCount} lines`);
    return n;
  };

  const paths: Path[] = ['readline', 'stream', 'batches'];
  const cpu: Record<Path, number[]> = { readline: [], stream: [], batches: [] };
  // Garbage collection's pauses, by the timed round they started in (entries arrive later, asynchronously).
  const windows: { from: number; to: number; path: Path }[] = [];
  const pauses: { at: number; ms: number }[] = [];
  const gcs = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push({ at: entry.startTime, ms: entry.duration });
  });
  gcs.observe({ entryTypes: ['gc'] });
  const rounds = Number(values.rounds);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? paths : [...paths].reverse();
    for (const path of order) {
      const from = performance.now();
      const start = process.cpuUsage();
      await read(path);
      const used = process.cpuUsage(start);
      if (r > 1) {
        cpu[path].push((used.user + used.system) / lineCount); // two rounds warm up
        windows.push({ from, to: performance.now(), path });
      }
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 50)); // the last round's gc entries
  gcs.disconnect();
  const gc: Record<Path, number> = { readline: 0, stream: 0, batches: 0 };
  for (const { at, ms } of pauses) {
    const w = windows.find((x) => at >= x.from && at < x.to);
    if (w !== undefined) gc[w.path] += ms;
  }

  const counts: Record<Path, Record<string, number>> = { readline: {}, stream: {}, batches: {} };
  let current: Record<string, number> = {};
  const hook = createHook({
    init(_id, type) {
      current[type] = (current[type] ?? 0) + 1;
    },
  });
  for (const path of paths) {
    current = counts[path];
    hook.enable();
    await read(path);
    hook.disable();
  }

  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  const per = (c: Record<string, number>, type: string) => ((c[type] ?? 0) / lineCount).toFixed(2);
  console.log(`${lineCount} lines a round, ${values.chunk}-byte writes, ${rounds - 2} timed rounds`);
  for (const path of paths) {
    const c = counts[path];
    console.log(
      `  ${path.padEnd(8)} CPU µs/line median ${median(cpu[path]).toFixed(1)} ` +
        `[${cpu[path].map((x) => x.toFixed(1)).join(' ')}]; per line: ${per(c, 'PROMISE')} promises, ` +
        `${per(c, 'TickObject')} nextTicks, ${per(c, 'Immediate')} immediates; ` +
        `GC µs/line ${((gc[path] * 1000) / (lineCount * (rounds - 2))).toFixed(2)}`,
    );
  }
  const base = median(cpu.readline);
  console.log(
    `  ratio to readline: stream ${(median(cpu.stream) / base).toFixed(2)}, batches ${(median(cpu.batches) / base).toFixed(2)}`,
  );
  if (sink !== lineCount * ((rounds + 1) * paths.length))
    console.log('  (some events had no resourceVersion)');
  await kube.client.close();
}

if (values.serve) serve();
else {
  const args = [...positionals, '--serve', '--lines', values.lines, '--chunk', values.chunk];
  const child = fork(new URL(import.meta.url).pathname, args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  child.once('message', (m: { port: number; lines: number; bytes: number }) => {
    console.log(`body: ${m.lines} lines, ${(m.bytes / m.lines).toFixed(0)} bytes each`);
    client(m.port, m.lines)
      .then(() => child.disconnect())
      .catch((err: unknown) => {
        console.error(err);
        child.kill();
        process.exitCode = 1;
      });
  });
}
