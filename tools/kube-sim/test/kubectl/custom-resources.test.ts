// Acceptance: the real kubectl against kube-sim — a custom resource through its life: the Widget CRD applied,
// then a Widget applied, read, scaled, patched, labelled, edited, re-applied, diffed, refused, explained,
// described and watched; each step starts from where the one before left it. Each step asserts on kubectl's
// output AND on the server's state.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { KubeObject, KubeSim } from '../../src/index.ts';
import { waitFor } from '@podset/testkit';
import { FIXTURES, spec, useKubectlSim, WIDGETS } from './support.ts';

describe('kubectl against kube-sim', () => {
  const k = useKubectlSim();
  const { children, kubectl, ok, widget } = k;
  let sim: KubeSim;
  let cacheDir: string;

  before(async () => {
    sim = k.sim;
    cacheDir = k.cacheDir;
  });

  test('apply a CRD: created, Established, served', async () => {
    const out = await ok(['apply', '-f', join(FIXTURES, 'widget-crd.yaml')]);
    assert.match(out, /customresourcedefinition\.apiextensions\.k8s\.io\/widgets\.example\.com created/);
    const waited = await ok([
      'wait',
      '--for=condition=Established',
      '--timeout=20s',
      'crd/widgets.example.com',
    ]);
    assert.match(waited, /condition met/);
    const resources = await ok(['api-resources', '--api-group=example.com']);
    assert.match(resources, /^widgets\s+wd\s+example\.com\/v1\s+true\s+Widget\s*$/m);
    const crd = sim.cluster.get('customresourcedefinitions.apiextensions.k8s.io', undefined, WIDGETS);
    assert.ok(crd, 'the CRD is stored');
    const conditions = (crd.status as { conditions?: { type: string; status: string }[] }).conditions;
    assert.equal(conditions?.find((c) => c.type === 'Established')?.status, 'True');
  });

  test('apply a custom resource: created with schema defaults', async () => {
    const out = await ok(['apply', '-f', join(FIXTURES, 'widget.yaml')]);
    assert.match(out, /^widget\.example\.com\/alpha created$/m);
    const w = widget('alpha');
    assert.ok(w, 'stored');
    assert.deepEqual(spec(w), { color: 'blue', replicas: 2, size: 'small' }, 'size defaulted to small');
    assert.equal(w.metadata.generation, 1);
    assert.ok(w.metadata.annotations?.['kubectl.kubernetes.io/last-applied-configuration']);
  });

  test('get shows the printer columns (status set through the status subresource)', async () => {
    const w = widget('alpha')!;
    sim.cluster.updateStatus(WIDGETS, {
      ...w,
      status: { phase: 'Ready', replicas: 2, selector: 'app=widgets' },
    });
    const out = await ok(['get', 'widgets']);
    const [header, row, ...rest] = out.trimEnd().split('\n');
    assert.match(header ?? '', /^NAME\s+REPLICAS\s+SIZE\s+PHASE\s+AGE$/);
    assert.match(row ?? '', /^alpha\s+2\s+small\s+Ready\s+\d+s$/);
    assert.deepEqual(rest, []);
    // The short name and a label selector work too.
    assert.match(await ok(['get', 'wd', '-l', 'app=widgets']), /^alpha\s+2\s+small\s+Ready/m);
    const none = await kubectl(['get', 'wd', '-l', 'app=other']);
    assert.equal(none.code, 0);
    assert.match(none.stderr, /No resources found in default namespace/);
  });

  test('get -o yaml returns the stored object', async () => {
    const obj = parseYaml(await ok(['get', 'widget', 'alpha', '-o', 'yaml'])) as KubeObject;
    const stored = widget('alpha')!;
    assert.equal(obj.apiVersion, 'example.com/v1');
    assert.equal(obj.kind, 'Widget');
    assert.equal(obj.metadata.uid, stored.metadata.uid);
    assert.equal(obj.metadata.resourceVersion, stored.metadata.resourceVersion);
    assert.equal(obj.metadata.namespace, 'default');
    assert.match(String(obj.metadata.creationTimestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.deepEqual(obj.spec, { color: 'blue', replicas: 2, size: 'small' });
    assert.deepEqual(obj.status, { phase: 'Ready', replicas: 2, selector: 'app=widgets' });
  });

  test('scale goes through the scale subresource', async () => {
    const before = widget('alpha')!;
    sim.audit.clear();
    assert.match(
      await ok(['scale', 'widget', 'alpha', '--replicas=5']),
      /widget\.example\.com\/alpha scaled/,
    );
    const w = widget('alpha')!;
    assert.equal(spec(w).replicas, 5);
    assert.equal(w.metadata.generation, (before.metadata.generation ?? 0) + 1);
    assert.deepEqual(w.status, before.status, 'status untouched by a scale');
    const scaleWrites = sim.audit
      .query({ resource: 'widgets', subresource: 'scale' })
      .filter((e) => e.verb === 'patch' || e.verb === 'update');
    assert.equal(scaleWrites.length, 1, 'one write to widgets/scale');
    assert.equal(scaleWrites[0]?.code, 200);
    const scale = JSON.parse(
      await ok(['get', 'widget', 'alpha', '--subresource=scale', '-o', 'json']),
    ) as KubeObject & { spec: { replicas: number }; status: { replicas: number; selector?: string } };
    assert.equal(scale.apiVersion, 'autoscaling/v1');
    assert.equal(scale.kind, 'Scale');
    assert.equal(scale.spec.replicas, 5);
    assert.equal(scale.status.replicas, 2);
    assert.equal(scale.status.selector, 'app=widgets');
  });

  test('patch --type=merge and --type=json', async () => {
    const g0 = widget('alpha')!.metadata.generation ?? 0;
    assert.match(
      await ok(['patch', 'widget', 'alpha', '--type=merge', '-p', '{"spec":{"size":"medium"}}']),
      /widget\.example\.com\/alpha patched/,
    );
    assert.equal(spec(widget('alpha')).size, 'medium');
    assert.match(
      await ok([
        'patch',
        'widget',
        'alpha',
        '--type=json',
        '-p',
        '[{"op":"add","path":"/spec/tags","value":["shiny"]},{"op":"replace","path":"/spec/replicas","value":3}]',
      ]),
      /widget\.example\.com\/alpha patched/,
    );
    const w = widget('alpha')!;
    assert.deepEqual(spec(w), { color: 'blue', replicas: 3, size: 'medium', tags: ['shiny'] });
    assert.equal(w.metadata.generation, g0 + 2);
    // A JSON patch whose test fails changes nothing and is refused.
    const rv = w.metadata.resourceVersion;
    const failed = await kubectl([
      'patch',
      'widget',
      'alpha',
      '--type=json',
      '-p',
      '[{"op":"test","path":"/spec/size","value":"large"},{"op":"replace","path":"/spec/size","value":"small"}]',
    ]);
    // As kube-apiserver: 422 with the generic message (the failed test is in the Status causes).
    assert.equal(failed.code, 1);
    assert.match(failed.stderr, /The request is invalid: the server rejected our request/);
    const patches = sim.audit.query({ resource: 'widgets', verb: 'patch', name: 'alpha' });
    assert.equal(patches.at(-1)?.code, 422);
    assert.equal(widget('alpha')!.metadata.resourceVersion, rv);
  });

  test('label and annotate change metadata only', async () => {
    const g0 = widget('alpha')!.metadata.generation;
    assert.match(await ok(['label', 'widget', 'alpha', 'env=test']), /widget\.example\.com\/alpha labeled/);
    assert.match(
      await ok(['annotate', 'widget', 'alpha', 'example.com/note=hello world']),
      /widget\.example\.com\/alpha annotated/,
    );
    const w = widget('alpha')!;
    assert.deepEqual(w.metadata.labels, { app: 'widgets', env: 'test' });
    assert.equal(w.metadata.annotations?.['example.com/note'], 'hello world');
    assert.equal(w.metadata.generation, g0, 'metadata changes do not bump generation');
    // Overwriting needs --overwrite, as in Kubernetes.
    const clash = await kubectl(['label', 'widget', 'alpha', 'env=prod']);
    assert.notEqual(clash.code, 0);
    assert.match(clash.stderr, /already has a value \(test\)/);
    await ok(['label', 'widget', 'alpha', 'env-']);
    assert.deepEqual(widget('alpha')!.metadata.labels, { app: 'widgets' });
  });

  test('edit (with EDITOR) changes the object through a patch', async () => {
    const before = widget('alpha')!;
    const r = await kubectl(['edit', 'widget', 'alpha'], {
      env: { EDITOR: `sed -i -e s/size:\\ medium/size:\\ small/`, KUBE_EDITOR: '' },
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /widget\.example\.com\/alpha edited/);
    const after = widget('alpha')!;
    assert.equal(spec(after).size, 'small');
    assert.equal(after.metadata.generation, (before.metadata.generation ?? 0) + 1);
    await ok(['patch', 'widget', 'alpha', '--type=merge', '-p', '{"spec":{"size":"medium"}}']);
  });

  test('a second apply takes the update path (three-way merge)', async () => {
    const before = widget('alpha')!;
    const out = await ok(['apply', '-f', join(FIXTURES, 'widget-updated.yaml')]);
    assert.match(out, /^widget\.example\.com\/alpha configured$/m);
    const w = widget('alpha')!;
    assert.equal(w.metadata.uid, before.metadata.uid, 'same object');
    // color/size from the new manifest; replicas was in the last applied manifest and is not any more, so
    // apply removes it and the schema default (1) comes back; tags were never applied, so they stay.
    assert.deepEqual(spec(w), { color: 'green', replicas: 1, size: 'large', tags: ['shiny'] });
    assert.deepEqual(w.metadata.labels, { app: 'widgets', tier: 'gold' });
    assert.equal(w.metadata.annotations?.['example.com/note'], 'hello world', 'imperative annotation kept');
    assert.deepEqual(w.status, before.status, 'an update of the main resource keeps status');
    assert.ok(Number(w.metadata.resourceVersion) > Number(before.metadata.resourceVersion));
    // Applying the same manifest again changes nothing.
    const again = await ok(['apply', '-f', join(FIXTURES, 'widget-updated.yaml')]);
    assert.match(again, /^widget\.example\.com\/alpha unchanged$/m);
    assert.equal(widget('alpha')!.metadata.resourceVersion, w.metadata.resourceVersion);
  });

  test('diff and apply --dry-run=server show the change and store nothing', async () => {
    const before = widget('alpha')!;
    const d = await kubectl(['diff', '-f', join(FIXTURES, 'widget.yaml')]);
    assert.equal(d.code, 1, `kubectl diff exits 1 when there are differences:\n${d.stderr}`);
    assert.match(d.stdout, /^-\s+color: green$/m);
    assert.match(d.stdout, /^\+\s+color: blue$/m);
    assert.match(d.stdout, /^-\s+tier: gold$/m);
    const dry = await ok(['apply', '--dry-run=server', '-f', join(FIXTURES, 'widget.yaml')]);
    assert.match(dry, /widget\.example\.com\/alpha configured \(server dry run\)/);
    const after = widget('alpha')!;
    assert.equal(after.metadata.resourceVersion, before.metadata.resourceVersion, 'nothing stored');
    assert.deepEqual(after.spec, before.spec);
    const same = await kubectl(['diff', '-f', join(FIXTURES, 'widget-updated.yaml')]);
    assert.equal(same.code, 0, `no differences:\n${same.stdout}${same.stderr}`);
  });

  test('an invalid object: kubectl prints the 422 naming the field; nothing is stored', async () => {
    const r = await kubectl(['apply', '-f', join(FIXTURES, 'widget-invalid.yaml')]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /The Widget "broken" is invalid: spec\.replicas: Invalid value: 42/);
    assert.match(r.stderr, /less than or equal to 10/);
    assert.equal(widget('broken'), undefined);
    const invalidAudit = sim.audit.query({ resource: 'widgets', code: 422 });
    assert.ok(invalidAudit.length >= 1, 'the server answered 422');

    // An enum violation through a patch.
    const p = await kubectl(['patch', 'widget', 'alpha', '--type=merge', '-p', '{"spec":{"size":"huge"}}']);
    assert.equal(p.code, 1);
    assert.match(p.stderr, /spec\.size: Unsupported value: "huge"/);
    assert.match(p.stderr, /"small", "medium", "large"/);
    assert.equal(spec(widget('alpha')).size, 'large');

    // A missing required field and a pattern mismatch, both reported.
    const bad = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'nocolor' },
      spec: { replicas: 1, tags: ['a', 'b', 'c', 'd', 'e', 'f'] },
    };
    const c = await kubectl(['create', '-f', '-'], { input: JSON.stringify(bad) });
    assert.equal(c.code, 1);
    assert.match(c.stderr, /spec\.color: Required value/);
    assert.match(c.stderr, /spec\.tags: Too many: 6: must have at most 5 items/);

    // Server-side field validation (kubectl's default --validate=strict): an unknown field is named.
    const unknown = { ...bad, metadata: { name: 'typo' }, spec: { color: 'red', colour: 'red' } };
    const u = await kubectl(['apply', '-f', '-'], { input: JSON.stringify(unknown) });
    assert.equal(u.code, 1);
    assert.match(u.stderr, /unknown field "spec\.colour"/);
    assert.equal(widget('typo'), undefined);
    // With --validate=false the unknown field is pruned and the object stored.
    await ok(['apply', '--validate=false', '-f', '-'], JSON.stringify(unknown));
    assert.deepEqual(spec(widget('typo')), { color: 'red', replicas: 1, size: 'small' });
    await ok(['delete', 'widget', 'typo']);
  });

  test('explain describes the custom resource from its schema', async () => {
    const out = await ok(['explain', 'widgets.spec']);
    assert.match(out, /KIND:\s+Widget/);
    assert.match(out, /VERSION:\s+v1/);
    assert.match(out, /The desired state of the Widget\./);
    assert.match(out, /color\s+<string> -required-/);
    assert.match(out, /replicas\s+<integer>/);
    assert.match(out, /enum: small, medium, large/);
    const top = await ok(['explain', 'widget']);
    assert.match(top, /A Widget is a made-up resource for testing controllers\./);
  });

  test('describe shows the events of the object', async () => {
    const w = widget('alpha')!;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    sim.cluster.create('events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'alpha.polished', namespace: 'default' },
      involvedObject: {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        name: 'alpha',
        namespace: 'default',
        uid: w.metadata.uid ?? '',
      },
      reason: 'Polished',
      message: 'the widget was polished to a shine',
      type: 'Normal',
      source: { component: 'widget-controller' },
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
    });
    // An event of another object must not show.
    sim.cluster.create('events', {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'other.event', namespace: 'default' },
      involvedObject: { apiVersion: 'example.com/v1', kind: 'Widget', name: 'other', namespace: 'default' },
      reason: 'Unrelated',
      message: 'not about alpha',
      type: 'Warning',
      count: 1,
      firstTimestamp: now,
      lastTimestamp: now,
    });
    const out = await ok(['describe', 'widget', 'alpha']);
    assert.match(out, /^Name:\s+alpha$/m);
    assert.match(out, /^Kind:\s+Widget$/m);
    assert.match(out, /^Events:\n\s+Type\s+Reason\s+Age\s+From\s+Message/m);
    assert.match(out, /Normal\s+Polished\s+\S+\s+widget-controller\s+the widget was polished to a shine/);
    assert.doesNotMatch(out, /Unrelated/);
    const events = await ok(['get', 'events', '--field-selector', 'involvedObject.name=alpha']);
    assert.match(events, /Polished/);
    assert.doesNotMatch(events, /Unrelated/);
  });

  test('get -w sees a change', async () => {
    const child = spawn(
      'kubectl',
      ['--kubeconfig', sim.kubeconfigPath, '--cache-dir', cacheDir, 'get', 'widgets', '-w'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.add(child);
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (err += d));
    const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
    try {
      await waitFor(`initial row (got: ${out}${err})`, () => /^alpha\s+1\s+large\s+Ready/m.test(out));
      await ok(['scale', 'widget', 'alpha', '--replicas=7']);
      await waitFor(`the scaled row (got: ${out}${err})`, () => /^alpha\s+7\s+large\s+Ready/m.test(out));
      // A new object appears in the same watch.
      const beta = {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'beta' },
        spec: { color: 'red', replicas: 4 },
      };
      await ok(['create', '-f', '-'], JSON.stringify(beta));
      await waitFor(`the new row (got: ${out}${err})`, () => /^beta\s+4\s+small\s+/m.test(out));
      assert.equal(child.exitCode, null, 'the watch is still open');
      assert.ok(sim.audit.query({ resource: 'widgets', verb: 'list' }).length >= 1, 'kubectl listed first');
    } finally {
      child.kill('SIGTERM');
      await exited;
      children.delete(child);
    }
  });
});
