// A watch read in paced turns (readPauseMs), against a real HTTP server through the real client: what
// arrives during a pause comes out in one turn, an abort during a pause ends the watch at once, and the
// stream's end and errors are those of the unpaced path.
import type { KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createKube, type Kube } from './index.ts';
import { kubeConfigFor } from './kubeconfig.ts';

let respond: (res: http.ServerResponse, req: http.IncomingMessage) => void = (res) => res.end();
let server: http.Server;
let kc: KubeConfig;

before(async () => {
  server = http.createServer((req, res) => {
    res.setHeader('Content-Type', 'application/json');
    respond(res, req);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  kc = kubeConfigFor(port);
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const line = (rv: number) =>
  `${JSON.stringify({ type: 'MODIFIED', object: { metadata: { name: 'p', resourceVersion: String(rv) } } })}\n`;

/**
 * The watch's turns as resourceVersions, into `turns` (kept when the watch fails); `onTurn` runs after each
 * turn is taken, before the next is asked for.
 */
async function turnsOf(
  kube: Kube,
  readPauseMs: number,
  onTurn: (turn: number) => void = () => undefined,
  signal?: AbortSignal,
  turns: string[][] = [],
): Promise<string[][]> {
  for await (const batch of kube.pods.watchBatches('default', {
    readPauseMs,
    ...(signal === undefined ? {} : { signal }),
  })) {
    turns.push(batch.map((ev) => ev.object.metadata.resourceVersion ?? ''));
    onTurn(turns.length);
  }
  return turns;
}

/** Writes `rvs` one per write, `gapMs` apart (each its own chunk on the wire), then ends if asked. */
async function writeSpaced(res: http.ServerResponse, rvs: number[], gapMs: number, end: boolean) {
  for (const rv of rvs) {
    res.write(line(rv));
    await sleep(gapMs);
  }
  if (end) res.end();
}

test('events written one by one during a pause come out in one turn; unpaced, one turn each', async () => {
  let rest: (() => void) | undefined;
  respond = (res) => {
    res.write(line(1));
    // The rest are written 20 ms apart once the first turn was taken: all inside a 1 s pause.
    rest = () => void writeSpaced(res, [2, 3, 4, 5, 6], 20, true);
  };
  const kube = createKube(kc);
  const paced = await turnsOf(kube, 1000, (turn) => (turn === 1 ? rest?.() : undefined));
  assert.deepEqual(paced, [['1'], ['2', '3', '4', '5', '6']]);

  // The same writes unpaced: each is read as it arrives (the difference the pause makes).
  const unpaced = await turnsOf(kube, 0, (turn) => (turn === 1 ? rest?.() : undefined));
  assert.deepEqual(unpaced.flat(), ['1', '2', '3', '4', '5', '6']);
  assert.ok(unpaced.length >= 4, `unpaced turns: ${JSON.stringify(unpaced)}`);
  await kube.client.close();
});

test('a backlog written at once during a pause comes out in one turn, through the paced pool', async () => {
  // 80 lines of about 1 KB, written at once while the watch pauses, less than a turn's limit (1 MiB). On
  // loopback one read from the kernel may take all of it: that a turn goes on across the event loop's polls
  // is shown by paced-reads-turns.test.ts, whose body hands out its chunks a poll apart.
  const big = (rv: number) =>
    `${JSON.stringify({ type: 'MODIFIED', object: { metadata: { name: 'p', resourceVersion: String(rv), annotations: { a: 'x'.repeat(1000) } } } })}\n`;
  let rest: (() => void) | undefined;
  respond = (res) => {
    res.write(big(0));
    rest = () => {
      res.write(Array.from({ length: 80 }, (_, i) => big(i + 1)).join(''));
      res.end();
    };
  };
  const kube = createKube(kc);
  const turns = await turnsOf(kube, 1000, (turn) => (turn === 1 ? rest?.() : undefined));
  assert.deepEqual(
    turns.map((t) => t.length),
    [1, 80],
  );
  await kube.client.close();
});

test('the first event is read at once; an abort during the pause after it ends the watch, without an error', async () => {
  let closed: Promise<void> | undefined;
  respond = (res, req) => {
    closed = new Promise((resolve) => req.socket.once('close', () => resolve()));
    res.write(line(1)); // and stays open
  };
  const kube = createKube(kc);
  const controller = new AbortController();
  const started = Date.now();
  // An hour's pause: were the first read paced, or the abort not to end the pause, the test would time out.
  const turns = await turnsOf(
    kube,
    3_600_000,
    () => setTimeout(() => controller.abort(), 20),
    controller.signal,
  );
  assert.deepEqual(turns, [['1']]);
  assert.ok(Date.now() - started < 60_000);
  await closed; // the connection was let go
  await kube.client.close();
});

for (const readPauseMs of [0, 10]) {
  const how = readPauseMs === 0 ? 'unpaced' : 'paced';

  test(`${how}: the stream's end after its last line, without a newline, hands on every event`, async () => {
    respond = (res) => void writeSpaced(res, [1, 2], 5, false).then(() => res.end(line(3).trimEnd()));
    const kube = createKube(kc);
    assert.deepEqual((await turnsOf(kube, readPauseMs)).flat(), ['1', '2', '3']);
    await kube.client.close();
  });

  test(`${how}: a line cut mid-object fails the watch, after the events before it`, async () => {
    respond = (res) => {
      res.write(line(1));
      res.end('{"type":"MODIFIED","object":{"metad');
    };
    const kube = createKube(kc);
    const turns: string[][] = [];
    await assert.rejects(
      turnsOf(kube, readPauseMs, undefined, undefined, turns),
      /invalid JSON in a line of the watch of \/api\/v1\/namespaces\/default\/pods/,
    );
    assert.deepEqual(turns.flat(), ['1']);
    await kube.client.close();
  });

  test(`${how}: the server dropping the connection mid-stream fails the watch, after the events before it`, async () => {
    respond = (res, req) => {
      res.write(line(1));
      setTimeout(() => req.socket.destroy(), 30);
    };
    const kube = createKube(kc);
    const turns: string[][] = [];
    const failure = await turnsOf(kube, readPauseMs, undefined, undefined, turns)
      .then(() => undefined)
      .catch((err: unknown) => err);
    assert.deepEqual(turns.flat(), ['1']);
    assert.ok(failure instanceof Error, `the watch ended without an error: ${String(failure)}`);
    assert.match(failure.message, /other side closed|terminated|Premature close/);
    await kube.client.close();
  });

  test(`${how}: a consumer that stops early lets the connection go, and nothing is thrown after`, async () => {
    let closed: Promise<void> | undefined;
    let timer: NodeJS.Timeout | undefined;
    respond = (res, req) => {
      closed = new Promise((resolve) => req.socket.once('close', () => resolve()));
      let rv = 0;
      timer = setInterval(() => res.write(line(++rv)), 2);
    };
    const uncaught: unknown[] = [];
    const onUncaught = (err: unknown) => uncaught.push(err);
    process.on('uncaughtException', onUncaught);
    try {
      const kube = createKube(kc);
      let taken = 0;
      for await (const batch of kube.pods.watchBatches('default', { readPauseMs })) {
        taken += batch.length;
        if (taken >= 5) break;
      }
      await closed;
      clearInterval(timer);
      await sleep(50); // an error the body reported late would surface here
      await kube.client.close();
    } finally {
      clearInterval(timer);
      process.off('uncaughtException', onUncaught);
    }
    assert.deepEqual(uncaught, []);
  });
}

test('readPauseMs below 0 or not a number is refused, naming the option', async () => {
  const kube = createKube(kc);
  for (const readPauseMs of [-1, Number.NaN]) {
    await assert.rejects(
      kube.pods.watchBatches('default', { readPauseMs }).next(),
      /readPauseMs must be a finite number ≥ 0/,
    );
  }
});
