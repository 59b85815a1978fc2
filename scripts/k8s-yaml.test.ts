import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'yaml';
import { parseK8sYaml, toK8sYaml, valueDifferences, yamlVersionDifferences } from './k8s-yaml.ts';

/** Strings that YAML 1.1 (kubectl, Helm: go-yaml v2) or YAML 1.2 reads as another type when unquoted. */
const AMBIGUOUS = [
  ...['yes', 'no', 'on', 'off', 'y', 'n', 'Y', 'N', 'Yes', 'OFF', 'true', 'False'],
  ...['0755', '0o17', '0x1F', '0b101', '1_000', '12e3', '+1', '1.5', '.inf', '-.Inf', '.nan'],
  ...['~', 'null', 'Null', '', '2001-12-14', '2001-12-14t21:59:43.10-05:00', '1:20', '<<'],
];

test('toK8sYaml quotes every string YAML 1.1 or 1.2 would read as another type, and no other', () => {
  const value = {
    command: [...AMBIGUOUS, 'redis-server', 'everysec', 'Yes please'],
    count: 3,
    b: true,
    z: null,
    n: 'n',
  };
  const text = toK8sYaml(value);
  assert.deepEqual(parseK8sYaml(text), [value], 'read as YAML 1.1');
  assert.deepEqual(parse(text), value, 'read as YAML 1.2');
  assert.match(text, /^ {2}- "yes"$/m);
  assert.match(text, /^ {2}- redis-server$/m, 'plain strings stay plain');
  assert.match(text, /^count: 3$/m);
  assert.match(text, /^"n": "n"$/m, 'keys too');
});

test('yamlVersionDifferences names each unquoted value YAML 1.1 reads otherwise, with its path', () => {
  assert.deepEqual(
    yamlVersionDifferences("command: [redis-server, --appendonly, 'yes']\nmode: '0755'\n"),
    [],
  );
  assert.deepEqual(yamlVersionDifferences('a: [x, yes]\n---\nb: {mode: 0755, size: 1_000, s: off}\n'), [
    'document 1: a[1]: string "yes" ≠ boolean true',
    'document 2: b.mode: number 755 ≠ number 493',
    'document 2: b.size: string "1_000" ≠ number 1000',
    'document 2: b.s: string "off" ≠ boolean false',
  ]);
});

test('valueDifferences: absent, extra and differently typed values', () => {
  assert.deepEqual(valueDifferences({ a: [1, 2], b: 'x' }, { a: [1, 2], b: 'x' }), []);
  assert.deepEqual(valueDifferences({ a: [1], b: 'x' }, { a: [1, 2], c: 'x' }), [
    'a[1]: (absent) ≠ number 2',
    'b: string "x" ≠ (absent)',
    'c: (absent) ≠ string "x"',
  ]);
});
