// What an app says about its egress to the API server: the port-only warning (once, only for port-only),
// and the line for a server not reached at start, naming the NetworkPolicy and the app's namespace.
import { KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RecordingLogger } from '@podset/testkit';
import {
  API_EGRESS_POLICY,
  PORT_ONLY_WARNING,
  reportApiEgress,
  type ApiServerEgress,
} from '../src/api-egress.ts';
import { apiAnswered, apiFailed } from '../src/reachability.ts';

const refused = () =>
  Object.assign(new Error('connect ECONNREFUSED 10.96.0.1:443'), { code: 'ECONNREFUSED' });

test('port-only: one warning saying how to confine the egress; confined or unset: none', () => {
  const cases: [ApiServerEgress | undefined, number][] = [
    ['port-only', 1],
    ['confined', 0],
    [undefined, 0],
  ];
  for (const [egress, warnings] of cases) {
    const log = new RecordingLogger();
    const lines = log.lines;
    const unwatch = reportApiEgress(new KubeConfig(), { egress, namespace: 'podset-system', log });
    unwatch();
    assert.equal(lines.filter((l) => l.msg === PORT_ONLY_WARNING).length, warnings, String(egress));
    assert.equal(lines.length, warnings, String(egress));
  }
  assert.match(PORT_ONLY_WARNING, /limited by port only/);
  assert.match(PORT_ONLY_WARNING, /443 and 6443 to any address/);
  assert.match(PORT_ONLY_WARNING, /apiServerCIDRs/);
  assert.match(PORT_ONLY_WARNING, /k8s\/components\/api-server-egress/);
  assert.match(PORT_ONLY_WARNING, /docs\/install\.md#network-policy/);
});

test('a server not reached at start: one warning naming the policy, its namespace and the server', () => {
  const kc = new KubeConfig();
  const log = new RecordingLogger();
  const lines = log.lines;
  const unwatch = reportApiEgress(kc, { egress: 'confined', namespace: 'podset-system', log });
  try {
    for (let i = 0; i < 4; i++) apiFailed(kc, refused(), 'https://10.96.0.1:443');
    const warned = lines.filter((l) => l.level === 'warn');
    assert.equal(warned.length, 1, JSON.stringify(lines));
    const [line] = warned;
    assert.match(line!.msg, /cannot reach the API server at https:\/\/10\.96\.0\.1:443 \(ECONNREFUSED\)/);
    assert.match(line!.msg, new RegExp(`NetworkPolicy ${API_EGRESS_POLICY} in namespace podset-system`));
    assert.match(line!.msg, /apiServerCIDRs/);
    assert.deepEqual(
      { ...line!.fields, err: undefined },
      {
        server: 'https://10.96.0.1:443',
        code: 'ECONNREFUSED',
        err: undefined,
        networkPolicy: API_EGRESS_POLICY,
        namespace: 'podset-system',
      },
    );
    apiAnswered(kc, 'https://10.96.0.1:443');
    assert.deepEqual(
      lines.filter((l) => l.level === 'info').map((l) => l.msg),
      ['reached the API server at https://10.96.0.1:443 after 4 failed connection attempts'],
    );
  } finally {
    unwatch();
  }
});

test('outside a pod (no namespace) the line still names the policy; after unwatching nothing is said', () => {
  const kc = new KubeConfig();
  const log = new RecordingLogger();
  const lines = log.lines;
  const unwatch = reportApiEgress(kc, { egress: undefined, namespace: undefined, log });
  apiFailed(kc, refused(), 'https://127.0.0.1:6443');
  assert.equal(lines.length, 1);
  assert.match(lines[0]!.msg, new RegExp(`NetworkPolicy ${API_EGRESS_POLICY} in the operator's namespace`));
  assert.equal(lines[0]!.fields['namespace'], undefined);
  unwatch();
  apiAnswered(kc, 'https://127.0.0.1:6443');
  assert.equal(lines.length, 1);
});
