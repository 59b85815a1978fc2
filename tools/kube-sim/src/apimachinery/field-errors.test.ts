// goFloat: numbers in field errors, printed as Go's %v prints a float64.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goFloat } from './field-errors.ts';

test('goFloat prints as Go %v does', () => {
  assert.equal(goFloat(1.5), '1.5');
  assert.equal(goFloat(1e6), '1e+06');
  assert.equal(goFloat(123456), '123456');
  assert.equal(goFloat(1234567), '1.234567e+06');
  assert.equal(goFloat(0.0001), '0.0001');
  assert.equal(goFloat(0.00001), '1e-05');
});
