// Schema data: the query and path parameters of the operations in the documents' paths, as
// kube-apiserver describes them (descriptions shortened).
import type { JsonObject } from '../apimachinery/types.ts';

function q(name: string, description: string, type = 'string', extra: JsonObject = {}): JsonObject {
  return { name, in: 'query', description, schema: { type, uniqueItems: true, ...extra } };
}
export const P = {
  pretty: q('pretty', "If 'true', then the output is pretty printed."),
  dryRun: q(
    'dryRun',
    'When present, indicates that modifications should not be persisted. Valid values are: - All: all dry run stages will be processed',
  ),
  fieldManager: q(
    'fieldManager',
    'fieldManager is a name associated with the actor or entity that is making these changes.',
  ),
  fieldValidation: q(
    'fieldValidation',
    'fieldValidation instructs the server on how to handle objects in the request (POST/PUT/PATCH) containing unknown or duplicate fields. Valid values are: - Ignore - Warn - Strict (the default).',
  ),
  force: q(
    'force',
    'Force is going to "force" Apply requests. It means user will re-acquire conflicting fields owned by other people.',
    'boolean',
  ),
  allowWatchBookmarks: q(
    'allowWatchBookmarks',
    'allowWatchBookmarks requests watch events with type "BOOKMARK".',
    'boolean',
  ),
  continue: q('continue', 'The continue option should be set when retrieving more results from the server.'),
  fieldSelector: q('fieldSelector', 'A selector to restrict the list of returned objects by their fields.'),
  labelSelector: q('labelSelector', 'A selector to restrict the list of returned objects by their labels.'),
  limit: q('limit', 'limit is a maximum number of responses to return for a list call.', 'integer'),
  resourceVersion: q(
    'resourceVersion',
    'resourceVersion sets a constraint on what resource versions a request may be served from.',
  ),
  resourceVersionMatch: q(
    'resourceVersionMatch',
    'resourceVersionMatch determines how resourceVersion is applied to list calls.',
  ),
  sendInitialEvents: q(
    'sendInitialEvents',
    'sendInitialEvents=true may be set together with watch=true.',
    'boolean',
  ),
  timeoutSeconds: q('timeoutSeconds', 'Timeout for the list/watch call.', 'integer'),
  watch: q(
    'watch',
    'Watch for changes to the described resources and return them as a stream of add, update, and remove notifications.',
    'boolean',
  ),
  gracePeriodSeconds: q(
    'gracePeriodSeconds',
    'The duration in seconds before the object should be deleted.',
    'integer',
  ),
  orphanDependents: q('orphanDependents', 'Deprecated: please use the PropagationPolicy.', 'boolean'),
  propagationPolicy: q(
    'propagationPolicy',
    "Whether and how garbage collection will be performed: 'Orphan', 'Background' or 'Foreground'.",
  ),
  name: (kind: string): JsonObject => ({
    name: 'name',
    in: 'path',
    description: `name of the ${kind}`,
    required: true,
    schema: { type: 'string', uniqueItems: true },
  }),
  namespace: {
    name: 'namespace',
    in: 'path',
    description: 'object name and auth scope, such as for teams and projects',
    required: true,
    schema: { type: 'string', uniqueItems: true },
  },
};
export const LIST_PARAMS = [
  P.allowWatchBookmarks,
  P.continue,
  P.fieldSelector,
  P.labelSelector,
  P.limit,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
  P.watch,
];
export const WRITE_PARAMS = [P.dryRun, P.fieldManager, P.fieldValidation];
export const DELETE_PARAMS = [P.dryRun, P.gracePeriodSeconds, P.orphanDependents, P.propagationPolicy];
/** The parameters of a DELETE on a collection. */
export const DELETECOLLECTION_PARAMS = [
  P.continue,
  P.dryRun,
  P.fieldSelector,
  P.gracePeriodSeconds,
  P.labelSelector,
  P.limit,
  P.orphanDependents,
  P.propagationPolicy,
  P.resourceVersion,
  P.resourceVersionMatch,
  P.sendInitialEvents,
  P.timeoutSeconds,
];
