// When the latency scenario's load generator kept its rate, and how a run that did not is named, so that a
// compare never sets a saturated run's backlog beside a real latency.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { figuresOf } from '../../bench/compare/figures.ts';
import { latencyName, saturation } from '../../bench/lib/saturation.ts';

test('a run that issued the asked rate with few late sends kept it', () => {
  const s = saturation({ asked: 300, sent: 3000, issueSeconds: 10.01, late: 12 });
  assert.equal(s.saturated, false);
  assert.ok(Math.abs(s.achieved - 299.7) < 0.1);
  assert.match(s.verdict, /^rate kept: 300\/s of the 300\/s asked \(100 %\), 0 % of sends late$/);
  assert.match(s.row, /^yes — 300\/s of the 300\/s asked/);
});

test("issue 36's runs (~800 of 1,000/s, over 90 % late) are saturated, and say so plainly", () => {
  const s = saturation({ asked: 1000, sent: 10_000, issueSeconds: 12.5, late: 9_200 });
  assert.equal(s.saturated, true);
  assert.equal(Math.round(s.achieved), 800);
  assert.match(
    s.verdict,
    /^SATURATED: this machine could not keep the rate — 800\/s of the 1,000\/s asked \(80 %\), 92 % of sends late;/,
  );
});

test('either sign alone saturates: a rate below 95 %, or more than 10 % of sends late', () => {
  assert.equal(saturation({ asked: 1000, sent: 1000, issueSeconds: 1.1, late: 0 }).saturated, true);
  assert.equal(saturation({ asked: 1000, sent: 1000, issueSeconds: 1, late: 101 }).saturated, true);
  assert.equal(saturation({ asked: 1000, sent: 1000, issueSeconds: 1.05, late: 100 }).saturated, false);
});

test("a saturated run's latency rows share no name with a kept run's, so compare cannot pair them", () => {
  const record = (saturated: boolean) => ({
    scenario: 'latency',
    rows: [
      { figure: latencyName('event → reconcile start p50', saturated), value: '12.0 ms' },
      { figure: 'reconciles started', value: '1000' },
    ],
    data: {},
  });
  const kept = figuresOf(record(false));
  const backlog = figuresOf(record(true));
  assert.ok(kept.has('row: event → reconcile start p50'));
  assert.ok(!backlog.has('row: event → reconcile start p50'));
  assert.ok(backlog.has('row: event → reconcile start p50 (SATURATED: backlog)'));
  assert.ok(backlog.has('row: reconciles started'), 'the counts stay comparable');
});
