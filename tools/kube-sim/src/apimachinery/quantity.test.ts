// resource.Quantity: the canonical text the API server prints for what it is given, its parse errors,
// and the arithmetic quota uses (sums keep the first non-zero addend's format).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  addQuantity,
  canonicalQuantity,
  compareQuantity,
  formatQuantity,
  parseQuantity,
  QUANTITY_FORMAT_ERROR,
  subtractQuantity,
  ZERO,
} from './quantity.ts';

test('canonical form, as apimachinery prints it', () => {
  const cases: [string, string][] = [
    ['0', '0'],
    ['0m', '0'],
    ['0Mi', '0'],
    ['1', '1'],
    ['+1', '1'],
    ['1000', '1k'],
    ['1500', '1500'],
    ['15000', '15k'],
    ['1000000', '1M'],
    ['10000000', '10M'],
    ['1.5', '1500m'],
    ['0.5', '500m'],
    ['.5', '500m'],
    ['1.', '1'],
    ['1000m', '1'],
    ['1500m', '1500m'],
    ['100m', '100m'],
    ['0.1m', '100u'],
    ['1n', '1n'],
    ['0.1n', '1n'], // finer than nano rounds up
    ['-0.1n', '-1n'], // away from zero
    ['1k', '1k'],
    ['1G', '1G'],
    ['1E', '1E'],
    ['1Ki', '1Ki'],
    ['1024', '1024'], // decimal suffix stays decimal
    ['1Gi', '1Gi'],
    ['1.5Gi', '1536Mi'],
    ['0.5Gi', '512Mi'],
    ['1024Mi', '1Gi'],
    ['1000Mi', '1000Mi'],
    ['2048Ki', '2Mi'],
    ['0.5Ki', '512'], // below 1024, a binary value prints in decimal
    ['1.5Ki', '1536'],
    ['0.0001Ki', '102400u'], // a fraction of a unit: decimal
    ['1e3', '1e3'],
    ['1E3', '1e3'],
    ['12e6', '12e6'],
    ['1e-3', '1e-3'],
    ['1.5e3', '1500'],
    ['100e-2', '1'],
    ['-1', '-1'],
    ['-1500m', '-1500m'],
    ['-1Gi', '-1Gi'],
    ['007', '7'],
  ];
  for (const [input, want] of cases) assert.equal(canonicalQuantity(input), want, `"${input}"`);
});

test('errors, worded as apimachinery words them', () => {
  for (const bad of ['', 'abc', '1x', '1Kb', '1 Gi', '--1', '1e', '1.2.3']) {
    assert.throws(() => parseQuantity(bad), { message: /.+/ }, `"${bad}"`);
  }
  assert.throws(() => parseQuantity('1x'), { message: QUANTITY_FORMAT_ERROR });
  assert.throws(() => parseQuantity('1kk'), { message: "unable to parse quantity's suffix" });
  assert.throws(() => parseQuantity('1e'), { message: "unable to parse quantity's suffix" });
});

test('sums: exact, in the format of the first non-zero addend', () => {
  const sum = (...xs: string[]) => formatQuantity(xs.map(parseQuantity).reduce(addQuantity, ZERO));
  assert.equal(sum('100m', '200m', '700m'), '1');
  assert.equal(sum('500m', '1'), '1500m');
  assert.equal(sum('128Mi', '128Mi'), '256Mi');
  assert.equal(sum('512Mi', '0.5Gi'), '1Gi');
  assert.equal(sum('100M', '128Mi'), '234217728'); // DecimalSI first
  assert.equal(sum('128Mi', '100M'), '234217728'); // not a whole Ki multiple → decimal digits
  assert.equal(sum('1Gi', '1G'), '2073741824');
  assert.equal(sum('0', '1Gi'), '1Gi');
  assert.equal(sum('0.1', '0.2'), '300m'); // no float drift
  assert.equal(formatQuantity(subtractQuantity(parseQuantity('1'), parseQuantity('250m'))), '750m');
  assert.equal(compareQuantity(parseQuantity('1Gi'), parseQuantity('1G')), 1);
  assert.equal(compareQuantity(parseQuantity('1000m'), parseQuantity('1')), 0);
  assert.equal(compareQuantity(parseQuantity('999m'), parseQuantity('1')), -1);
});
