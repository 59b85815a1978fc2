import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Audit, type AuditEntry } from './audit.ts';

const entry = (name: string, time: string): Omit<AuditEntry, 'seq'> => ({
  time,
  userAgent: 'test',
  user: 'u',
  verb: 'create',
  resource: 'events',
  subresource: '',
  namespace: 'default',
  name,
  code: 201,
  latencyMs: 1,
  method: 'POST',
  path: '/api/v1/namespaces/default/events',
});

test('query({ after: mark() }) splits entries recorded in one millisecond, where since cannot', () => {
  const audit = new Audit();
  const sameMs = '2026-12-02T07:00:00.123Z';
  audit.record(entry('before', sameMs));
  const barrier = audit.mark();
  audit.record(entry('after', sameMs));
  assert.deepEqual(
    audit.query({ after: barrier }).map((e) => e.name),
    ['after'],
  );
  // The clock reading taken at the barrier counts both: why a barrier should use the mark.
  assert.deepEqual(
    audit.query({ since: sameMs }).map((e) => e.name),
    ['before', 'after'],
  );
  assert.deepEqual(
    audit.all().map((e) => e.seq),
    [1, 2],
  );
});
