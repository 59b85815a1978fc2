// What kubectl reads back of minimal workload manifests is what a v1.32 API server stores (its defaults,
// the Job's generated selector, the zero status), and invalid workloads and pod updates are refused with
// the API server's own words.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useKubeSim } from './support/sim-kubectl.ts';

// What the API server stores, before any controller writes status: the workload controllers stay off.
const k = useKubeSim('defaults', {
  controllerOptions: {
    podLifecycle: false,
    deploymentController: false,
    replicaSetController: false,
    statefulSetController: false,
    jobController: false,
  },
});
const { kubectl } = k;
const kubectlWith = k.withManifest;

type Obj = Record<string, unknown>;
async function getJson(kind: string, name: string): Promise<Obj> {
  const r = await kubectl(['get', kind, name, '-o', 'json']);
  assert.equal(r.code, 0, r.stderr);
  return JSON.parse(r.stdout) as Obj;
}

const container = { name: 'web', image: 'nginx:1.27', ports: [{ containerPort: 80 }] };
const template = (labels: Record<string, string>, extra: Obj = {}) => ({
  metadata: { labels },
  spec: { containers: [container], ...extra },
});
// The pod template a real server stores for `template({ app: 'web' })`.
const storedTemplate = (labels: Record<string, string>, extra: Obj = {}) => ({
  metadata: { creationTimestamp: null, labels },
  spec: {
    containers: [
      {
        name: 'web',
        image: 'nginx:1.27',
        ports: [{ containerPort: 80, protocol: 'TCP' }],
        imagePullPolicy: 'IfNotPresent',
        terminationMessagePath: '/dev/termination-log',
        terminationMessagePolicy: 'File',
        resources: {},
      },
    ],
    restartPolicy: 'Always',
    terminationGracePeriodSeconds: 30,
    dnsPolicy: 'ClusterFirst',
    schedulerName: 'default-scheduler',
    securityContext: {},
    ...extra,
  },
});

test('a minimal Deployment gets the defaults and the empty status a real server stores', async () => {
  const r = await kubectlWith(['create'], {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: { selector: { matchLabels: { app: 'web' } }, template: template({ app: 'web' }) },
  });
  assert.equal(r.code, 0, r.stderr);
  const d = await getJson('deployment', 'web');
  assert.deepEqual(d.spec, {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: storedTemplate({ app: 'web' }),
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } },
    revisionHistoryLimit: 10,
    progressDeadlineSeconds: 600,
  });
  assert.deepEqual(d.status, {});
});

test('a Job gets a generated selector, the job labels on its template and itself, and its defaults', async () => {
  const r = await kubectlWith(['create'], {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'pi' },
    spec: {
      template: { spec: { containers: [{ name: 'pi', image: 'perl:5.34.0' }], restartPolicy: 'Never' } },
    },
  });
  assert.equal(r.code, 0, r.stderr);
  const j = await getJson('job', 'pi');
  const uid = (j.metadata as Obj).uid as string;
  const labels = {
    'batch.kubernetes.io/controller-uid': uid,
    'batch.kubernetes.io/job-name': 'pi',
    'controller-uid': uid,
    'job-name': 'pi',
  };
  assert.deepEqual((j.metadata as Obj).labels, labels);
  const spec = j.spec as Obj;
  assert.deepEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
  assert.deepEqual((spec.template as Obj).metadata, { creationTimestamp: null, labels });
  assert.equal(((spec.template as Obj).spec as Obj).restartPolicy, 'Never');
  assert.equal(
    (((spec.template as Obj).spec as Obj).containers as Obj[])[0]?.imagePullPolicy,
    'IfNotPresent',
  );
  const { template: _t, selector: _s, ...rest } = spec;
  assert.deepEqual(rest, {
    parallelism: 1,
    completions: 1,
    backoffLimit: 6,
    completionMode: 'NonIndexed',
    suspend: false,
    podReplacementPolicy: 'TerminatingOrFailed',
  });
  assert.deepEqual(j.status, {});

  // A copy of it (its selector and labels naming the first Job's uid) is not a Job of its own.
  const { uid: _u, resourceVersion: _r, creationTimestamp: _c, ...meta } = j.metadata as Obj;
  const copy = await kubectlWith(['create'], {
    ...j,
    metadata: { ...meta, name: 'pi-copy' },
    status: undefined,
  });
  assert.notEqual(copy.code, 0);
  const causes = copy.stderr.trim().split('\n* ').slice(1);
  assert.equal(causes.length, 5, copy.stderr);
  assert.match(
    causes[0]!,
    /^spec\.template\.metadata\.labels\[controller-uid\]: Invalid value: map\[string\]string\{.*\}: must be '[-0-9a-f]{36}'$/,
  );
  assert.match(
    causes[1]!,
    /^spec\.template\.metadata\.labels\[job-name\]: Invalid value: map\[string\]string\{.*\}: must be 'pi-copy'$/,
  );
  assert.equal(
    causes[4],
    `spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":"${uid}"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: \`selector\` not auto-generated`,
  );
});

test('a StatefulSet, a DaemonSet and a PVC get their defaults and status', async () => {
  const sts = await kubectlWith(['create'], {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db' },
    spec: {
      serviceName: 'db',
      selector: { matchLabels: { app: 'db' } },
      template: template({ app: 'db' }),
      volumeClaimTemplates: [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
        },
      ],
    },
  });
  assert.equal(sts.code, 0, sts.stderr);
  const s = await getJson('statefulset', 'db');
  const { template: st, volumeClaimTemplates, ...spec } = s.spec as Obj;
  assert.deepEqual(st, storedTemplate({ app: 'db' }));
  assert.deepEqual(spec, {
    serviceName: 'db',
    selector: { matchLabels: { app: 'db' } },
    podManagementPolicy: 'OrderedReady',
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    persistentVolumeClaimRetentionPolicy: { whenDeleted: 'Retain', whenScaled: 'Retain' },
    replicas: 1,
    revisionHistoryLimit: 10,
  });
  assert.deepEqual(volumeClaimTemplates, [
    {
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { creationTimestamp: null, name: 'data' },
      spec: {
        accessModes: ['ReadWriteOnce'],
        resources: { requests: { storage: '1Gi' } },
        volumeMode: 'Filesystem',
      },
      status: { phase: 'Pending' },
    },
  ]);
  assert.deepEqual(s.status, { replicas: 0, availableReplicas: 0 });

  const ds = await kubectlWith(['create'], {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: 'agent' },
    spec: { selector: { matchLabels: { app: 'agent' } }, template: template({ app: 'agent' }) },
  });
  assert.equal(ds.code, 0, ds.stderr);
  const d = await getJson('daemonset', 'agent');
  assert.deepEqual((d.spec as Obj).updateStrategy, {
    type: 'RollingUpdate',
    rollingUpdate: { maxUnavailable: 1, maxSurge: 0 },
  });
  assert.equal((d.spec as Obj).revisionHistoryLimit, 10);
  assert.deepEqual(d.status, {
    currentNumberScheduled: 0,
    numberMisscheduled: 0,
    desiredNumberScheduled: 0,
    numberReady: 0,
  });

  const pvc = await kubectlWith(['create'], {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: 'claim' },
    spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } },
  });
  assert.equal(pvc.code, 0, pvc.stderr);
  const p = await getJson('pvc', 'claim');
  assert.equal((p.spec as Obj).volumeMode, 'Filesystem');
  assert.deepEqual(p.status, { phase: 'Pending' });
});

test("invalid workloads: kubectl prints the API server's causes and nothing is stored", async () => {
  const deployment = (name: string, spec: Obj) => ({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec,
  });
  const cases: [string, Obj, string][] = [
    [
      'no-selector',
      deployment('no-selector', { template: template({ app: 'a' }) }),
      'The Deployment "no-selector" is invalid: \n* spec.selector: Required value\n* spec.template.metadata.labels: Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
    ],
    [
      'mismatch',
      deployment('mismatch', { selector: { matchLabels: { app: 'b' } }, template: template({ app: 'a' }) }),
      'The Deployment "mismatch" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"a"}: `selector` does not match template `labels`',
    ],
    [
      'negative',
      deployment('negative', {
        replicas: -1,
        selector: { matchLabels: { app: 'a' } },
        template: { metadata: { labels: { app: 'a' } }, spec: { containers: [{ name: 'Web', image: 'x' }] } },
      }),
      `The Deployment "negative" is invalid: \n* spec.replicas: Invalid value: -1: must be greater than or equal to 0\n* spec.template.spec.containers[0].name: Invalid value: "Web": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ],
    [
      'always-job',
      {
        apiVersion: 'batch/v1',
        kind: 'Job',
        metadata: { name: 'always-job' },
        spec: { template: { spec: { containers: [{ name: 'a', image: 'x' }] } } },
      },
      'The Job "always-job" is invalid: spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    ],
  ];
  for (const [name, manifest, message] of cases) {
    const r = await kubectlWith(['apply'], manifest);
    assert.notEqual(r.code, 0, `${name} is refused`);
    assert.equal(r.stderr.trim(), message, name);
    const kind = (manifest.kind as string).toLowerCase();
    const get = await kubectl(['get', kind, name]);
    assert.notEqual(get.code, 0, `${name} is not stored`);
  }
});

test('a Deployment selector and a Job template are immutable; a StatefulSet spec only changes where allowed', async () => {
  const r = await kubectlWith(['apply'], {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'fixed' },
    spec: { selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a', tier: 'x' }) },
  });
  assert.equal(r.code, 0, r.stderr);
  const changed = await kubectlWith(['apply'], {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'fixed' },
    spec: { selector: { matchLabels: { tier: 'x' } }, template: template({ app: 'a', tier: 'x' }) },
  });
  assert.notEqual(changed.code, 0);
  assert.equal(
    changed.stderr.trim(),
    'The Deployment "fixed" is invalid: spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
  );
  const scaled = await kubectl(['scale', 'deployment', 'fixed', '--replicas=3']);
  assert.equal(scaled.code, 0, scaled.stderr);
  // The defaulted rollingUpdate stays when only the type changes, as on a real server.
  const recreate = await kubectl([
    'patch',
    'deployment',
    'fixed',
    '-p',
    '{"spec":{"strategy":{"type":"Recreate"}}}',
  ]);
  assert.equal(
    recreate.stderr.trim(),
    `The Deployment "fixed" is invalid: spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy \`type\` is 'Recreate'`,
  );
  const retained = await kubectl([
    'patch',
    'deployment',
    'fixed',
    '-p',
    '{"spec":{"strategy":{"$retainKeys":["type"],"type":"Recreate"}}}',
  ]);
  assert.equal(retained.code, 0, retained.stderr);
  assert.deepEqual(((await getJson('deployment', 'fixed')).spec as Obj).strategy, { type: 'Recreate' });

  const sts = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'frozen' },
    spec: { serviceName: 'a', selector: { matchLabels: { app: 'a' } }, template: template({ app: 'a' }) },
  };
  assert.equal((await kubectlWith(['apply'], sts)).code, 0);
  const renamed = await kubectlWith(['apply'], { ...sts, spec: { ...sts.spec, serviceName: 'b' } });
  assert.equal(
    renamed.stderr.trim(),
    `The StatefulSet "frozen" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden`,
  );
  const rescaled = await kubectlWith(['apply'], { ...sts, spec: { ...sts.spec, replicas: 2 } });
  assert.equal(rescaled.code, 0, rescaled.stderr);

  const job = (image: string) => ({
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: 'once-only' },
    spec: {
      template: { spec: { containers: [{ name: 'a', image }], restartPolicy: 'Never' } },
    },
  });
  assert.equal((await kubectlWith(['apply'], job('busybox:1.36'))).code, 0);
  const rerun = await kubectlWith(['apply'], job('busybox:1.37'));
  assert.match(
    rerun.stderr,
    /^The Job "once-only" is invalid: spec\.template: Invalid value: core\.PodTemplateSpec\{.*\}: field is immutable$/m,
  );
});

test("a pod's image may change, its other spec fields may not", async () => {
  const pod = (image: string, extra: Obj = {}) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'app', image, ...extra }] },
  });
  assert.equal((await kubectlWith(['apply'], pod('nginx:1.26'))).code, 0);
  const image = await kubectlWith(['apply'], pod('nginx:1.27'));
  assert.equal(image.code, 0, image.stderr);
  const p = await getJson('pod', 'p');
  assert.equal((((p.spec as Obj).containers as Obj[])[0] as Obj).image, 'nginx:1.27');

  const ports = await kubectlWith(['apply'], pod('nginx:1.27', { ports: [{ containerPort: 8080 }] }));
  assert.notEqual(ports.code, 0);
  assert.ok(
    ports.stderr.startsWith(
      'The Pod "p" is invalid: spec: Forbidden: pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)\n',
    ),
    ports.stderr,
  );
  const more = await kubectlWith(['apply'], {
    ...pod('nginx:1.27'),
    spec: {
      containers: [
        { name: 'app', image: 'nginx:1.27' },
        { name: 'side', image: 'busybox' },
      ],
    },
  });
  assert.equal(
    more.stderr.trim(),
    'The Pod "p" is invalid: spec.containers: Forbidden: pod updates may not add or remove containers',
  );
  // A replace without what admission and defaulting add keeps them, as a real server does.
  const current = await getJson('pod', 'p');
  const { priority: _p, enableServiceLinks: _e, ...bare } = current.spec as Obj;
  const replaced = await kubectlWith(['replace'], { ...current, spec: bare });
  assert.equal(replaced.code, 0, replaced.stderr);
  const again = (await getJson('pod', 'p')).spec as Obj;
  assert.deepEqual([again.priority, again.enableServiceLinks], [0, true]);
});

test('kubectl create deployment, job and cronjob (protobuf bodies) are stored with their defaults', async () => {
  for (const args of [
    ['create', 'deployment', 'imperative', '--image=nginx'],
    ['create', 'job', 'once', '--image=busybox'],
    ['create', 'cronjob', 'tick', '--image=busybox', '--schedule=*/5 * * * *'],
  ]) {
    const r = await kubectl(args);
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
  }
  const d = await getJson('deployment', 'imperative');
  const podSpec = ((d.spec as Obj).template as Obj).spec as Obj;
  assert.equal((podSpec.containers as Obj[])[0]?.imagePullPolicy, 'Always', 'no tag: Always');
  assert.equal((d.spec as Obj).progressDeadlineSeconds, 600);
  const j = await getJson('job', 'once');
  assert.equal((j.spec as Obj).backoffLimit, 6);
  assert.equal((((j.spec as Obj).template as Obj).spec as Obj).restartPolicy, 'Never');
  const c = await getJson('cronjob', 'tick');
  const cs = c.spec as Obj;
  assert.deepEqual(
    [cs.concurrencyPolicy, cs.suspend, cs.successfulJobsHistoryLimit, cs.failedJobsHistoryLimit],
    ['Allow', false, 3, 1],
  );
  const jobPodSpec = (((cs.jobTemplate as Obj).spec as Obj).template as Obj).spec as Obj;
  assert.equal(jobPodSpec.schedulerName, 'default-scheduler');
  assert.deepEqual(c.status, {});
});
