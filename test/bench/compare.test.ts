// bench compare's pure parts: the order of the runs, its command line, the figures read from a record and
// matched across the sides, and the ratio, spread and change of each.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCompareArgs } from '../../bench/compare/args.ts';
import { figuresOf, leadingNumber, matchFigures, type BenchRecord } from '../../bench/compare/figures.ts';
import { runOrder } from '../../bench/compare/plan.ts';
import { hasChanges, sameLifecycleArgs } from '../../bench/compare/sides.ts';
import { median, pairStats, ratio, spreadOf } from '../../bench/compare/stats.ts';
import { layout, notCompared, tableRows } from '../../bench/compare/table.ts';

test('runs alternate base and head, the order swapped every pair', () => {
  assert.deepEqual(
    runOrder(3).map((r) => `${r.pair}${r.side}`),
    ['1base', '1head', '2head', '2base', '3base', '3head'],
  );
  assert.equal(runOrder(2).filter((r) => r.side === 'base').length, 2);
});

test('compare takes its own options and passes every other one, in order, to the runs', () => {
  const args = parseCompareArgs([
    '--base',
    'main~3',
    '--podsets',
    '100',
    '--scenarios=converge,latency',
    '--smoke',
    '--pairs',
    '3',
    '--fresh',
    '--event',
    'pod-annotation',
  ]);
  assert.deepEqual(args, {
    base: 'main~3',
    scenarios: ['converge', 'latency'],
    pairs: 3,
    fresh: true,
    passthrough: ['--podsets', '100', '--smoke', '--event', 'pod-annotation'],
  });
});

test('compare defaults to converge and latency, two pairs', () => {
  const args = parseCompareArgs(['--base-dir', '/tmp/x']);
  assert.ok(!('error' in args));
  assert.deepEqual(args.scenarios, ['converge', 'latency']);
  assert.equal(args.pairs, 2);
  assert.equal(args.baseDir, '/tmp/x');
});

test('compare refuses what it cannot do, and says why', () => {
  const error = (argv: string[]): string => {
    const r = parseCompareArgs(argv);
    assert.ok('error' in r, `accepted: ${argv.join(' ')}`);
    return r.error;
  };
  assert.match(error([]), /needs --base REF/);
  assert.match(error(['--base', 'a', '--base-dir', 'b']), /one of them/);
  assert.match(error(['--base', 'a', '--pairs', '1']), /≥ 2/);
  assert.match(error(['--base', 'a', '--pairs', '2.5']), /whole number/);
  assert.match(error(['--base', 'a', '--scenarios', 'converge,all']), /not "all"/);
  assert.match(error(['--base', 'a', '--scenarios', 'compare']), /not "compare"/);
  assert.match(error(['--base-dir', 'b', '--fresh']), /does not apply to --base-dir/);
  assert.match(error(['--base', 'a', '--plot', 'x.svg']), /--plot is not taken/);
  assert.match(error(['--base']), /--base needs a value/);
});

test("a row's first number and its unit; none for a value without a number", () => {
  assert.deepEqual(leadingNumber('1,234.5 ms (p99)'), { value: 1234.5, unit: 'ms' });
  assert.deepEqual(leadingNumber('12.34 s'), { value: 12.34, unit: 's' });
  assert.deepEqual(leadingNumber('1.15 (28.5 / 15.7 s)'), { value: 1.15, unit: '' });
  assert.deepEqual(leadingNumber('57 / 60'), { value: 57, unit: '' });
  assert.deepEqual(leadingNumber('3,400 pods/s'), { value: 3400, unit: 'pods' });
  assert.deepEqual(leadingNumber('99.5 %'), { value: 99.5, unit: '%' });
  assert.equal(leadingNumber('n/a (needs kube-sim)'), undefined);
  assert.equal(leadingNumber(''), undefined);
});

const record = (rows: [string, string][], data: Record<string, unknown>): BenchRecord => ({
  scenario: 'latency',
  rows: rows.map(([figure, value]) => ({ figure, value })),
  data,
});

test("a record's figures: its numeric rows, and its data's numeric fields at any depth but in arrays", () => {
  const figures = figuresOf(
    record(
      [
        ['p50', '12.5 ms'],
        ['judged', 'n/a'],
        ['p50', '13 ms'],
      ],
      {
        p99: 40,
        nested: { cpu: { watcher: 1.5 }, name: 'x', ok: true },
        samples: [{ t: 1 }],
        nan: NaN,
      },
    ),
  );
  assert.deepEqual(Object.fromEntries(figures), {
    'row: p50': { value: 12.5, unit: 'ms' },
    'row: p50 #2': { value: 13, unit: 'ms' },
    'data.p99': { value: 40, unit: '' },
    'data.nested.cpu.watcher': { value: 1.5, unit: '' },
  });
});

test('figures are matched by name: compared when in every run of both sides, else said which side lacks them', () => {
  const run = (rows: [string, string][], data: Record<string, unknown>) => figuresOf(record(rows, data));
  const base = [
    run(
      [
        ['p50', '10 ms'],
        ['old', '1'],
      ],
      { p99: 30, flaky: 1 },
    ),
    run(
      [
        ['p50', '12 ms'],
        ['old', '2'],
      ],
      { p99: 32 },
    ),
  ];
  const head = [
    run(
      [
        ['p50', '9 ms'],
        ['new', '3'],
      ],
      { p99: 20, flaky: 2 },
    ),
    run(
      [
        ['p50', '11 s'],
        ['new', '4'],
      ],
      { p99: 22, flaky: 3 },
    ),
  ];
  const m = matchFigures(base, head);
  assert.deepEqual(m.compared, [{ name: 'data.p99', unit: '', base: [30, 32], head: [20, 22] }]);
  assert.deepEqual(m.onlyBase, ['row: old']);
  assert.deepEqual(m.onlyHead, ['row: new']);
  assert.deepEqual(m.notInEveryRun, ['data.flaky']);
  assert.deepEqual(m.unitDiffers, ['row: p50']);
});

test('compared figures keep the table order (rows first), then the data fields', () => {
  const run = () =>
    figuresOf(
      record(
        [
          ['b', '1'],
          ['a', '2'],
        ],
        { z: 1, y: 2 },
      ),
    );
  assert.deepEqual(
    matchFigures([run()], [run()]).compared.map((f) => f.name),
    ['row: b', 'row: a', 'data.z', 'data.y'],
  );
});

test('ratio, median and spread', () => {
  assert.equal(ratio(3, 2), 1.5);
  assert.equal(ratio(0, 0), 1);
  assert.equal(ratio(1, 0), Infinity);
  assert.equal(median([3, 1, 2]), 2);
  assert.equal(median([4, 1, 3, 2]), 2.5);
  assert.ok(Number.isNaN(median([])));
  assert.equal(spreadOf([2, 4, 3]), 2);
  assert.equal(spreadOf([5, 5]), 1);
});

test('per pair: head ÷ base of the same pair, the median and min–max, and the noise of each side', () => {
  const s = pairStats([10, 20], [12, 30]);
  assert.deepEqual(s.ratios, [1.2, 1.5]);
  assert.equal(s.median, 1.35);
  assert.equal(s.min, 1.2);
  assert.equal(s.max, 1.5);
  assert.equal(s.noise, 2.5, 'head ran 12 and 30: its own spread is the larger');
  assert.equal(s.change, '', 'within the noise');
  assert.throws(() => pairStats([1, 2], [1]), /2 base runs against 1 head runs/);
});

test('a change is called only when every pair moved beyond both sides’ own spread', () => {
  assert.equal(pairStats([100, 102], [150, 151]).change, 'higher');
  assert.equal(pairStats([100, 102], [50, 51]).change, 'lower');
  // One pair up, one down: no direction.
  assert.equal(pairStats([100, 100], [120, 90]).change, '');
  // Up in both pairs, but by less than base moves between its own runs.
  assert.equal(pairStats([100, 130], [135, 140]).change, '');
  // Zero or negative figures have no ratio to judge.
  assert.equal(pairStats([0, 0], [5, 5]).change, '');
});

test('the table: each figure that moved with its runs, ratios and verdict; the rest named below it', () => {
  const m = matchFigures(
    [
      figuresOf(record([['p50', '10 ms']], { events: 200 })),
      figuresOf(record([['p50', '11 ms']], { events: 200 })),
    ],
    [
      figuresOf(record([['p50', '20 ms']], { events: 200 })),
      figuresOf(record([['p50', '21 ms']], { events: 200 })),
    ],
  );
  const rows = tableRows(m);
  assert.deepEqual(rows[1], [
    'row: p50',
    '10, 11 ms',
    '20, 21 ms',
    '2.00, 1.91',
    '1.95 (1.91–2.00)',
    'higher',
  ]);
  assert.equal(rows.length, 2, 'data.events never moved: not a row');
  assert.deepEqual(notCompared(m), ['the same in every run: data.events = 200']);
  const lines = layout(rows);
  assert.match(
    lines[0]!,
    /^figure\s+base runs\s+head runs\s+head÷base per pair\s+median \(min–max\)\s+change$/,
  );
  assert.equal(lines.length, 3);
});

test('a base without the kubelet lifecycle: the head runs converge with the fast one too, unless the user chose', () => {
  const withIt = { usage: 'usage: … --lifecycle kubelet|fast …' };
  const without = { usage: 'usage: … --podsets N …' };
  const older = { base: without, head: withIt };
  assert.deepEqual(sameLifecycleArgs('converge', 'head', older, []), ['--lifecycle', 'fast']);
  assert.deepEqual(sameLifecycleArgs('converge', 'base', older, []), [], 'the base runs as it is');
  assert.deepEqual(sameLifecycleArgs('latency', 'head', older, []), [], 'converge only');
  assert.deepEqual(sameLifecycleArgs('converge', 'head', { base: withIt, head: withIt }, []), []);
  assert.deepEqual(sameLifecycleArgs('converge', 'head', older, ['--node-agent']), [], "the user's choice");
  assert.deepEqual(sameLifecycleArgs('converge', 'head', older, ['--lifecycle', 'kubelet']), []);
});

test("a tree's changes: modified and new files count, a prepared base's own ready marker does not", () => {
  assert.equal(hasChanges(''), false);
  assert.equal(hasChanges('?? .bench-base-ready\n'), false);
  assert.equal(hasChanges('?? .bench-base-ready\n M bench/run.ts\n'), true);
  assert.equal(hasChanges('?? new-file.ts'), true);
});
