import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { openapiV2, openapiV3GroupVersion, openapiV3Index } from './openapi.ts';
import { definitionName } from './names.ts';
import { builtinTypes } from '../registry/rest/resources.ts';
import { crdResourceTypes } from '../apiextensions/schema.ts';
import type { Json, JsonObject, KubeObject, ResourceType } from '../apimachinery/types.ts';

const crd = parse(
  readFileSync(fileURLToPath(new URL('../../../../crds/podset.yaml', import.meta.url)), 'utf8'),
) as KubeObject;
const types: ResourceType[] = [...builtinTypes(), ...crdResourceTypes(crd)];

function obj(v: Json | undefined): JsonObject {
  assert.ok(
    v !== null && typeof v === 'object' && !Array.isArray(v),
    `expected an object, got ${JSON.stringify(v)}`,
  );
  return v;
}

/** What cli-runtime's queryParamVerifierV3 does: the first PATCH tagged with the GVK must take the param. */
function supportsQueryParam(
  doc: JsonObject,
  g: string,
  v: string,
  kind: string,
  param: string,
): boolean | 'no-path' {
  for (const item of Object.values(obj(doc.paths))) {
    const patch = obj(item).patch;
    if (!patch) continue;
    const gvk = obj(obj(patch)['x-kubernetes-group-version-kind']);
    if (gvk.group !== g || gvk.version !== v || gvk.kind !== kind) continue;
    const params = (obj(patch).parameters ?? []) as JsonObject[];
    return params.some((p) => p.name === param && p.in === 'query');
  }
  return 'no-path';
}

test('the index lists every group-version with a hashed serverRelativeURL', () => {
  const index = openapiV3Index(types);
  const paths = obj(index.paths);
  for (const key of ['api/v1', 'apis/apps/v1', 'apis/podset.io/v1', 'apis/apiextensions.k8s.io/v1']) {
    const url = obj(paths[key]).serverRelativeURL;
    assert.match(String(url), new RegExp(`^/openapi/v3/${key.replace(/\./g, '\\.')}\\?hash=[0-9A-F]{128}$`));
  }
  // the hash follows the content: a CRD change gives a new URL
  const changed = structuredClone(crd);
  const v1 = ((changed.spec as JsonObject).versions as JsonObject[])[0] as JsonObject;
  ((v1.schema as JsonObject).openAPIV3Schema as JsonObject).description = 'changed';
  const other = obj(openapiV3Index([...builtinTypes(), ...crdResourceTypes(changed)]).paths);
  assert.notEqual(
    obj(other['apis/podset.io/v1']).serverRelativeURL,
    obj(paths['apis/podset.io/v1']).serverRelativeURL,
  );
  assert.equal(obj(other['api/v1']).serverRelativeURL, obj(paths['api/v1']).serverRelativeURL);
});

test('every kind that can be patched advertises fieldValidation (kubectl then validates server-side)', () => {
  for (const rt of types) {
    if (!rt.verbs.includes('patch')) continue;
    const path = rt.group === '' ? `api/${rt.version}` : `apis/${rt.group}/${rt.version}`;
    const doc = openapiV3GroupVersion(types, path);
    assert.ok(doc, path);
    assert.equal(
      supportsQueryParam(doc, rt.group, rt.version, rt.kind, 'fieldValidation'),
      true,
      `${rt.kind}`,
    );
    assert.equal(supportsQueryParam(doc, rt.group, rt.version, rt.kind, 'dryRun'), true, `${rt.kind}`);
  }
});

test('the PodSet document: paths, subresources, component schema with GVK and ObjectMeta', () => {
  const doc = openapiV3GroupVersion(types, 'apis/podset.io/v1');
  assert.ok(doc);
  assert.equal(doc.openapi, '3.0.0');
  const paths = obj(doc.paths);
  assert.deepEqual(Object.keys(paths).sort(), [
    '/apis/podset.io/v1/namespaces/{namespace}/podsets',
    '/apis/podset.io/v1/namespaces/{namespace}/podsets/{name}',
    '/apis/podset.io/v1/namespaces/{namespace}/podsets/{name}/scale',
    '/apis/podset.io/v1/namespaces/{namespace}/podsets/{name}/status',
    '/apis/podset.io/v1/podsets',
  ]);
  const item = obj(paths['/apis/podset.io/v1/namespaces/{namespace}/podsets/{name}']);
  assert.deepEqual(Object.keys(item).sort(), ['delete', 'get', 'parameters', 'patch', 'put']);
  const patch = obj(item.patch);
  assert.deepEqual(Object.keys(obj(obj(patch.requestBody).content)).sort(), [
    'application/json-patch+json',
    'application/merge-patch+json',
  ]);
  const scale = obj(obj(paths['/apis/podset.io/v1/namespaces/{namespace}/podsets/{name}/scale']).patch);
  assert.deepEqual(scale['x-kubernetes-group-version-kind'], {
    group: 'autoscaling',
    version: 'v1',
    kind: 'Scale',
  });

  const schemas = obj(obj(doc.components).schemas);
  const ps = obj(schemas['io.podset.v1.PodSet']);
  assert.deepEqual(ps['x-kubernetes-group-version-kind'], [
    { group: 'podset.io', version: 'v1', kind: 'PodSet' },
  ]);
  const props = obj(ps.properties);
  assert.deepEqual(obj(props.metadata).allOf, [
    { $ref: '#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta' },
  ]);
  const replicas = obj(obj(obj(props.spec).properties).replicas);
  assert.equal(replicas.type, 'integer');
  assert.equal(replicas.default, 1);
  assert.ok(schemas['io.podset.v1.PodSetList']);
  assert.ok(schemas['io.k8s.api.autoscaling.v1.Scale']);
  assert.ok(obj(obj(schemas['io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta']).properties).labels);

  // every $ref resolves within the document
  const refs: string[] = [];
  const walk = (v: Json): void => {
    if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === 'object') {
      for (const [k, x] of Object.entries(v)) {
        if (k === '$ref' && typeof x === 'string') refs.push(x);
        else walk(x);
      }
    }
  };
  walk(doc);
  assert.ok(refs.length > 0);
  for (const r of refs) assert.ok(schemas[r.replace('#/components/schemas/', '')], r);
});

test('built-ins: honest top-level schemas, no strategic-merge content type, cluster-scoped paths', () => {
  const core = openapiV3GroupVersion(types, 'api/v1');
  assert.ok(core);
  const schemas = obj(obj(core.components).schemas);
  const pod = obj(schemas['io.k8s.api.core.v1.Pod']);
  assert.deepEqual(pod['x-kubernetes-group-version-kind'], [{ group: '', version: 'v1', kind: 'Pod' }]);
  assert.deepEqual(Object.keys(obj(pod.properties)).sort(), [
    'apiVersion',
    'kind',
    'metadata',
    'spec',
    'status',
  ]);
  const cm = obj(schemas['io.k8s.api.core.v1.ConfigMap']);
  assert.ok(obj(cm.properties).data);
  const paths = obj(core.paths);
  const podPatch = obj(obj(paths['/api/v1/namespaces/{namespace}/pods/{name}']).patch);
  assert.equal('application/strategic-merge-patch+json' in obj(obj(podPatch.requestBody).content), false);
  assert.ok(paths['/api/v1/nodes/{name}']);
  assert.ok(paths['/api/v1/namespaces/{name}']);
  assert.equal(
    definitionName({ group: 'apps', version: 'v1', kind: 'Deployment' }),
    'io.k8s.api.apps.v1.Deployment',
  );
  assert.equal(
    definitionName({ group: 'rbac.authorization.k8s.io', version: 'v1', kind: 'Role' }),
    'io.k8s.api.rbac.v1.Role',
  );
  assert.equal(openapiV3GroupVersion(types, 'apis/nothing.example.com/v1'), undefined);
  assert.equal(openapiV3GroupVersion(types, 'apis'), undefined);
});

test('openapi v2 is swagger 2.0 with definitions and v2-style refs', () => {
  const v2 = openapiV2(types);
  assert.equal(v2.swagger, '2.0');
  const defs = obj(v2.definitions);
  assert.ok(defs['io.podset.v1.PodSet']);
  assert.ok(defs['io.k8s.api.core.v1.Pod']);
  const text = JSON.stringify(v2);
  assert.equal(text.includes('#/components/'), false);
  const patch = obj(obj(obj(v2.paths)['/apis/podset.io/v1/namespaces/{namespace}/podsets/{name}']).patch);
  assert.ok((patch.parameters as JsonObject[]).some((p) => p.name === 'fieldValidation'));
  assert.ok(Array.isArray(patch.consumes));
});
