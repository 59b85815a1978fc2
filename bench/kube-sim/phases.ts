// The kube-sim benchmark's phases over the pods of its namespace: creates with concurrent clients, LISTs of
// them all (whole and paged), and the watch fan-out of their changes.
import { Agent, request } from 'node:http';
import { NS, type Config } from './config.ts';
import { expectOk, type Client, type Server } from './server.ts';

export function podBody(i: number) {
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

export const quantile = (sorted: number[], q: number): number =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]! : NaN;
export const median = (xs: number[]): number =>
  quantile(
    [...xs].sort((a, b) => a - b),
    0.5,
  );

export async function createPods(cfg: Config, client: Client) {
  const latencies: number[] = new Array<number>(cfg.pods);
  let next = 0;
  const started = performance.now();
  let lastReport = started;
  const worker = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= cfg.pods) return;
      const t0 = performance.now();
      await expectOk(client.call('POST', `/api/v1/namespaces/${NS}/pods`, podBody(i)), `create pod ${i}`);
      const t1 = performance.now();
      latencies[i] = t1 - t0;
      if (!cfg.smoke && t1 - lastReport > 5_000) {
        lastReport = t1;
        const rate = Math.round(i / ((t1 - started) / 1000));
        process.stderr.write(`  ... ${i} pods created (${rate}/s)\n`);
      }
    }
  };
  await Promise.all(Array.from({ length: cfg.clients }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    pods: cfg.pods,
    clients: cfg.clients,
    seconds,
    perSecond: cfg.pods / seconds,
    p50Ms: quantile(latencies, 0.5),
    p99Ms: quantile(latencies, 0.99),
  };
}

export async function listAll(cfg: Config, client: Client, repeats: number) {
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
  if (items !== cfg.pods) throw new Error(`list returned ${items} pods, expected ${cfg.pods}`);

  const paged: number[] = [];
  const firstPage: number[] = [];
  let pages = 0;
  for (let r = 0; r < repeats; r++) {
    const t0 = performance.now();
    let cont = '';
    let seen = 0;
    pages = 0;
    do {
      const q = `limit=${cfg.page}${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`;
      const reply = await expectOk(client.call('GET', `/api/v1/namespaces/${NS}/pods?${q}`), 'list page');
      if (pages === 0) firstPage.push(performance.now() - t0);
      const list = JSON.parse(reply.body.toString()) as { items: unknown[]; metadata: { continue?: string } };
      seen += list.items.length;
      pages++;
      cont = list.metadata.continue ?? '';
    } while (cont);
    paged.push(performance.now() - t0);
    if (seen !== cfg.pods) throw new Error(`paged list returned ${seen} pods, expected ${cfg.pods}`);
  }
  return {
    items,
    bytes,
    wholeMs: median(whole),
    pageSize: cfg.page,
    pages,
    pagedTotalMs: median(paged),
    firstPageMs: median(firstPage),
    repeats,
  };
}

export async function watchFanOut(cfg: Config, server: Server, client: Client) {
  const rvReply = await expectOk(client.call('GET', `/api/v1/namespaces/${NS}/pods?limit=1`), 'rv');
  const rv = (JSON.parse(rvReply.body.toString()) as { metadata: { resourceVersion: string } }).metadata
    .resourceVersion;
  const watchAgent = new Agent({ keepAlive: false });
  const counts = new Array<number>(cfg.watchers).fill(0);
  let lastEventAt = 0;
  let allDone!: () => void;
  const done = new Promise<void>((r) => (allDone = r));
  let finished = 0;
  const reqs = await Promise.all(
    Array.from(
      { length: cfg.watchers },
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
                if (before < cfg.watchEvents && counts[w]! >= cfg.watchEvents && ++finished === cfg.watchers)
                  allDone();
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
  // Every watch is established (headers received); now cfg.watchEvents modifications by cfg.clients writers.
  let next = 0;
  const started = performance.now();
  const writer = async (): Promise<void> => {
    for (;;) {
      const i = next++;
      if (i >= cfg.watchEvents) return;
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
  await Promise.all(Array.from({ length: cfg.clients }, writer));
  const writesDone = performance.now();
  const timeout = new Promise<'timeout'>((r) => setTimeout(() => r('timeout'), 120_000).unref());
  const outcome = await Promise.race([done.then(() => 'ok' as const), timeout]);
  for (const r of reqs) r.destroy();
  watchAgent.destroy();
  if (outcome === 'timeout') throw new Error(`watchers got ${counts.join(',')} of ${cfg.watchEvents} events`);
  const seconds = (lastEventAt - started) / 1000;
  const delivered = counts.reduce((a, b) => a + b, 0);
  return {
    watchers: cfg.watchers,
    events: cfg.watchEvents,
    delivered,
    seconds,
    writesPerSecond: cfg.watchEvents / ((writesDone - started) / 1000),
    deliveredPerSecond: delivered / seconds,
    lagAfterLastWriteMs: Math.max(0, lastEventAt - writesDone),
  };
}
