// Discovery documents: /version, /api, /api/v1, /apis, /apis/<g>, /apis/<g>/<v>.
import { apiVersionOf, type Registry, resourceId } from '../registry/rest/resources.ts';
import type { JsonObject, ResourceType } from '../apimachinery/types.ts';

export function versionInfo(): JsonObject {
  return {
    major: '1',
    minor: '32',
    gitVersion: 'v1.32.0-kube-sim',
    gitCommit: '0000000000000000000000000000000000000000',
    gitTreeState: 'clean',
    buildDate: '2025-01-01T00:00:00Z',
    goVersion: 'go1.23.4',
    compiler: 'gc',
    platform: 'linux/amd64',
  };
}

export function apiVersions(serverAddress: string): JsonObject {
  return {
    kind: 'APIVersions',
    versions: ['v1'],
    serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
  };
}

function groupDoc(name: string, versions: string[]): JsonObject {
  const gv = versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v }));
  return { name, versions: gv, preferredVersion: gv[0] ?? null };
}

export function apiGroupList(registry: Registry): JsonObject {
  return {
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: registry.groups().map((g) => groupDoc(g.name, g.versions)),
  };
}

export function apiGroup(registry: Registry, name: string): JsonObject | undefined {
  const g = registry.groups().find((x) => x.name === name);
  if (!g) return undefined;
  return { kind: 'APIGroup', apiVersion: 'v1', ...groupDoc(g.name, g.versions) };
}

function resourceEntries(t: ResourceType): JsonObject[] {
  const out: JsonObject[] = [
    {
      name: t.plural,
      singularName: t.singular,
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: t.verbs,
      ...(t.shortNames.length ? { shortNames: t.shortNames } : {}),
      ...(t.categories.length ? { categories: t.categories } : {}),
      storageVersionHash: Buffer.from(resourceId(t)).toString('base64').slice(0, 11),
    },
  ];
  if (t.subresources.status) {
    out.push({
      name: `${t.plural}/status`,
      singularName: '',
      namespaced: t.namespaced,
      kind: t.kind,
      verbs: ['get', 'patch', 'update'],
    });
  }
  if (t.group === '' && t.plural === 'pods') {
    out.push(
      { name: 'pods/binding', singularName: '', namespaced: true, kind: 'Binding', verbs: ['create'] },
      {
        name: 'pods/eviction',
        singularName: '',
        namespaced: true,
        group: 'policy',
        version: 'v1',
        kind: 'Eviction',
        verbs: ['create'],
      },
      { name: 'pods/log', singularName: '', namespaced: true, kind: 'Pod', verbs: ['get'] },
    );
  }
  if (t.group === '' && t.plural === 'serviceaccounts') {
    out.push({
      name: 'serviceaccounts/token',
      singularName: '',
      namespaced: true,
      group: 'authentication.k8s.io',
      version: 'v1',
      kind: 'TokenRequest',
      verbs: ['create'],
    });
  }
  if (t.subresources.scale) {
    out.push({
      name: `${t.plural}/scale`,
      singularName: '',
      namespaced: t.namespaced,
      group: 'autoscaling',
      version: 'v1',
      kind: 'Scale',
      verbs: ['get', 'patch', 'update'],
    });
  }
  return out;
}

export function apiResourceList(registry: Registry, group: string, version: string): JsonObject | undefined {
  const types = registry.typesIn(group, version);
  if (!types.length) return undefined;
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: apiVersionOf({ group, version }),
    resources: types.flatMap(resourceEntries),
  };
}

function aggregatedResource(t: ResourceType): JsonObject {
  const subs: JsonObject[] = [];
  if (t.subresources.status) {
    subs.push({
      subresource: 'status',
      responseKind: { group: t.group, version: t.version, kind: t.kind },
      verbs: ['get', 'patch', 'update'],
    });
  }
  if (t.subresources.scale) {
    subs.push({
      subresource: 'scale',
      responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
      verbs: ['get', 'patch', 'update'],
    });
  }
  return {
    resource: t.plural,
    responseKind: { group: t.group, version: t.version, kind: t.kind },
    scope: t.namespaced ? 'Namespaced' : 'Cluster',
    singularResource: t.singular,
    verbs: t.verbs,
    ...(t.shortNames.length ? { shortNames: t.shortNames } : {}),
    ...(t.categories.length ? { categories: t.categories } : {}),
    ...(subs.length ? { subresources: subs } : {}),
  };
}

/** apidiscovery.k8s.io/v2 APIGroupDiscoveryList for /api (core) or /apis (all groups). */
export function aggregatedDiscovery(registry: Registry, core: boolean): JsonObject {
  const items: JsonObject[] = [];
  if (core) {
    items.push({
      metadata: { creationTimestamp: null },
      versions: [
        {
          version: 'v1',
          resources: registry.typesIn('', 'v1').map(aggregatedResource),
          freshness: 'Current',
        },
      ],
    });
  } else {
    for (const g of registry.groups()) {
      items.push({
        metadata: { name: g.name, creationTimestamp: null },
        versions: g.versions.map((v) => ({
          version: v,
          resources: registry.typesIn(g.name, v).map(aggregatedResource),
          freshness: 'Current',
        })),
      });
    }
  }
  return { kind: 'APIGroupDiscoveryList', apiVersion: 'apidiscovery.k8s.io/v2', metadata: {}, items };
}
