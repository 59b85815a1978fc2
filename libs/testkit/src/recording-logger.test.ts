import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecordingLogger } from './recording-logger.ts';

test('each line keeps its level, message and fields, in order', () => {
  const log = new RecordingLogger();
  log.info({ podset: 'default/web' }, 'reconciled');
  log.warn('a message alone');
  log.debug({ rv: '7' });
  assert.deepEqual(log.lines, [
    { level: 'info', msg: 'reconciled', fields: { podset: 'default/web' } },
    { level: 'warn', msg: 'a message alone', fields: {} },
    { level: 'debug', msg: '', fields: { rv: '7' } },
  ]);
  assert.deepEqual(log.messages('warn'), ['a message alone']);
  assert.deepEqual(log.messages(), ['reconciled', 'a message alone', '']);
  assert.deepEqual(log.at('error'), []);
});

test("a child's lines go to the same list with its bindings; a call's own fields win", () => {
  const log = new RecordingLogger();
  const child = log.child({ podset: 'default/web', attempt: 1 });
  child.child({ attempt: 2 }).error({ code: 409 }, 'conflict');
  log.info({}, 'parent');
  assert.deepEqual(log.lines, [
    { level: 'error', msg: 'conflict', fields: { podset: 'default/web', attempt: 2, code: 409 } },
    { level: 'info', msg: 'parent', fields: {} },
  ]);
  assert.equal(child.lines, log.lines);
});

test('an Error as the fields is kept under err, as pino does', () => {
  const log = new RecordingLogger();
  const err = new Error('boom');
  log.error(err, 'failed');
  assert.equal(log.lines[0]?.fields['err'], err);
});
