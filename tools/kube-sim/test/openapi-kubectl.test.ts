// The real kubectl (v1.32) against kube-sim with no flags beyond --kubeconfig: `apply` (default
// --validate=strict) finds server-side field validation through /openapi/v3, creates and updates custom
// resources and built-ins, prints the server's 422 naming the field, and `explain` reads CRD schemas.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startKubeSim, type KubeSim } from '../src/index.ts';
import { kubectl as runKubectl, type KubectlResult } from '@podset/testkit';

const root = fileURLToPath(new URL('../../../', import.meta.url));

describe('kubectl apply and explain through OpenAPI', () => {
  let sim: KubeSim;
  let dir: string;

  function kubectl(...args: string[]): Promise<KubectlResult> {
    return runKubectl(args, {
      kubeconfig: sim.kubeconfigPath,
      cacheDir: join(dir, 'cache'),
      allowFail: true,
      timeoutMs: 30_000,
    });
  }
  async function ok(...args: string[]): Promise<string> {
    const r = await kubectl(...args);
    assert.equal(r.code, 0, `kubectl ${args.join(' ')} failed: ${r.stderr}`);
    assert.doesNotMatch(
      r.stderr,
      /warning|failed to download openapi/i,
      `kubectl ${args.join(' ')}: ${r.stderr}`,
    );
    return r.stdout;
  }
  function manifest(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kube-sim-openapi-'));
    sim = await startKubeSim({ controllers: false });
    await ok('apply', '-f', join(root, 'crds/podset.yaml'));
    // the CRD is served once Established
    const deadline = Date.now() + 10_000;
    while ((await kubectl('get', 'podsets')).code !== 0) {
      if (Date.now() > deadline) throw new Error('podsets never served');
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  test('apply a custom resource, then apply it again changed (the update path)', async () => {
    const web = readFileSync(join(root, 'examples/web.yaml'), 'utf8');
    assert.match(await ok('apply', '-f', manifest('web.yaml', web)), /podset.podset.io\/web created/);
    assert.match(await ok('apply', '-f', manifest('web.yaml', web)), /podset.podset.io\/web unchanged/);
    const changed = manifest('web2.yaml', web.replace('replicas: 3', 'replicas: 5'));
    assert.match(await ok('apply', '-f', changed), /podset.podset.io\/web configured/);
    assert.equal(await ok('get', 'podset', 'web', '-o', 'jsonpath={.spec.replicas}'), '5');
    assert.equal(
      await ok('get', 'ps', 'web', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'),
      'nginx:1.27',
    );
  });

  test('defaults from the CRD schema are applied', async () => {
    const path = manifest('bare.yaml', 'apiVersion: podset.io/v1\nkind: PodSet\nmetadata:\n  name: bare\n');
    await ok('apply', '-f', path);
    assert.equal(await ok('get', 'ps', 'bare', '-o', 'jsonpath={.spec.replicas}'), '1');
    assert.equal(
      await ok('get', 'ps', 'bare', '-o', 'jsonpath={.spec.template.spec.containers[0].image}'),
      'busybox:1.36',
    );
  });

  test('an invalid custom resource: kubectl prints the 422 naming the field', async () => {
    const bad = manifest(
      'bad.yaml',
      `apiVersion: podset.io/v1
kind: PodSet
metadata: {name: bad}
spec: {replicas: -1, template: {spec: {containers: [{name: Bad_Name, image: nginx}]}}}
`,
    );
    const r = await kubectl('apply', '-f', bad);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /The PodSet "bad" is invalid: /);
    assert.match(
      r.stderr,
      /spec\.replicas: Invalid value: -1: spec\.replicas in body should be greater than or equal to 0/,
    );
    assert.match(r.stderr, /spec\.template\.spec\.containers\[0\]\.name: Invalid value: "Bad_Name"/);
    assert.equal((await kubectl('get', 'ps', 'bad')).code, 1);
  });

  test('an unknown field: rejected by default (Strict), a warning with --validate=warn', async () => {
    const text = `apiVersion: podset.io/v1
kind: PodSet
metadata: {name: unk}
spec: {replicas: 1, foo: bar}
`;
    const path = manifest('unk.yaml', text);
    const strict = await kubectl('apply', '-f', path);
    assert.notEqual(strict.code, 0);
    assert.match(strict.stderr, /unknown field "spec\.foo"/);
    assert.doesNotMatch(strict.stderr, /failed to download openapi/);
    const warn = await kubectl('apply', '--validate=warn', '-f', path);
    assert.equal(warn.code, 0, warn.stderr);
    assert.match(warn.stderr, /Warning: unknown field "spec\.foo"/);
    assert.equal((await ok('get', 'ps', 'unk', '-o', 'json')).includes('"foo"'), false);
  });

  test('built-ins applied twice: kubectl computes strategic merge patches that the server applies', async () => {
    const text = `apiVersion: apps/v1
kind: Deployment
metadata: {name: d1}
spec:
  replicas: 1
  selector: {matchLabels: {app: d1}}
  template:
    metadata: {labels: {app: d1}}
    spec:
      containers:
      - name: main
        image: nginx:1
        env: [{name: A, value: "1"}]
      - name: side
        image: busybox
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cm1}
data: {k: v}
---
apiVersion: v1
kind: Pod
metadata: {name: p1, labels: {a: b}}
spec:
  containers:
  - name: c
    image: nginx
    env: [{name: A, value: "1"}]
`;
    const out = await ok('apply', '-f', manifest('builtins.yaml', text));
    assert.match(out, /deployment.apps\/d1 created/);
    assert.match(out, /configmap\/cm1 created/);
    assert.match(out, /pod\/p1 created/);
    // new image in the deployment (its sidecar must survive), new data, the pod's image and a label changed
    // (a pod's env may not change: the API server forbids it on a pod, so kubectl's patch would be refused)
    const second = text
      .replace('nginx:1', 'nginx:2')
      .replace('k: v', 'k: w')
      .replace('{a: b}', '{a: c}')
      .replace('    image: nginx\n    env', '    image: nginx:3\n    env');
    assert.notEqual(second, text);
    const out2 = await ok('apply', '-f', manifest('builtins2.yaml', second));
    assert.match(out2, /deployment.apps\/d1 configured/);
    assert.match(out2, /configmap\/cm1 configured/);
    assert.match(out2, /pod\/p1 configured/);
    assert.equal(
      await ok('get', 'deploy', 'd1', '-o', 'jsonpath={.spec.template.spec.containers[*].image}'),
      'nginx:2 busybox',
    );
    assert.equal(await ok('get', 'cm', 'cm1', '-o', 'jsonpath={.data.k}'), 'w');
    assert.equal(
      await ok(
        'get',
        'pod',
        'p1',
        '-o',
        'jsonpath={.metadata.labels.a} {.spec.containers[0].image} {.spec.containers[0].env[0].value}',
      ),
      'c nginx:3 1',
    );
    assert.match(await ok('apply', '-f', manifest('builtins2.yaml', second)), /pod\/p1 unchanged/);
  });

  test('a two-version CRD: embedded resource, int-or-string, enum defaults; explain per version', async () => {
    const crdPath = manifest(
      'widget-crd.yaml',
      `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  scope: Cluster
  names: {kind: Widget, plural: widgets}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string, enum: [small, large]}
              port: {x-kubernetes-int-or-string: true, anyOf: [{type: integer}, {type: string}]}
              template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: string, enum: [small, medium, large], default: medium}
              port: {x-kubernetes-int-or-string: true}
              template: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}
`,
    );
    await ok('apply', '-f', crdPath);
    const deadline = Date.now() + 10_000;
    while ((await kubectl('get', 'widgets')).code !== 0) {
      if (Date.now() > deadline) throw new Error('widgets never served');
      await new Promise((r) => setTimeout(r, 100));
    }
    const w1 = `apiVersion: example.com/v1beta1
kind: Widget
metadata: {name: w1}
spec: {size: small, port: http, template: {apiVersion: v1, kind: ConfigMap, metadata: {name: inner}, data: {a: b}}}
`;
    assert.match(await ok('apply', '-f', manifest('w1.yaml', w1)), /widget.example.com\/w1 created/);
    assert.match(
      await ok('apply', '-f', manifest('w1.yaml', w1.replace('size: small', 'size: large'))),
      /configured/,
    );
    assert.equal(
      await ok('get', 'widgets.v1.example.com', 'w1', '-o', 'jsonpath={.spec.size} {.spec.port}'),
      'large http',
    );
    const w2 = manifest(
      'w2.yaml',
      'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w2}\nspec: {port: 8080}\n',
    );
    await ok('apply', '-f', w2);
    assert.equal(await ok('get', 'widget', 'w2', '-o', 'jsonpath={.spec.size}'), 'medium');
    const bad = await kubectl(
      'apply',
      '-f',
      manifest(
        'w3.yaml',
        'apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w3}\nspec: {size: huge, port: true, template: {data: {}}}\n',
      ),
    );
    assert.notEqual(bad.code, 0);
    assert.match(
      bad.stderr,
      /spec\.size: Unsupported value: "huge": supported values: "small", "medium", "large"/,
    );
    assert.match(
      bad.stderr,
      /spec\.port: Invalid value: "boolean": spec\.port in body must be of type integer,string: "boolean"/,
    );
    assert.match(bad.stderr, /spec\.template\.apiVersion: Required value: must not be empty/);
    assert.match(
      await ok('explain', 'widgets.spec.size', '--api-version=example.com/v1beta1'),
      /VERSION:\s+v1beta1[\s\S]*small/,
    );
    assert.match(await ok('explain', 'widgets.spec.size'), /VERSION:\s+v1[\s\S]*medium/);
  });

  test('explain reads the CRD schema (fields, nested fields, ObjectMeta) and built-in summaries', async () => {
    const top = await ok('explain', 'podsets');
    assert.match(top, /KIND:\s+PodSet/);
    assert.match(top, /PodSet keeps N pods of a template running/);
    assert.match(top, /metadata\s+<ObjectMeta>/);
    assert.match(top, /spec\s+<Object>/);
    const spec = await ok('explain', 'podsets.spec');
    assert.match(spec, /replicas\s+<integer>/);
    assert.match(spec, /How many pods to keep running/);
    const containers = await ok('explain', 'ps.spec.template.spec.containers');
    assert.match(containers, /name\s+<string> -required-/);
    assert.match(await ok('explain', 'podsets.metadata.labels'), /map\[string\]string/);
    assert.match(await ok('explain', 'deployments'), /KIND:\s+Deployment/);
  });
});
