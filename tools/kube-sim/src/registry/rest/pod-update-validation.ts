// What the API server lets an update change in a pod's spec (ValidatePodUpdate): container images,
// a shorter activeDeadlineSeconds, added tolerations (or another tolerationSeconds), removed scheduling
// gates, terminationGracePeriodSeconds from negative to 1; anything else is Forbidden with its message.
// The message ends with a diff of the spec; a real server prints go-cmp's diff of its internal Go struct
// (whose spacing go-cmp randomises on purpose), so kube-sim prints the changed fields in the same shape,
// not byte for byte.
import { deepEqual, isObject } from '../../apimachinery/json.ts';
import { forbidden, invalid, required } from '../../apimachinery/field-errors.ts';
import type { FieldCause, Json, JsonObject } from '../../apimachinery/types.ts';

const UPDATABLE =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

const MAX_INT32 = 2147483647;

const obj = (v: Json | undefined): JsonObject => (isObject(v) ? v : {});
const list = (v: Json | undefined): Json[] => (Array.isArray(v) ? v : []);

// Go field names whose JSON name does not simply capitalise.
const GO_NAMES: Record<string, string> = {
  dnsPolicy: 'DNSPolicy',
  dnsConfig: 'DNSConfig',
  hostIPC: 'HostIPC',
  hostPID: 'HostPID',
  serviceAccountName: 'ServiceAccountName',
};
const goName = (k: string) => GO_NAMES[k] ?? k.charAt(0).toUpperCase() + k.slice(1);

function specDiff(old: JsonObject, next: JsonObject): string {
  const keys = [...new Set([...Object.keys(old), ...Object.keys(next)])].sort();
  const lines = ['  core.PodSpec{'];
  for (const k of keys) {
    if (deepEqual(old[k], next[k])) continue;
    if (old[k] !== undefined) lines.push(`- \t${goName(k)}: ${JSON.stringify(old[k])},`);
    if (next[k] !== undefined) lines.push(`+ \t${goName(k)}: ${JSON.stringify(next[k])},`);
  }
  lines.push('  }');
  return lines.join('\n');
}

function containerUpdates(next: Json[], old: Json[], path: string): { causes: FieldCause[]; stop: boolean } {
  if (next.length !== old.length)
    return { causes: [forbidden(path, 'pod updates may not add or remove containers')], stop: true };
  const causes: FieldCause[] = [];
  next.forEach((c, i) => {
    const image = obj(c).image;
    if (typeof image !== 'string' || image === '') causes.push(required(`${path}[${i}].image`));
    else if (image.trim() !== image)
      causes.push(invalid(`${path}[${i}].image`, image, 'must not have leading or trailing whitespace'));
  });
  return { causes, stop: false };
}

/** Every old toleration must still be there, its tolerationSeconds aside. */
function onlyAddedTolerations(next: Json[], old: Json[]): FieldCause[] {
  for (const o of old) {
    const found = next.some((n) => {
      const { tolerationSeconds: _a, ...restOld } = obj(o);
      const { tolerationSeconds: _b, ...restNew } = obj(n);
      return deepEqual(restOld, restNew);
    });
    if (!found)
      return [
        forbidden('spec.tolerations', 'existing toleration can not be modified except its tolerationSeconds'),
      ];
  }
  return [];
}

/** The causes of changing a pod's (defaulted) spec from `old` to `next`. */
export function validatePodUpdate(oldSpec: Json | undefined, nextSpec: Json | undefined): FieldCause[] {
  const old = obj(oldSpec);
  const next = obj(nextSpec);
  const causes: FieldCause[] = [];
  const containers = containerUpdates(list(next.containers), list(old.containers), 'spec.containers');
  causes.push(...containers.causes);
  if (containers.stop) return causes;
  const inits = containerUpdates(list(next.initContainers), list(old.initContainers), 'spec.initContainers');
  causes.push(...inits.causes);
  if (inits.stop) return causes;

  const deadline = next.activeDeadlineSeconds;
  const oldDeadline = old.activeDeadlineSeconds;
  if (typeof deadline === 'number') {
    if (deadline < 0 || deadline > MAX_INT32) {
      causes.push(
        invalid('spec.activeDeadlineSeconds', deadline, `must be between 0 and ${MAX_INT32}, inclusive`),
      );
      return causes;
    }
    if (typeof oldDeadline === 'number' && oldDeadline < deadline) {
      causes.push(
        invalid('spec.activeDeadlineSeconds', deadline, 'must be less than or equal to previous value'),
      );
      return causes;
    }
  } else if (typeof oldDeadline === 'number') {
    causes.push(
      invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'),
    );
  }
  causes.push(...onlyAddedTolerations(list(next.tolerations), list(old.tolerations)));
  if (deepEqual(old, next)) return causes;

  // The updatable fields set back to their old values: what is left must not differ.
  const withOldImages = (cs: Json[], olds: Json[]) =>
    cs.map((c, i) => (isObject(c) ? { ...c, image: obj(olds[i]).image ?? null } : c));
  const munged: JsonObject = { ...next };
  if (Array.isArray(next.containers))
    munged.containers = withOldImages(next.containers, list(old.containers));
  if (Array.isArray(next.initContainers))
    munged.initContainers = withOldImages(next.initContainers, list(old.initContainers));
  for (const k of ['activeDeadlineSeconds', 'schedulingGates', 'tolerations'] as const) {
    if (old[k] === undefined) delete munged[k];
    else munged[k] = old[k];
  }
  const grace = old.terminationGracePeriodSeconds;
  if (typeof grace === 'number' && grace < 0 && munged.terminationGracePeriodSeconds === 1)
    munged.terminationGracePeriodSeconds = grace;
  if (!deepEqual(munged, old)) causes.push(forbidden('spec', `${UPDATABLE}\n${specDiff(old, munged)}`));
  return causes;
}
