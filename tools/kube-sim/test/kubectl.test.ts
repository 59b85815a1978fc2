// Acceptance: the real kubectl (v1.32, on PATH) against kube-sim, through the kubeconfig startKubeSim writes.
// Uses a generic Widget CRD (test/fixtures), not the project's own, so it doubles as an example for anyone
// testing their controllers on kube-sim. Each step asserts on kubectl's output AND on the server's state.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startKubeSim, type KubeObject, type KubeSim } from '../src/index.ts';
import { kubectl as runKubectl, waitFor } from '@podset/testkit';

const FIXTURES = join(import.meta.dirname, 'fixtures');
const WIDGETS = 'widgets.example.com';

type Spec = { replicas?: number; size?: string; color?: string; tags?: string[] };
const spec = (o: KubeObject | undefined): Spec => (o?.spec ?? {}) as Spec;

describe('kubectl against kube-sim', () => {
  let sim: KubeSim;
  let cacheDir: string;
  const children = new Set<ChildProcess>();

  /** Runs kubectl; never throws on a non-zero exit (the test asserts on code/stdout/stderr). */
  function kubectl(
    args: string[],
    opts: { input?: string; timeoutMs?: number; env?: Record<string, string> } = {},
  ) {
    return runKubectl(args, {
      kubeconfig: sim.kubeconfigPath,
      cacheDir,
      allowFail: true,
      timeoutMs: opts.timeoutMs ?? 30_000,
      ...(opts.input === undefined ? {} : { input: opts.input }),
      ...(opts.env === undefined ? {} : { env: opts.env }),
    });
  }

  /** Runs kubectl and fails the test (showing stderr) unless it exits 0. */
  async function ok(args: string[], input?: string): Promise<string> {
    const r = await kubectl(args, input === undefined ? {} : { input });
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}:\n${r.stderr}${r.stdout}`);
    return r.stdout;
  }

  const widget = (name: string): KubeObject | undefined => sim.cluster.get(WIDGETS, 'default', name);

  before(async () => {
    cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));
    sim = await startKubeSim({
      controllerOptions: {
        podLifecycle: 'fast',
        startupDelayMs: 0,
        startupJitterMs: 50,
        containerExitMs: 50,
      },
    });
  });

  after(async () => {
    for (const c of children) c.kill('SIGKILL');
    await sim?.close();
    rmSync(cacheDir, { recursive: true, force: true });
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

  test('delete --cascade=orphan keeps the dependents without the ownerReference', async () => {
    const owner = widget('alpha')!;
    const ownerRef = {
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      name: 'alpha',
      uid: owner.metadata.uid ?? '',
      controller: true,
      blockOwnerDeletion: true,
    };
    for (const name of ['alpha-config-1', 'alpha-config-2']) {
      sim.cluster.create('configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name, namespace: 'default', ownerReferences: [ownerRef] },
        data: { owner: 'alpha' },
      });
    }
    const out = await ok(['delete', 'widget', 'alpha', '--cascade=orphan']);
    assert.match(out, /widget\.example\.com "alpha" deleted/);
    await waitFor('alpha gone', () => !widget('alpha'));
    for (const name of ['alpha-config-1', 'alpha-config-2']) {
      const cm = sim.cluster.get('configmaps', 'default', name);
      assert.ok(cm, `${name} still lives`);
      assert.equal(cm.metadata.ownerReferences, undefined, `${name} has no ownerReference left`);
    }
    const cms = await ok(['get', 'configmaps', '-o', 'name']);
    assert.match(cms, /configmap\/alpha-config-1/);
    const audit = sim.audit.query({ resource: 'widgets', verb: 'delete', name: 'alpha' });
    assert.equal(audit.at(-1)?.code, 200);
  });

  test('delete without --cascade garbage-collects the dependents (background and foreground)', async () => {
    for (const [owner, cascade] of [
      ['beta', undefined],
      ['gamma', 'foreground'],
    ] as const) {
      if (!widget(owner)) {
        sim.cluster.create(WIDGETS, {
          apiVersion: 'example.com/v1',
          kind: 'Widget',
          metadata: { name: owner, namespace: 'default' },
          spec: { color: 'red' },
        });
      }
      const uid = widget(owner)!.metadata.uid ?? '';
      const ref = {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        name: owner,
        uid,
        blockOwnerDeletion: true,
      };
      sim.cluster.create('configmaps', {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: `${owner}-config`, namespace: 'default', ownerReferences: [ref] },
      });
      sim.cluster.create('pods', {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: `${owner}-pod`, namespace: 'default', ownerReferences: [ref] },
        spec: { containers: [{ name: 'c', image: 'busybox' }] },
      });
      const args = ['delete', 'widget', owner, ...(cascade ? [`--cascade=${cascade}`] : [])];
      assert.match(await ok(args), new RegExp(`widget\\.example\\.com "${owner}" deleted`));
      await waitFor(
        `${owner} and its dependents gone`,
        () =>
          !widget(owner) &&
          !sim.cluster.get('configmaps', 'default', `${owner}-config`) &&
          !sim.cluster.get('pods', 'default', `${owner}-pod`),
      );
    }
    // The orphans of the previous test were not touched by this GC.
    assert.ok(sim.cluster.get('configmaps', 'default', 'alpha-config-1'));
    const left = await kubectl(['get', 'widgets']);
    assert.match(left.stderr, /No resources found/);
  });

  test('run a pod and see it Running in get pods', async () => {
    assert.match(await ok(['run', 'web', '--image=nginx:1.27', '--labels=app=web']), /^pod\/web created$/m);
    await ok(['wait', '--for=condition=Ready', '--timeout=20s', 'pod/web']);
    const out = await ok(['get', 'pods', '-l', 'app=web']);
    const [header, row] = out.trimEnd().split('\n');
    assert.match(header ?? '', /^NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE$/);
    assert.match(row ?? '', /^web\s+1\/1\s+Running\s+0\s+\d+s$/);
    const pod = sim.cluster.get('pods', 'default', 'web')!;
    assert.equal((pod.status as { phase?: string }).phase, 'Running');
    assert.match(String((pod.spec as { nodeName?: string }).nodeName), /^sim-node-/);
    const wide = await ok(['get', 'pod', 'web', '-o', 'wide']);
    assert.match(wide, /sim-node-\d/);
    // Deleting shows it Terminating, then it is gone.
    await ok(['delete', 'pod', 'web', '--wait=true', '--timeout=20s']);
    assert.equal(sim.cluster.get('pods', 'default', 'web'), undefined);
  });

  test('kubectl create of built-in kinds (kubectl sends these as protobuf)', async () => {
    await ok(['create', 'namespace', 'made']);
    const cmds: [string[], string, string, string][] = [
      [
        ['create', 'deployment', 'd1', '--image=nginx:1.27', '--replicas=2'],
        'deployment.apps/d1 created',
        'deployments.apps',
        'd1',
      ],
      [['create', 'service', 'clusterip', 's1', '--tcp=80:8080'], 'service/s1 created', 'services', 's1'],
      [
        ['create', 'role', 'r1', '--verb=get,list', '--resource=pods'],
        'role.rbac.authorization.k8s.io/r1 created',
        'roles.rbac.authorization.k8s.io',
        'r1',
      ],
      [
        ['create', 'rolebinding', 'rb1', '--role=r1', '--user=jane'],
        'rolebinding.rbac.authorization.k8s.io/rb1 created',
        'rolebindings.rbac.authorization.k8s.io',
        'rb1',
      ],
      [['create', 'job', 'j1', '--image=busybox:1.36'], 'job.batch/j1 created', 'jobs.batch', 'j1'],
      [
        ['create', 'secret', 'generic', 'sec1', '--from-literal=password=s3cret'],
        'secret/sec1 created',
        'secrets',
        'sec1',
      ],
      [['create', 'configmap', 'cm1', '--from-literal=a=b'], 'configmap/cm1 created', 'configmaps', 'cm1'],
      [['create', 'serviceaccount', 'sa1'], 'serviceaccount/sa1 created', 'serviceaccounts', 'sa1'],
    ];
    const failures: string[] = [];
    for (const [args, expected, resource, name] of cmds) {
      const r = await kubectl([...args, '-n', 'made']);
      if (r.code !== 0 || !r.stdout.includes(expected)) {
        failures.push(`kubectl ${args.join(' ')}: ${r.stderr.trim() || r.stdout.trim()}`);
        continue;
      }
      if (!sim.cluster.get(resource, 'made', name)) failures.push(`${resource}/${name} not stored`);
    }
    assert.deepEqual(failures, []);
    const d1 = sim.cluster.get('deployments.apps', 'made', 'd1')!;
    assert.equal((d1.spec as { replicas?: number }).replicas, 2);
    const sec = sim.cluster.get('secrets', 'made', 'sec1')!;
    assert.equal((sec.data as Record<string, string>).password, Buffer.from('s3cret').toString('base64'));
  });

  test('RBAC: a ServiceAccount token (kubectl create token) can do what its Role allows, nothing more', async () => {
    assert.equal((await ok(['auth', 'can-i', 'create', 'pods'])).trim(), 'yes', 'admin can');
    await ok(['create', 'serviceaccount', 'bot']);
    const token = (await ok(['create', 'token', 'bot'])).trim();
    assert.ok(token.length > 10);
    const asBot = (args: string[]) => kubectl(['--token', token, ...args]);
    const denied = await asBot(['get', 'pods']);
    assert.equal(denied.code, 1);
    assert.match(
      denied.stderr,
      /pods is forbidden: User "system:serviceaccount:default:bot" cannot list resource "pods" in API group "" in the namespace "default"/,
    );
    assert.match((await asBot(['auth', 'can-i', 'list', 'pods'])).stdout, /^no/);
    await ok(['create', 'role', 'pod-reader', '--verb=get,list,watch', '--resource=pods']);
    await ok(['create', 'rolebinding', 'bot-reads', '--role=pod-reader', '--serviceaccount=default:bot']);
    assert.equal((await asBot(['auth', 'can-i', 'list', 'pods'])).stdout.trim(), 'yes');
    const allowed = await asBot(['get', 'pods']);
    assert.equal(allowed.code, 0, allowed.stderr);
    const write = await asBot(['create', 'configmap', 'from-bot']);
    assert.equal(write.code, 1);
    assert.match(
      write.stderr,
      /configmaps is forbidden: User "system:serviceaccount:default:bot" cannot create/,
    );
    assert.equal(sim.cluster.get('configmaps', 'default', 'from-bot'), undefined);
    const audit = sim.audit.query({ user: 'system:serviceaccount:default:bot', code: 403 });
    assert.ok(audit.length >= 2, 'the audit names the ServiceAccount');
  });

  test('apply -k of a small kustomization (Deployment, Service, ConfigMap, ServiceAccount, Role)', async () => {
    const dir = join(FIXTURES, 'kustomize');
    const out = await ok(['apply', '-k', dir]);
    for (const line of [
      'namespace/shop created',
      'serviceaccount/shop created',
      'role.rbac.authorization.k8s.io/shop-reader created',
      'rolebinding.rbac.authorization.k8s.io/shop-reader created',
      'configmap/shop-config created',
      'service/shop created',
      'deployment.apps/shop created',
    ]) {
      assert.ok(out.includes(line), `"${line}" in:\n${out}`);
    }
    const get = (resource: string, name: string) => sim.cluster.get(resource, 'shop', name);
    for (const [resource, name] of [
      ['serviceaccounts', 'shop'],
      ['roles.rbac.authorization.k8s.io', 'shop-reader'],
      ['rolebindings.rbac.authorization.k8s.io', 'shop-reader'],
      ['configmaps', 'shop-config'],
      ['services', 'shop'],
      ['deployments.apps', 'shop'],
    ] as const) {
      const o = get(resource, name);
      assert.ok(o, `${resource}/${name} stored in namespace shop`);
      assert.equal(o.metadata.labels?.['app.kubernetes.io/part-of'], 'shop', `${resource} labelled`);
    }
    // The Deployment controller writes the Deployment (revision, status) until it has rolled out.
    await waitFor('the Deployment rolled out', () =>
      (
        (get('deployments.apps', 'shop')?.status as { conditions?: { reason?: string }[] } | undefined)
          ?.conditions ?? []
      ).some((c) => c.reason === 'NewReplicaSetAvailable'),
    );
    const deploy = get('deployments.apps', 'shop')!;
    assert.equal((deploy.spec as { replicas?: number }).replicas, 2);
    // The same kustomization again: nothing changes.
    const again = await ok(['apply', '-k', dir]);
    assert.doesNotMatch(again, /created|configured/, again);
    assert.match(again, /deployment\.apps\/shop unchanged/);
    assert.equal(get('deployments.apps', 'shop')!.metadata.resourceVersion, deploy.metadata.resourceVersion);
    const listed = await ok(['get', 'deploy,svc,cm,sa,role', '-n', 'shop', '-o', 'name']);
    for (const n of [
      'deployment.apps/shop',
      'service/shop',
      'configmap/shop-config',
      'serviceaccount/shop',
      'role.rbac.authorization.k8s.io/shop-reader',
    ]) {
      assert.ok(listed.includes(n), `${n} listed`);
    }
    // delete -k removes everything (kubectl waits for the namespace to be gone). kustomize puts the Namespace
    // first; as on a cluster, the namespace controller starts emptying it only after a few seconds, so
    // kubectl's own deletes of what is in it find every object still there: no NotFound, exit 0.
    const del = await kubectl(['delete', '-k', dir, '--timeout=60s'], { timeoutMs: 90_000 });
    assert.equal(del.code, 0, `kubectl delete -k exited ${del.code}:\n${del.stderr}${del.stdout}`);
    assert.doesNotMatch(del.stderr, /NotFound/, del.stderr);
    const deleted = del.stdout;
    assert.match(deleted, /namespace "shop" deleted/);
    assert.match(deleted, /deployment\.apps "shop" deleted/);
    assert.equal(sim.cluster.get('namespaces', undefined, 'shop'), undefined);
    assert.equal(sim.cluster.list('deployments.apps', 'shop').length, 0);
    assert.equal(sim.cluster.list('configmaps', 'shop').length, 0);
  });

  test('a client-side apply whose last-applied copy passes 256 KiB of annotations is refused; server-side applies it', async () => {
    const big = {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'big', namespace: 'default' },
      data: { blob: 'x'.repeat(300 * 1024) },
    };
    const client = await kubectl(['apply', '-f', '-'], { input: JSON.stringify(big) });
    assert.notEqual(client.code, 0, client.stdout);
    assert.match(client.stderr, /metadata\.annotations: Too long: must have at most 262144 bytes/);
    assert.equal(sim.cluster.get('configmaps', 'default', 'big'), undefined, 'nothing stored');
    await ok(['apply', '--server-side', '-f', '-'], JSON.stringify(big));
    assert.ok(sim.cluster.get('configmaps', 'default', 'big'), 'stored by the server-side apply');
    await ok(['delete', 'configmap', 'big']);
  });
});
