// The names OpenAPI documents use: group-version paths, components.schemas names, the meta/v1 package.
import { builtinTypes } from '../registry/rest/resources.ts';
import type { JsonObject } from '../apimachinery/types.ts';

export const KUBE_VERSION = 'v1.32.0';
export const META = 'io.k8s.apimachinery.pkg.apis.meta.v1';
export const REF_V3 = '#/components/schemas/';
const BUILTIN_KINDS = new Set(builtinTypes().map((t) => `${t.group}/${t.kind}`));

/** True for kinds the server has built in; the rest come from CRDs. */
export function isBuiltinType(rt: { group: string; kind: string }): boolean {
  return BUILTIN_KINDS.has(`${rt.group}/${rt.kind}`);
}

/** `api/v1` for the core group, `apis/<group>/<version>` otherwise. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** The components.schemas name of a kind, as kube-apiserver names them. */
export function definitionName(rt: { group: string; version: string; kind: string }): string {
  if (isBuiltinType(rt)) {
    if (rt.group === 'apiextensions.k8s.io') {
      return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${rt.version}.${rt.kind}`;
    }
    const pkg = rt.group === '' ? 'core' : (rt.group.split('.')[0] ?? rt.group);
    return `io.k8s.api.${pkg}.${rt.version}.${rt.kind}`;
  }
  const reversed = rt.group.split('.').reverse().join('.');
  return `${reversed}.${rt.version}.${rt.kind}`;
}

/** The value of `x-kubernetes-group-version-kind` (and of an operation's). */
export function gvk(group: string, version: string, kind: string): JsonObject {
  return { group, version, kind };
}

/** The API server's one security scheme, in both OpenAPI v2 and v3 documents. */
export const BEARER_TOKEN = {
  BearerToken: {
    type: 'apiKey',
    description: 'Bearer Token authentication',
    name: 'authorization',
    in: 'header',
  },
} as const;
