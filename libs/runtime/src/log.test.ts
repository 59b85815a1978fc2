import assert from 'node:assert/strict';
import type { writeSync } from 'node:fs';
import { test } from 'node:test';
import type { Logger } from '@podset/log';
import { createLogger, fdSink } from './log.ts';

/** A write(2) stand-in failing with `code` from the `from`-th call on. */
function failingWrite(code: string, from = 1) {
  let calls = 0;
  const write = ((_fd: number, buf: Buffer) => {
    calls++;
    if (calls >= from) throw Object.assign(new Error(code), { code });
    return buf.length;
  }) as unknown as typeof writeSync;
  return { write, calls: () => calls };
}

test('EPIPE or EBADF on the log destination: stop writing there, drop later lines, never throw', () => {
  for (const code of ['EPIPE', 'EBADF']) {
    const w = failingWrite(code, 2);
    const sink = fdSink(1, w.write);
    sink.write('one\n');
    sink.write('two\n');
    assert.equal(sink.open, false, code);
    sink.write('three\n');
    sink.write('four\n');
    assert.equal(w.calls(), 2, `${code}: no write after the destination went away`);
    assert.equal(sink.dropped, 3);
  }
});

test('a full pipe (EAGAIN) is waited for a bounded time, then the line is dropped; the sink stays open', () => {
  const w = failingWrite('EAGAIN');
  const sink = fdSink(1, w.write);
  sink.write('line\n');
  assert.equal(sink.open, true);
  assert.equal(sink.dropped, 1);
  assert.ok(w.calls() > 1 && w.calls() < 100, `retried a bounded number of times (${w.calls()})`);
  const before = w.calls();
  sink.write('next\n');
  assert.equal(w.calls(), before + 1, 'while congested, one try per line, no wait');
  assert.equal(sink.dropped, 2);
});

test('partial writes are completed', () => {
  const out: string[] = [];
  const write = ((_fd: number, buf: Buffer) => {
    const n = Math.min(3, buf.length);
    out.push(buf.subarray(0, n).toString());
    return n;
  }) as unknown as typeof writeSync;
  const sink = fdSink(1, write);
  sink.write('hello world\n');
  assert.equal(out.join(''), 'hello world\n');
});

test('the logger writes pino JSON lines with the app name to its sink', () => {
  const lines: string[] = [];
  const log = createLogger({
    name: 'podset-x',
    sink: { write: (l) => void lines.push(l), open: true, dropped: 0 },
  });
  // What every app and library takes: the pino logger is one as it is.
  (log satisfies Logger).info({ podset: 'default/web' }, 'reconciled');
  const rec = JSON.parse(lines[0]!) as Record<string, unknown>;
  assert.equal(rec.name, 'podset-x');
  assert.equal(rec.podset, 'default/web');
  assert.equal(rec.msg, 'reconciled');
});
