// Content negotiation: protobuf for a watch of a built-in kind when it comes first, JSON otherwise.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { negotiate } from './negotiate.ts';

const CLIENT_GO = 'application/vnd.kubernetes.protobuf, application/json';
const TABLE =
  'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json;as=Table;v=v1;g=meta.k8s.io, application/json';

test('a watch of a built-in kind is served in protobuf when protobuf comes first (by q, then order)', () => {
  assert.equal(negotiate(CLIENT_GO, 'watch', true), 'protobuf');
  assert.equal(negotiate('application/vnd.kubernetes.protobuf;stream=watch', 'watch', true), 'protobuf');
  assert.equal(negotiate('application/json, application/vnd.kubernetes.protobuf', 'watch', true), 'object');
  assert.equal(
    negotiate('application/vnd.kubernetes.protobuf;q=0.5, application/json', 'watch', true),
    'object',
  );
  assert.equal(negotiate('*/*', 'watch', true), 'object');
  assert.equal(negotiate(TABLE, 'watch', true), 'Table', 'a Table is JSON only');
});

test('gets, lists and custom resources fall to JSON; with only protobuf acceptable, 406', () => {
  assert.equal(negotiate(CLIENT_GO, 'get', true), 'object');
  assert.equal(negotiate(CLIENT_GO, 'list', true), 'object');
  assert.equal(negotiate(CLIENT_GO, 'watch', false), 'object');
  assert.throws(
    () => negotiate('application/vnd.kubernetes.protobuf', 'watch', false),
    (e: { code?: number; reason?: string }) => e.code === 406 && e.reason === 'NotAcceptable',
  );
  assert.throws(
    () => negotiate('application/vnd.kubernetes.protobuf', 'list', true),
    (e: { code?: number }) => e.code === 406,
  );
});
