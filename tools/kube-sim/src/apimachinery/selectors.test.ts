import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { ApiError, type KubeObject } from './types.ts';
import {
  checkFieldSelectorSupported,
  compileFieldSelector,
  escapeFieldValue,
  fieldSelectorRequiredValue,
  formatLabelSelector,
  labelKeyErrors,
  labelSelectorFromMap,
  labelSelectorIsEmpty,
  labelValueErrors,
  matchesFields,
  matchesLabels,
  parseFieldSelector,
  parseLabelSelector,
  selectableFields,
} from './selectors.ts';

function matches(selector: string, labels: Record<string, string> | undefined): boolean {
  return matchesLabels(parseLabelSelector(selector), labels);
}

function assertBadRequest(fn: () => unknown, messagePart: string | RegExp): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ApiError, `expected ApiError, got ${String(e)}`);
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    if (typeof messagePart === 'string') {
      assert.ok(e.message.includes(messagePart), `message ${JSON.stringify(e.message)} lacks ${messagePart}`);
    } else {
      assert.match(e.message, messagePart);
    }
    return true;
  });
}

describe('label selectors: operators', () => {
  const labels = { app: 'web', tier: 'frontend', 'example.com/team': 'a', n: '10' };

  it('empty selector matches everything, including objects without labels', () => {
    assert.ok(labelSelectorIsEmpty(parseLabelSelector('')));
    assert.ok(labelSelectorIsEmpty(parseLabelSelector('   ')));
    assert.ok(matches('', undefined));
    assert.ok(matches('', labels));
  });

  it('= and == match equal values only', () => {
    assert.ok(matches('app=web', labels));
    assert.ok(matches('app==web', labels));
    assert.ok(!matches('app=db', labels));
    assert.ok(!matches('app=web', undefined));
    assert.ok(!matches('missing=web', labels));
  });

  it('!= matches other values and objects lacking the key', () => {
    assert.ok(matches('app!=db', labels));
    assert.ok(!matches('app!=web', labels));
    assert.ok(matches('missing!=x', labels));
    assert.ok(matches('app!=web', undefined));
  });

  it('in / notin', () => {
    assert.ok(matches('app in (web,db)', labels));
    assert.ok(!matches('app in (db,cache)', labels));
    assert.ok(!matches('missing in (x)', labels));
    assert.ok(matches('app notin (db,cache)', labels));
    assert.ok(!matches('app notin (web)', labels));
    assert.ok(matches('missing notin (x)', labels));
  });

  it('exists and !key', () => {
    assert.ok(matches('app', labels));
    assert.ok(!matches('missing', labels));
    assert.ok(matches('!missing', labels));
    assert.ok(!matches('!app', labels));
    assert.ok(matches('!app', undefined));
    assert.ok(matches('example.com/team', labels));
  });

  it('comma is AND', () => {
    assert.ok(matches('app=web,tier=frontend', labels));
    assert.ok(!matches('app=web,tier=backend', labels));
    assert.ok(matches('app=web,tier in (frontend),!missing,example.com/team', labels));
  });

  it('gt / lt compare integers', () => {
    assert.ok(matches('n>5', labels));
    assert.ok(!matches('n>10', labels));
    assert.ok(matches('n<11', labels));
    assert.ok(!matches('app>1', labels), 'non-numeric label never matches');
    assert.ok(!matches('missing<100', labels));
  });

  it('empty values: `k=`, `k in ()`, `k in (,a)`', () => {
    assert.ok(matches('e=', { e: '' }));
    assert.ok(!matches('e=', { e: 'x' }));
    assert.ok(!matches('e=', {}));
    assert.ok(matches('e in ()', { e: '' }));
    assert.ok(matches('e in (,a)', { e: '' }));
    assert.ok(matches('e in (,a)', { e: 'a' }));
    assert.ok(matches('e in (a,)', { e: '' }));
    assert.ok(matches('e in (a,,b)', { e: '' }));
    assert.deepEqual(parseLabelSelector('e in (b,a,b)').requirements[0]!.values, ['a', 'b']);
  });

  it('does not read inherited properties as labels', () => {
    assert.ok(!matches('constructor', {}));
    assert.ok(matches('!toString', {}));
  });
});

describe('label selectors: whitespace and keywords', () => {
  it('allows whitespace around tokens', () => {
    const s = parseLabelSelector('  app = web ,  tier  in  ( a , b )  , ! gone ,x notin(c)');
    assert.equal(s.requirements.length, 4);
    assert.ok(matchesLabels(s, { app: 'web', tier: 'b' }));
  });

  it('tabs and newlines are whitespace', () => {
    assert.ok(matches('app\t=\nweb', { app: 'web' }));
  });

  it('`in` and `notin` can be keys and values', () => {
    assert.ok(matches('in=notin', { in: 'notin' }));
    assert.ok(matches('x in (in,notin)', { x: 'in' }));
    assert.ok(matches('notin', { notin: '' }));
  });

  it('requirements are sorted by key', () => {
    assert.deepEqual(
      parseLabelSelector('b=1,a=2,c').requirements.map((r) => r.key),
      ['a', 'b', 'c'],
    );
  });
});

describe('label selectors: errors are 400 BadRequest naming the bad part', () => {
  const cases: [string, string][] = [
    ['app=web tier=x', "found 'tier', expected: ',' or 'end of string'"],
    ['a=b=c', "found '=', expected: ',' or 'end of string'"],
    ['a=b,', "found '', expected: identifier after ','"],
    ['a=b,,c', "found ',', expected: identifier after ','"],
    [',a', "found ',', expected: !, identifier, or 'end of string'"],
    ['=a', "found '=', expected: !, identifier, or 'end of string'"],
    ['a in b', "unable to parse requirement: found 'b' expected: '('"],
    ['a in (b c)', "unable to parse requirement: found 'c', expected: ',' or ')'"],
    ['a in (b', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['a in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['a foo', "unable to parse requirement: found 'foo', expected: in, notin, =, ==, !=, gt, lt"],
    ['a=(', "unable to parse requirement: found '(', expected: identifier"],
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!a=b', "found '=', expected: ',' or 'end of string'"],
    ['a>b', "for 'Gt', 'Lt' operators, the value must be an integer"],
    ['-bad=x', 'unable to parse requirement: key: Invalid value: "-bad"'],
    ['a/b/c=x', 'a qualified name must consist of'],
    ['/a=x', 'prefix part must be non-empty'],
    ['Example.com/a=x', 'prefix part a lowercase RFC 1123 subdomain'],
    ['example.com/=x', 'name part must be non-empty'],
    [`${'k'.repeat(64)}=x`, 'name part must be no more than 63 characters'],
    [`a=${'v'.repeat(64)}`, 'values[0]: Invalid value'],
    ['a=-v', 'a valid label must be an empty string'],
    ['a in (ok,b@d)', 'values[0]: Invalid value: "b@d"'],
  ];
  for (const [text, message] of cases) {
    it(JSON.stringify(text), () => assertBadRequest(() => parseLabelSelector(text), message));
  }

  it('accepts 63-char names and values and a 253-char prefix', () => {
    const prefix = `${'a'.repeat(61)}.${'b'.repeat(61)}.${'c'.repeat(61)}.${'d'.repeat(61)}.ef`;
    assert.ok(prefix.length <= 253);
    const key = `${prefix}/${'n'.repeat(63)}`;
    assert.ok(matches(`${key}=${'v'.repeat(63)}`, { [key]: 'v'.repeat(63) }));
  });
});

describe('label selectors: helpers', () => {
  it('formatLabelSelector round-trips', () => {
    const text = '!gone,a=1,b==2,c!=3,d in (x,y),e notin (z),f,g>4,h<5';
    const s = parseLabelSelector(text);
    const again = parseLabelSelector(formatLabelSelector(s));
    assert.deepEqual(
      again.requirements.map((r) => [r.key, r.operator, r.values]),
      s.requirements.map((r) => [r.key, r.operator, r.values]),
    );
  });

  it('labelSelectorFromMap rejects invalid keys and values', () => {
    assertBadRequest(() => labelSelectorFromMap({ 'bad key': 'x' }), 'key: Invalid value');
    assertBadRequest(() => labelSelectorFromMap({ ok: 'bad value' }), 'values[0]');
  });

  it('labelKeyErrors / labelValueErrors', () => {
    assert.deepEqual(labelKeyErrors('app.kubernetes.io/name'), []);
    assert.notDeepEqual(labelKeyErrors('a_'), []);
    assert.deepEqual(labelValueErrors(''), []);
    assert.deepEqual(labelValueErrors('a.b_c-d'), []);
    assert.notDeepEqual(labelValueErrors('a b'), []);
  });
});

// Arbitraries for valid label keys/values.
const alnum = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'.split(''));
const inner = fc.constantFrom(...'abcxyzXYZ019-_.'.split(''));
const namePart = fc
  .tuple(alnum, fc.array(inner, { maxLength: 10 }), alnum, fc.boolean())
  .map(([a, mid, z, short]) => (short ? a : a + mid.join('') + z));
const dnsLabel = fc
  .tuple(
    fc.constantFrom(...'abz09'.split('')),
    fc.array(fc.constantFrom(...'ab-9'.split('')), { maxLength: 5 }),
  )
  .map(([a, rest]) => (a + rest.join('')).replace(/-+$/, ''));
const labelKey = fc.oneof(
  namePart,
  fc
    .tuple(fc.array(dnsLabel, { minLength: 1, maxLength: 3 }), namePart)
    .map(([p, n]) => `${p.join('.')}/${n}`),
);
const labelValue = fc.oneof(fc.constant(''), namePart);
const labelMap = fc.dictionary(labelKey, labelValue, { maxKeys: 6 });

describe('label selectors: properties', () => {
  it('a selector built from a label map matches that map (both via the map and via its text)', () => {
    fc.assert(
      fc.property(labelMap, labelMap, (labels, extra) => {
        const all = { ...extra, ...labels };
        const sel = labelSelectorFromMap(labels);
        assert.ok(matchesLabels(sel, labels));
        assert.ok(matchesLabels(sel, all), 'extra labels do not matter');
        const text = Object.entries(labels)
          .map(([k, v]) => `${k}=${v}`)
          .join(',');
        assert.ok(matchesLabels(parseLabelSelector(text), all));
        assert.ok(matchesLabels(parseLabelSelector(formatLabelSelector(sel)), all));
      }),
    );
  });

  it('a requirement and its negation never both match', () => {
    fc.assert(
      fc.property(labelKey, fc.array(namePart, { minLength: 1, maxLength: 3 }), labelMap, (k, vs, labels) => {
        const inSel = parseLabelSelector(`${k} in (${vs.join(',')})`);
        const notInSel = parseLabelSelector(`${k} notin (${vs.join(',')})`);
        assert.notEqual(matchesLabels(inSel, labels), matchesLabels(notInSel, labels));
        const eq = parseLabelSelector(`${k}=${vs[0]!}`);
        const ne = parseLabelSelector(`${k}!=${vs[0]!}`);
        assert.notEqual(matchesLabels(eq, labels), matchesLabels(ne, labels));
        assert.notEqual(
          matchesLabels(parseLabelSelector(k), labels),
          matchesLabels(parseLabelSelector(`!${k}`), labels),
        );
      }),
    );
  });

  it('parsing arbitrary text either succeeds or throws a 400 ApiError', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom(...'ab=!(),<> in\t/.-'.split('')), maxLength: 20 }),
        (text) => {
          try {
            parseLabelSelector(text);
          } catch (e) {
            assert.ok(e instanceof ApiError && e.code === 400, String(e));
          }
        },
      ),
    );
  });
});

// ---------------------------------------------------------------------------------------------------------------

function pod(
  overrides: Partial<{ name: string; namespace: string; phase: string; node: string }> = {},
): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: overrides.name ?? 'p1', namespace: overrides.namespace ?? 'default' },
    spec: {
      nodeName: overrides.node ?? 'node-1',
      restartPolicy: 'Always',
      schedulerName: 'default-scheduler',
      serviceAccountName: 'default',
      containers: [],
    },
    status: { phase: overrides.phase ?? 'Running', podIP: '10.0.0.5', podIPs: [{ ip: '10.0.0.5' }] },
  };
}

describe('field selectors', () => {
  it('parses =, == and != terms', () => {
    const s = parseFieldSelector('status.phase!=Failed,metadata.name==p1,spec.nodeName=node-1');
    assert.deepEqual(
      s.requirements.map((r) => [r.field, r.operator, r.value]),
      [
        ['metadata.name', '==', 'p1'],
        ['spec.nodeName', '=', 'node-1'],
        ['status.phase', '!=', 'Failed'],
      ],
    );
  });

  it('empty selector and empty terms', () => {
    assert.equal(parseFieldSelector('').requirements.length, 0);
    assert.equal(parseFieldSelector(',a=b,').requirements.length, 1);
  });

  it('unescapes \\, \\= \\\\ in values and splits only on unescaped commas', () => {
    const s = parseFieldSelector('metadata.name=a\\,b\\=c\\\\d,metadata.namespace=ns');
    assert.equal(fieldSelectorRequiredValue(s, 'metadata.name'), 'a,b=c\\d');
    assert.equal(fieldSelectorRequiredValue(s, 'metadata.namespace'), 'ns');
    assert.equal(escapeFieldValue('a,b=c\\d'), 'a\\,b\\=c\\\\d');
  });

  it('rejects bad terms and escapes with 400', () => {
    assertBadRequest(
      () => parseFieldSelector('status.phase'),
      "invalid selector: 'status.phase'; can't understand 'status.phase'",
    );
    assertBadRequest(() => parseFieldSelector('a=b=c'), 'unescaped character in value: =');
    assertBadRequest(() => parseFieldSelector('a=b\\x'), 'invalid escape sequence: \\x');
    assertBadRequest(() => parseFieldSelector('a=b\\'), 'invalid escape sequence: \\');
  });

  it('the first operator wins: `a!=b` is != and `a==b` is ==', () => {
    assert.equal(parseFieldSelector('a!=b').requirements[0]!.operator, '!=');
    assert.equal(parseFieldSelector('a==b').requirements[0]!.operator, '==');
    assert.equal(parseFieldSelector('a=!b').requirements[0]!.value, '!b');
  });

  it('matchesFields: missing fields read as empty', () => {
    assert.ok(matchesFields(parseFieldSelector('a=1,b!=2'), { a: '1' }));
    assert.ok(matchesFields(parseFieldSelector('b='), { a: '1' }));
    assert.ok(!matchesFields(parseFieldSelector('a!=1'), { a: '1' }));
  });

  it('selectableFields for pods', () => {
    const f = selectableFields('pods', pod());
    assert.equal(f['metadata.name'], 'p1');
    assert.equal(f['metadata.namespace'], 'default');
    assert.equal(f['spec.nodeName'], 'node-1');
    assert.equal(f['spec.restartPolicy'], 'Always');
    assert.equal(f['spec.schedulerName'], 'default-scheduler');
    assert.equal(f['spec.serviceAccountName'], 'default');
    assert.equal(f['spec.hostNetwork'], 'false');
    assert.equal(f['status.phase'], 'Running');
    assert.equal(f['status.podIP'], '10.0.0.5');
    assert.equal(f['status.nominatedNodeName'], '');
  });

  it('selectableFields for events (core and events.k8s.io), namespaces, secrets, nodes', () => {
    const ev: KubeObject = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      involvedObject: {
        kind: 'Pod',
        name: 'p1',
        namespace: 'default',
        uid: 'u1',
        apiVersion: 'v1',
        fieldPath: 'spec',
      },
      reason: 'Scheduled',
      source: { component: 'scheduler' },
      reportingComponent: 'scheduler',
      type: 'Normal',
    };
    const f = selectableFields('events', ev);
    assert.equal(f['involvedObject.kind'], 'Pod');
    assert.equal(f['involvedObject.name'], 'p1');
    assert.equal(f['involvedObject.uid'], 'u1');
    assert.equal(f['involvedObject.resourceVersion'], '');
    assert.equal(f['involvedObject.fieldPath'], 'spec');
    assert.equal(f.source, 'scheduler');
    assert.equal(f.reason, 'Scheduled');
    assert.equal(f.type, 'Normal');
    const ev2: KubeObject = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'default' },
      regarding: { kind: 'Pod', name: 'p1' },
      reportingController: 'kubelet',
      reason: 'Pulled',
      type: 'Normal',
    };
    const g = selectableFields('events.events.k8s.io', ev2);
    assert.equal(g['regarding.kind'], 'Pod');
    assert.equal(g['regarding.name'], 'p1');
    assert.equal(g.reportingController, 'kubelet');
    const ns: KubeObject = {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: 'x' },
      status: { phase: 'Active' },
    };
    assert.equal(selectableFields('namespaces', ns)['status.phase'], 'Active');
    const secret: KubeObject = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 's' }, type: 'Opaque' };
    assert.equal(selectableFields('secrets', secret).type, 'Opaque');
    const node: KubeObject = {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'n' },
      spec: { unschedulable: true },
    };
    assert.equal(selectableFields('nodes', node)['spec.unschedulable'], 'true');
  });

  it('custom resources only offer metadata.name and metadata.namespace', () => {
    const cr: KubeObject = {
      apiVersion: 'podset.io/v1',
      kind: 'PodSet',
      metadata: { name: 'a', namespace: 'n' },
    };
    assert.deepEqual(selectableFields('podsets.podset.io', cr), {
      'metadata.name': 'a',
      'metadata.namespace': 'n',
    });
  });

  it('checkFieldSelectorSupported rejects unknown fields with 400', () => {
    checkFieldSelectorSupported('pods', parseFieldSelector('status.phase=Running,spec.nodeName=n'));
    checkFieldSelectorSupported('podsets.podset.io', parseFieldSelector('metadata.name=a'));
    assertBadRequest(
      () => checkFieldSelectorSupported('podsets.podset.io', parseFieldSelector('status.phase=Running')),
      'field label not supported: status.phase',
    );
    assertBadRequest(
      () => checkFieldSelectorSupported('configmaps', parseFieldSelector('spec.nodeName=x')),
      'field label not supported: spec.nodeName',
    );
    assertBadRequest(
      () => checkFieldSelectorSupported('pods', parseFieldSelector('status.phase =Running')),
      'field label not supported: status.phase ',
    );
  });

  it('compileFieldSelector agrees with selectableFields + matchesFields', () => {
    const phases = ['Pending', 'Running', 'Failed'];
    const nodes = ['node-1', 'node-2'];
    fc.assert(
      fc.property(
        fc.constantFrom(...phases),
        fc.constantFrom(...nodes),
        fc.constantFrom(...phases),
        fc.constantFrom(...nodes),
        fc.constantFrom('=', '==', '!='),
        fc.constantFrom('=', '==', '!='),
        (phase, node, wantPhase, wantNode, op1, op2) => {
          const sel = parseFieldSelector(`status.phase${op1}${wantPhase},spec.nodeName${op2}${wantNode}`);
          const p = pod({ phase, node });
          const compiled = compileFieldSelector('pods', sel);
          assert.equal(compiled(p), matchesFields(sel, selectableFields('pods', p)));
        },
      ),
    );
  });

  it('compileFieldSelector throws for unsupported fields and matches everything when empty', () => {
    assertBadRequest(
      () => compileFieldSelector('pods', parseFieldSelector('spec.foo=x')),
      'field label not supported',
    );
    assert.ok(compileFieldSelector('pods', parseFieldSelector(''))(pod()));
  });

  it('escaped values round-trip through parse', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 12 }), (v) => {
        const s = parseFieldSelector(`metadata.name=${escapeFieldValue(v)}`);
        assert.equal(s.requirements.length, 1);
        assert.equal(s.requirements[0]!.value, v);
      }),
    );
  });
});
