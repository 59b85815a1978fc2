// A request whose answer is read whole, against a scripted HTTP server: the body's chunks joined before they
// are decoded, and an abort wherever the request is (queued in the pool, sent, mid-body, before it began).
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import { Agent } from 'undici';
import { sendForWholeAnswer } from './whole-answer.ts';

let server: http.Server;
let origin: string;
/** Paths the server was asked for, in order. */
const asked: string[] = [];
let respond: (req: http.IncomingMessage, res: http.ServerResponse) => void = (_req, res) => res.end('{}');

before(async () => {
  server = http.createServer((req, res) => {
    asked.push(req.url ?? '');
    respond(req, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const get = (path: string) => ({
  origin,
  path,
  method: 'GET' as const,
  headers: { Accept: 'application/json' },
});

test('the body comes whole, a character split between two chunks intact; headers are told first', async () => {
  asked.length = 0;
  const text = JSON.stringify({ message: 'tab\there, naïve café ✓' });
  const bytes = Buffer.from(text, 'utf8');
  const cut = bytes.indexOf(Buffer.from('✓', 'utf8')) + 1; // inside the three bytes of ✓
  respond = (_req, res) => {
    res.writeHead(201, { 'Content-Type': 'application/json', 'X-Seen': 'yes' });
    res.write(bytes.subarray(0, cut));
    setTimeout(() => res.end(bytes.subarray(cut)), 20);
  };
  const agent = new Agent();
  const told: number[] = [];
  const answer = await sendForWholeAnswer(agent, get('/a?x=1'), new AbortController().signal, (code) =>
    told.push(code),
  );
  assert.equal(answer.statusCode, 201);
  assert.equal(answer.text, text);
  assert.equal(answer.headers['x-seen'], 'yes');
  assert.deepEqual(told, [201]);
  assert.deepEqual(asked, ['/a?x=1']);
  await agent.close();
});

test('an answer without a body is the empty text', async () => {
  respond = (_req, res) => {
    res.writeHead(204);
    res.end();
  };
  const agent = new Agent();
  const answer = await sendForWholeAnswer(
    agent,
    get('/empty'),
    new AbortController().signal,
    () => undefined,
  );
  assert.equal(answer.statusCode, 204);
  assert.equal(answer.text, '');
  await agent.close();
});

test('aborted while queued behind another request: rejected at once with the reason, never sent', async () => {
  asked.length = 0;
  let release: () => void = () => undefined;
  respond = (req, res) => {
    if (req.url === '/slow') release = () => res.end('"slow"');
    else res.end('"quick"');
  };
  // One connection: the second request waits in the pool until the first is answered.
  const agent = new Agent({ connections: 1 });
  const first = sendForWholeAnswer(agent, get('/slow'), new AbortController().signal, () => undefined);
  await waitUntil(() => asked.length === 1);
  const caller = new AbortController();
  const second = sendForWholeAnswer(agent, get('/queued'), caller.signal, () => undefined);
  caller.abort(new Error('shutting down'));
  await assert.rejects(second, { message: 'shutting down' });
  release();
  assert.equal((await first).text, '"slow"');
  // The pool went on to what came after the aborted request, which it never sent.
  const third = await sendForWholeAnswer(agent, get('/after'), new AbortController().signal, () => undefined);
  assert.equal(third.text, '"quick"');
  assert.deepEqual(asked, ['/slow', '/after']);
  await agent.close();
});

test('aborted while its body arrives: rejected with the reason, after its headers were told', async () => {
  respond = (_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' });
    res.write('{"items":[');
  };
  const agent = new Agent();
  const caller = new AbortController();
  const told: number[] = [];
  const answer = sendForWholeAnswer(agent, get('/stalls'), caller.signal, (code) => {
    told.push(code);
    setImmediate(() => caller.abort(new Error('deadline')));
  });
  await assert.rejects(answer, { message: 'deadline' });
  assert.deepEqual(told, [200]);
  await agent.close();
});

test('a signal aborted before the call sends nothing', async () => {
  asked.length = 0;
  const caller = new AbortController();
  caller.abort(new Error('already gone'));
  const agent = new Agent();
  await assert.rejects(
    sendForWholeAnswer(agent, get('/never'), caller.signal, () => assert.fail('no headers')),
    { message: 'already gone' },
  );
  assert.deepEqual(asked, []);
  await agent.close();
});

test('no server: rejected with the connection error, no headers told', async () => {
  const closed = http.createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as AddressInfo).port;
  await new Promise<void>((r) => closed.close(() => r()));
  const agent = new Agent();
  await assert.rejects(
    sendForWholeAnswer(
      agent,
      { ...get('/x'), origin: `http://127.0.0.1:${port}` },
      new AbortController().signal,
      () => assert.fail('no headers'),
    ),
    { code: 'ECONNREFUSED' },
  );
  await agent.close();
});

async function waitUntil(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(cond(), 'the condition never held');
}
