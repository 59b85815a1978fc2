// The names that identify the PodSet API and what the operator stamps on the objects it manages.

export const GROUP = 'podset.io';
export const VERSION = 'v1';
export const API_VERSION = `${GROUP}/${VERSION}`;
export const KIND = 'PodSet';
export const LIST_KIND = 'PodSetList';
export const PLURAL = 'podsets';
export const SINGULAR = 'podset';
export const SHORT_NAMES: readonly string[] = ['ps'];
export const CATEGORIES: readonly string[] = ['all'];
/** The resource id as kube-sim and RBAC spell it. */
export const RESOURCE = `${PLURAL}.${GROUP}`;

/** Label on every pod of a PodSet; its value is the PodSet's name. Pods are listed and watched by it. */
export const NAME_LABEL = 'podset.io/name';
/** Label on every pod of a PodSet: the hash of the template it was created from (template-hash.ts). */
export const TEMPLATE_HASH_LABEL = 'podset.io/template-hash';
export const MANAGED_BY_LABEL = 'app.kubernetes.io/managed-by';
export const MANAGED_BY_VALUE = 'podset-operator';
/** On a PodSet: the number of its current revision (as a Deployment's deployment.kubernetes.io/revision). */
export const REVISION_ANNOTATION = 'podset.io/revision';
/** Copied from a PodSet onto the revision its template makes, for `rollout history` (as Deployments do). */
export const CHANGE_CAUSE_ANNOTATION = 'kubernetes.io/change-cause';
/** Set in the pod template by `rollout restart`: a new template, so every pod is replaced. */
export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';
/** Old revisions kept when spec.revisionHistoryLimit is not set (as a Deployment). */
export const DEFAULT_REVISION_HISTORY_LIMIT = 10;

/** The finalizer the operator keeps on a PodSet until its cleanup is done. */
export const CLEANUP_FINALIZER = 'podset.io/cleanup';
/** The API server's finalizer on an object deleted with propagationPolicy=Orphan (kubectl --cascade=orphan). */
export const ORPHAN_FINALIZER = 'orphan';

/**
 * Longest PodSet name. The name is the value of the `podset.io/name` label on its pods, and a label value
 * is at most 63 characters. (Pod names are not the limit: the API server cuts a generateName prefix to
 * 58 characters and appends 5 random ones, so any valid name gives a pod name of at most 63.)
 */
export const MAX_NAME_LENGTH = 63;
/** The API server's generateName rule: the prefix is cut to this length before the random suffix. */
export const MAX_GENERATE_NAME_PREFIX = 58;

export const MIN_REPLICAS = 0;
export const MAX_REPLICAS = 10000;
