// Every write verb over HTTP refuses what the API server refuses: a built-in object its Go type cannot decode
// (create, update, status, merge/JSON/strategic patch, apply; in a dry run too), unknown and repeated fields
// by fieldValidation, and a custom resource's replicas by its schema and its scale subresource.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { parse } from 'yaml';
import { startKubeSim, type KubeSim } from '../index.ts';
import { duplicateFields } from '../apimachinery/json-duplicates.ts';
import { scaleCauses } from './scale-validation.ts';
import type { JsonObject } from '../apimachinery/types.ts';

let sim: KubeSim;
before(async () => {
  sim = await startKubeSim({ controllers: false });
});
after(() => sim?.close());

interface Answer {
  status: number;
  warning: string | null;
  body: { message?: string; reason?: string; details?: { causes?: { field: string; message: string }[] } };
}

async function call(
  method: string,
  url: string,
  body: unknown,
  contentType = 'application/json',
): Promise<Answer> {
  const r = await fetch(sim.url + url, {
    method,
    headers: { authorization: `Bearer ${sim.tokens.admin}`, 'content-type': contentType },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  return { status: r.status, warning: r.headers.get('warning'), body: (await r.json()) as Answer['body'] };
}

const DEPLOYMENTS = '/apis/apps/v1/namespaces/default/deployments';
const COMMAND_BOOL =
  'json: cannot unmarshal bool into Go struct field Container.spec.template.spec.containers.command of type string';

function deployment(name: string, command: unknown[] = ['redis-server', '--appendonly', 'yes']): JsonObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name },
    spec: {
      selector: { matchLabels: { app: name } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'redis', image: 'redis', command: command as JsonObject[] }] },
      },
    },
  };
}

test('create: a boolean where a string belongs is 400, also in a dry run (which stores nothing either way)', async () => {
  for (const q of ['', '?dryRun=All']) {
    const r = await call('POST', DEPLOYMENTS + q, deployment('bad', ['redis-server', '--appendonly', true]));
    assert.equal(r.status, 400, q);
    assert.equal(r.body.reason, 'BadRequest');
    assert.equal(
      r.body.message,
      `Deployment in version "v1" cannot be handled as a Deployment: ${COMMAND_BOOL}`,
    );
  }
  assert.equal(
    (
      await fetch(`${sim.url}${DEPLOYMENTS}/bad`, {
        headers: { authorization: `Bearer ${sim.tokens.admin}` },
      })
    ).status,
    404,
  );
  assert.equal((await call('POST', DEPLOYMENTS, deployment('good'))).status, 201);
});

test('a YAML body is read as YAML 1.1, as the API server reads it: an unquoted yes is a boolean', async () => {
  const yaml = [
    'apiVersion: apps/v1',
    'kind: Deployment',
    'metadata: {name: yaml}',
    'spec:',
    '  selector: {matchLabels: {app: yaml}}',
    '  template:',
    '    metadata: {labels: {app: yaml}}',
    '    spec:',
    '      containers:',
    '        - name: redis',
    '          image: redis',
    '          command: [redis-server, --appendonly, yes]',
  ].join('\n');
  const r = await call('POST', DEPLOYMENTS, yaml, 'application/yaml');
  assert.equal(r.status, 400);
  assert.equal(
    r.body.message,
    `Deployment in version "v1" cannot be handled as a Deployment: ${COMMAND_BOOL}`,
  );
  const quoted = await call('POST', DEPLOYMENTS, yaml.replace(', yes]', ", 'yes']"), 'application/yaml');
  assert.equal(quoted.status, 201, quoted.body.message);
});

test('update and status update: the body is decoded first', async () => {
  const put = await call('PUT', `${DEPLOYMENTS}/good`, deployment('good', [1]));
  assert.equal(put.status, 400);
  assert.match(
    put.body.message ?? '',
    /cannot unmarshal number into Go struct field Container\.spec\.template\.spec\.containers\.command of type string/,
  );
  const status = await call('PUT', `${DEPLOYMENTS}/good/status`, {
    ...deployment('good'),
    status: { replicas: '1' },
  });
  assert.equal(status.status, 400);
  assert.match(
    status.body.message ?? '',
    /cannot unmarshal string into Go struct field DeploymentStatus\.status\.replicas of type int32/,
  );
});

test('patches: the result is decoded; a refusal is 422 on the field "patch", with the patch as the server shows it', async () => {
  const merge = await call(
    'PATCH',
    `${DEPLOYMENTS}/good?dryRun=All`,
    { spec: { replicas: '3' } },
    'application/merge-patch+json',
  );
  assert.equal(merge.status, 422);
  assert.match(
    merge.body.message ?? '',
    /^ "" is invalid: patch: Invalid value: "\{.*\}": json: cannot unmarshal string into Go struct field DeploymentSpec\.spec\.replicas of type int32$/,
  );
  assert.equal(merge.body.details?.causes?.[0]?.field, 'patch');
  const json = await call(
    'PATCH',
    `${DEPLOYMENTS}/good`,
    [{ op: 'replace', path: '/spec/template/spec/containers/0/command/2', value: true }],
    'application/json-patch+json',
  );
  assert.equal(json.status, 422);
  assert.ok(json.body.message?.endsWith(COMMAND_BOOL), json.body.message);
  const strategic = await call(
    'PATCH',
    `${DEPLOYMENTS}/good`,
    { metadata: { labels: { on: true } } },
    'application/strategic-merge-patch+json',
  );
  assert.equal(strategic.status, 422);
  assert.equal(
    strategic.body.message,
    ' "" is invalid: patch: Invalid value: "map[metadata:map[labels:map[on:true]]]": json: cannot unmarshal bool into Go value of type string',
  );
});

test('server-side apply: structured-merge-diff refuses wrong types and undeclared fields, as a 500 with no reason', async () => {
  const apply = (obj: JsonObject, q = '') =>
    call('PATCH', `${DEPLOYMENTS}/applied?fieldManager=test${q}`, obj, 'application/apply-patch+yaml');
  const typed = await apply(deployment('applied', ['redis-server', true]));
  assert.equal(typed.status, 500);
  assert.equal(typed.body.reason, undefined);
  assert.equal(
    typed.body.message,
    'failed to create typed patch object (default/applied; apps/v1, Kind=Deployment): .spec.template.spec.containers[name="redis"].command[1]: expected string, got &value.valueUnstructured{Value:true}',
  );
  // An unknown field is refused whatever fieldValidation says: the typed conversion cannot hold it.
  const unknown = await apply(
    { ...deployment('applied'), spec: { ...(deployment('applied').spec as JsonObject), replicaz: 1 } },
    '&fieldValidation=Ignore',
  );
  assert.equal(unknown.status, 500);
  assert.match(unknown.body.message ?? '', /: \.spec\.replicaz: field not declared in schema$/);
  assert.equal((await apply(deployment('applied'))).status, 201);
});

test('fieldValidation: Warn (the default) warns of unknown and repeated fields, Strict refuses them, Ignore says nothing', async () => {
  const cm =
    '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"NAME"},"data":{"a":"1","a":"2"},"colour":"red"}';
  const CMS = '/api/v1/namespaces/default/configmaps';
  const warn = await call('POST', CMS, cm.replace('NAME', 'warn'));
  assert.equal(warn.status, 201);
  assert.equal(warn.warning, '299 - "unknown field \\"colour\\"", 299 - "duplicate field \\"data.a\\""');
  const strict = await call('POST', `${CMS}?fieldValidation=Strict`, cm.replace('NAME', 'strict'));
  assert.equal(strict.status, 400);
  assert.equal(
    strict.body.message,
    'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "colour", duplicate field "data.a"',
  );
  const ignore = await call('POST', `${CMS}?fieldValidation=Ignore`, cm.replace('NAME', 'ignore'));
  assert.equal(ignore.status, 201);
  assert.equal(ignore.warning, null);
  // A patch's strict refusal is the patch handler's: 422 on "patch".
  const patch = await call(
    'PATCH',
    `${CMS}/warn?fieldValidation=Strict`,
    { colour: 'blue' },
    'application/strategic-merge-patch+json',
  );
  assert.equal(patch.status, 422);
  assert.equal(
    patch.body.message,
    ' "" is invalid: patch: Invalid value: "map[colour:blue]": strict decoding error: unknown field "colour"',
  );
});

test('duplicateFields names each repeated key by its path, in lists and nested objects, escapes read', () => {
  assert.deepEqual(
    duplicateFields('{"a":1,"b":{"c":[{"x":1,"x":"y"},{}],"c":2},"a":[],"e\\"q":1,"e\\"q":null,"s":"}\\\\"}'),
    ['b.c[0].x', 'b.c', 'a', 'e"q'],
  );
  assert.deepEqual(duplicateFields('[{"a":1},{"a":2}]'), []);
});

test('a custom resource with a scale subresource: its schema and the subresource each add their causes', async () => {
  const crd = parse(
    readFileSync(path.join(import.meta.dirname, '../../../../crds/podset.yaml'), 'utf8'),
  ) as JsonObject;
  assert.equal(
    (await call('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status,
    201,
  );
  const PODSETS = '/apis/podset.io/v1/namespaces/default/podsets';
  const podset = {
    apiVersion: 'podset.io/v1',
    kind: 'PodSet',
    metadata: { name: 'p' },
    spec: {
      replicas: 1,

      template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
    },
  };
  const created = await call('POST', PODSETS, podset);
  assert.equal(created.status, 201, created.body.message);
  const causes = (a: Answer) => a.body.details?.causes?.map((c) => `${c.field}: ${c.message}`);
  for (const [where, body] of [
    ['scale', { spec: { replicas: -1 } }],
    ['', { spec: { replicas: -1 } }],
  ] as const) {
    const r = await call(
      'PATCH',
      `${PODSETS}/p${where ? `/${where}` : ''}`,
      body,
      'application/merge-patch+json',
    );
    assert.equal(r.status, 422, where);
    assert.deepEqual(causes(r), [
      'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
      '.spec.replicas: Invalid value: -1: should be a non-negative integer',
    ]);
    assert.match(
      r.body.message ?? '',
      /^PodSet\.podset\.io "p" is invalid: \[spec\.replicas: .*, \.spec\.replicas: .*\]$/,
    );
  }
  const tooMany = await call(
    'PATCH',
    `${PODSETS}/p/scale`,
    { spec: { replicas: 100000 } },
    'application/merge-patch+json',
  );
  assert.deepEqual(causes(tooMany), [
    'spec.replicas: Invalid value: 100000: spec.replicas in body should be less than or equal to 10000',
  ]);
  const notANumber = await call(
    'PATCH',
    `${PODSETS}/p/scale`,
    { spec: { replicas: 'two' } },
    'application/merge-patch+json',
  );
  assert.equal(notANumber.status, 422);
  assert.match(
    notANumber.body.message ?? '',
    /cannot unmarshal string into Go struct field ScaleSpec\.spec\.replicas of type int32$/,
  );
  // A built-in kind validates the Scale itself.
  const builtIn = await call(
    'PATCH',
    `${DEPLOYMENTS}/good/scale`,
    { spec: { replicas: -1 } },
    'application/merge-patch+json',
  );
  assert.equal(
    builtIn.body.message,
    'Scale.autoscaling "good" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0',
  );
});

test('server-side apply of a custom resource: typed by its schema, undeclared fields refused (500, as for built-ins)', async () => {
  const PODSETS = '/apis/podset.io/v1/namespaces/default/podsets';
  const apply = (spec: JsonObject, q = '') =>
    call(
      'PATCH',
      `${PODSETS}/applied?fieldManager=test${q}`,
      { apiVersion: 'podset.io/v1', kind: 'PodSet', metadata: { name: 'applied' }, spec },
      'application/apply-patch+yaml',
    );
  const spec = {
    replicas: 1,

    template: { metadata: { labels: { a: 'b' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
  };
  const typed = await apply({ ...spec, replicas: '3' });
  assert.equal(typed.status, 500);
  assert.equal(
    typed.body.message,
    'failed to create typed patch object (default/applied; podset.io/v1, Kind=PodSet): .spec.replicas: expected numeric (int or float), got string',
  );
  const unknown = await apply({ ...spec, colour: 'red' }, '&fieldValidation=Ignore');
  assert.equal(unknown.status, 500);
  assert.match(unknown.body.message ?? '', /: \.spec\.colour: field not declared in schema$/);
  assert.equal((await apply(spec)).status, 201);
});

test('scaleCauses: replicas out of int32 range or not integers, a selector that is not a string', () => {
  const scale = {
    specReplicasPath: '.spec.replicas',
    statusReplicasPath: '.status.replicas',
    labelSelectorPath: '.status.selector',
  };
  assert.deepEqual(
    scaleCauses({ spec: { replicas: 3 }, status: { replicas: 0, selector: 'a=b' } }, scale),
    [],
  );
  assert.deepEqual(
    scaleCauses({ spec: { replicas: 2 ** 31 }, status: { replicas: 1.5, selector: 1 } }, scale).map(
      (c) => `${c.field}: ${c.message}`,
    ),
    [
      '.spec.replicas: Invalid value: 2147483648: should be less than or equal to 2147483647',
      '.status.replicas: Invalid value: 0: .status.replicas accessor error: 1.5 is of the type float64, expected int64',
      '.status.selector: Invalid value: "": .status.selector accessor error: 1 is of the type int64, expected string',
    ],
  );
});
