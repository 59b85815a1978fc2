// RBAC for service-account identities (tokens from the TokenRequest API): the stored Roles, ClusterRoles,
// RoleBindings and ClusterRoleBindings decide, as kube-apiserver's RBAC authorizer does (without aggregation).
import type { Store } from '../../storage/store.ts';
import { ApiError, type KubeObject } from '../../apimachinery/types.ts';
import type { Auth } from './authentication.ts';
import type { Filter } from './chain.ts';
import type { AuthorizationRequest } from '../../admission/attributes.ts';

export interface Attributes extends AuthorizationRequest {
  user: string;
}

interface Rule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

const SA_PREFIX = 'system:serviceaccount:';

export function isServiceAccount(user: string): boolean {
  return user.startsWith(SA_PREFIX);
}

/** The groups Kubernetes puts a service account in. */
function groupsOf(user: string): string[] {
  const ns = user.slice(SA_PREFIX.length).split(':')[0] ?? '';
  return ['system:serviceaccounts', `system:serviceaccounts:${ns}`, 'system:authenticated'];
}

function subjectMatches(s: Subject, user: string, bindingNs: string | undefined): boolean {
  if (s.kind === 'ServiceAccount') {
    const ns = s.namespace ?? bindingNs ?? '';
    return user === `${SA_PREFIX}${ns}:${s.name ?? ''}`;
  }
  if (s.kind === 'User') return s.name === user;
  if (s.kind === 'Group') return groupsOf(user).includes(s.name ?? '');
  return false;
}

function has(list: string[] | undefined, value: string): boolean {
  return !!list && (list.includes('*') || list.includes(value));
}

function ruleAllows(r: Rule, a: Attributes): boolean {
  if (!has(r.verbs, a.verb)) return false;
  if (!has(r.apiGroups, a.group)) return false;
  const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const resources = r.resources ?? [];
  const resourceOk =
    resources.includes('*') ||
    resources.includes(res) ||
    (a.subresource !== '' && resources.includes(`*/${a.subresource}`));
  if (!resourceOk) return false;
  if (r.resourceNames && r.resourceNames.length > 0) return !!a.name && r.resourceNames.includes(a.name);
  return true;
}

function rulesOf(store: Store, ref: { kind?: string; name?: string }, bindingNs: string | undefined): Rule[] {
  let role: KubeObject | undefined;
  if (ref.kind === 'ClusterRole')
    role = store.get('clusterroles.rbac.authorization.k8s.io', undefined, ref.name ?? '')?.obj;
  else if (ref.kind === 'Role' && bindingNs)
    role = store.get('roles.rbac.authorization.k8s.io', bindingNs, ref.name ?? '')?.obj;
  return Array.isArray(role?.rules) ? (role.rules as unknown as Rule[]) : [];
}

/** Throws 403 unless a stored binding grants the request. */
export function authorizeRbac(store: Store, a: Attributes): void {
  const check = (b: KubeObject, bindingNs: string | undefined): boolean => {
    const subjects = (Array.isArray(b.subjects) ? b.subjects : []) as unknown as Subject[];
    if (!subjects.some((s) => subjectMatches(s, a.user, bindingNs))) return false;
    return rulesOf(store, (b.roleRef ?? {}) as { kind?: string; name?: string }, bindingNs).some((r) =>
      ruleAllows(r, a),
    );
  };
  for (const r of store.list('clusterrolebindings.rbac.authorization.k8s.io'))
    if (check(r.obj, undefined)) return;
  if (a.namespace) {
    for (const r of store.list('rolebindings.rbac.authorization.k8s.io', a.namespace))
      if (check(r.obj, a.namespace)) return;
  }
  const res = a.subresource ? `${a.resource}/${a.subresource}` : a.resource;
  const where = a.namespace ? ` in the namespace "${a.namespace}"` : ' at the cluster scope';
  throw new ApiError(
    403,
    'Forbidden',
    `${a.resource}${a.group ? '.' + a.group : ''}${a.name ? ` "${a.name}"` : ''} is forbidden: User "${a.user}" cannot ${a.verb} resource "${res}" in API group "${a.group}"${where}`,
    { details: { ...(a.name ? { name: a.name } : {}), group: a.group, kind: a.resource } },
  );
}

/** Decides whether `user` may make a request: throws 403 unless it may. */
export type Authorizer = (user: string, request: Omit<Attributes, 'user'>) => void;

/** Service accounts are decided by the stored RBAC, the built-in identities by Auth (viewer reads only). */
export function authorizer(auth: Auth, store: Store): Authorizer {
  return (user, r) => {
    if (isServiceAccount(user)) authorizeRbac(store, { user, ...r });
    else auth.authorize(user, r.verb, r.resource, r.namespace);
  };
}

/** The authorization filter of resource requests: 403 unless the authorizer allows the request. */
export function withAuthorization(authorize: Authorizer): Filter {
  return async (ctx, next) => {
    const info = ctx.info;
    if (!info) throw new Error(`not a resource request: ${ctx.path}`);
    authorize(ctx.attributes.user, {
      verb: info.verb,
      group: info.group,
      resource: info.plural,
      subresource: info.subresource ?? '',
      namespace: info.namespace,
      name: info.name,
    });
    await next();
  };
}
