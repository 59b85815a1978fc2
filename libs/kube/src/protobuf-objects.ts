// The objects a protobuf pod watch carries, decoded into the JSON shape the API's JSON would give, for the
// fields a watcher of pods reads: the whole metadata but its managedFields, spec.nodeName, status.phase and
// status.conditions. Everything else of a pod (its containers, volumes, container statuses, IPs…) is stepped
// over by length and not in the result: a reader that needs it watches in JSON. Field numbers are those of
// kubernetes/api's and apimachinery's generated.proto. gogo-protobuf writes a non-pointer string or number
// even when empty or zero, where JSON omits it (omitempty): such values are left out here as JSON leaves them.
import { LENGTH_DELIMITED, ProtobufDecodeError, type ProtobufReader, VARINT } from './protobuf-reader.ts';

type JsonObject = Record<string, unknown>;

/**
 * metav1.Time: seconds (and nanos, which JSON's RFC 3339 form leaves out) since the epoch. The zero time (gogo
 * writes a non-pointer Time even when unset) is undefined: left out, where JSON writes null, so that no
 * reader mistakes it for a time (`deletionTimestamp !== undefined` means a deletion).
 */
function time(r: ProtobufReader): string | undefined {
  const outer = r.enter();
  let seconds = 0;
  while (!r.done) {
    const tag = r.varint();
    if (tag >>> 3 === 1 && (tag & 7) === VARINT) seconds = r.varint();
    else r.skip(tag & 7);
  }
  r.leave(outer);
  return seconds === 0 ? undefined : rfc3339(seconds);
}

/** The text of recent times: a pod's times are mostly of the last seconds, and a Date per time is garbage. */
const recentTimes = new Map<number, string>();

function rfc3339(seconds: number): string {
  let text = recentTimes.get(seconds);
  if (text === undefined) {
    // toISOString always writes milliseconds; a whole second's are ".000".
    text = `${new Date(seconds * 1000).toISOString().slice(0, -5)}Z`;
    if (recentTimes.size >= 4096) recentTimes.clear();
    recentTimes.set(seconds, text);
  }
  return text;
}

/** A map<string,string> entry (key = 1, value = 2) into `into`. */
function mapEntry(r: ProtobufReader, into: Record<string, string>): void {
  const outer = r.enter();
  let key = '';
  let value = '';
  while (!r.done) {
    const tag = r.varint();
    const field = tag >>> 3;
    if (field === 1 && (tag & 7) === LENGTH_DELIMITED) key = r.string();
    else if (field === 2 && (tag & 7) === LENGTH_DELIMITED) value = r.string();
    else r.skip(tag & 7);
  }
  r.leave(outer);
  into[key] = value;
}

function ownerReference(r: ProtobufReader): JsonObject {
  const outer = r.enter();
  const out: JsonObject = {};
  let apiVersion = '';
  let kind = '';
  let name = '';
  let uid = '';
  let controller: boolean | undefined;
  let blockOwnerDeletion: boolean | undefined;
  while (!r.done) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === LENGTH_DELIMITED) kind = r.string();
    else if (field === 3 && wire === LENGTH_DELIMITED) name = r.string();
    else if (field === 4 && wire === LENGTH_DELIMITED) uid = r.string();
    else if (field === 5 && wire === LENGTH_DELIMITED) apiVersion = r.string();
    else if (field === 6 && wire === VARINT) controller = r.varint() !== 0;
    else if (field === 7 && wire === VARINT) blockOwnerDeletion = r.varint() !== 0;
    else r.skip(wire);
  }
  // JSON's order: apiVersion, kind, name, uid, then the two pointers when set (these four are never omitted).
  out.apiVersion = apiVersion;
  out.kind = kind;
  out.name = name;
  out.uid = uid;
  if (controller !== undefined) out.controller = controller;
  if (blockOwnerDeletion !== undefined) out.blockOwnerDeletion = blockOwnerDeletion;
  r.leave(outer);
  return out;
}

/**
 * ObjectMeta without managedFields (17, stepped over) and the long-gone selfLink (4) and clusterName (15).
 * Fields are read into locals and the object built at the end in JSON's order with named stores: every pod's
 * metadata then has one of a few shapes, as JSON.parse's have, and the code that reads it stays monomorphic.
 */
export function objectMeta(r: ProtobufReader): JsonObject {
  const outer = r.enter();
  let name = '';
  let generateName = '';
  let namespace = '';
  let uid = '';
  let resourceVersion = '';
  let generation = 0;
  let creationTimestamp: string | undefined;
  let deletionTimestamp: string | undefined;
  let deletionGracePeriodSeconds: number | undefined;
  let labels: Record<string, string> | undefined;
  let annotations: Record<string, string> | undefined;
  let owners: JsonObject[] | undefined;
  let finalizers: string[] | undefined;
  while (!r.done) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wire = tag & 7;
    switch (field) {
      case 1:
        r.expect(field, wire, LENGTH_DELIMITED, 'ObjectMeta');
        name = r.string();
        break;
      case 2:
        r.expect(field, wire, LENGTH_DELIMITED, 'ObjectMeta');
        generateName = r.string();
        break;
      case 3:
        r.expect(field, wire, LENGTH_DELIMITED, 'ObjectMeta');
        namespace = r.string();
        break;
      case 5:
        r.expect(field, wire, LENGTH_DELIMITED, 'ObjectMeta');
        uid = r.string();
        break;
      case 6:
        r.expect(field, wire, LENGTH_DELIMITED, 'ObjectMeta');
        resourceVersion = r.string();
        break;
      case 7:
        r.expect(field, wire, VARINT, 'ObjectMeta');
        generation = r.varint();
        break;
      case 8:
        r.expect(field, wire, LENGTH_DELIMITED, 'ObjectMeta');
        creationTimestamp = time(r);
        break;
      case 9:
        r.expect(field, wire, LENGTH_DELIMITED, 'ObjectMeta');
        deletionTimestamp = time(r);
        break;
      case 10:
        r.expect(field, wire, VARINT, 'ObjectMeta');
        deletionGracePeriodSeconds = r.varint();
        break;
      case 11:
        r.expect(field, wire, LENGTH_DELIMITED, 'ObjectMeta');
        mapEntry(r, (labels ??= {}));
        break;
      case 12:
        r.expect(field, wire, LENGTH_DELIMITED, 'ObjectMeta');
        mapEntry(r, (annotations ??= {}));
        break;
      case 13:
        r.expect(field, wire, LENGTH_DELIMITED, 'ObjectMeta');
        (owners ??= []).push(ownerReference(r));
        break;
      case 14:
        r.expect(field, wire, LENGTH_DELIMITED, 'ObjectMeta');
        (finalizers ??= []).push(r.string());
        break;
      default:
        r.skip(wire);
    }
  }
  r.leave(outer);
  const out: JsonObject = {};
  if (name !== '') out.name = name;
  if (generateName !== '') out.generateName = generateName;
  if (namespace !== '') out.namespace = namespace;
  if (uid !== '') out.uid = uid;
  if (resourceVersion !== '') out.resourceVersion = resourceVersion;
  if (generation !== 0) out.generation = generation;
  if (creationTimestamp !== undefined) out.creationTimestamp = creationTimestamp;
  if (deletionTimestamp !== undefined) out.deletionTimestamp = deletionTimestamp;
  if (deletionGracePeriodSeconds !== undefined) out.deletionGracePeriodSeconds = deletionGracePeriodSeconds;
  if (labels !== undefined) out.labels = labels;
  if (annotations !== undefined) out.annotations = annotations;
  if (owners !== undefined) out.ownerReferences = owners;
  if (finalizers !== undefined) out.finalizers = finalizers;
  return out;
}

/** A PodCondition, built as objectMeta is (locals, then named stores in JSON's order). */
function podCondition(r: ProtobufReader): JsonObject {
  const outer = r.enter();
  let type = '';
  let status = '';
  let observedGeneration = 0;
  let lastProbeTime: string | undefined;
  let lastTransitionTime: string | undefined;
  let reason = '';
  let message = '';
  while (!r.done) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (wire === LENGTH_DELIMITED && field === 1) type = r.string();
    else if (wire === LENGTH_DELIMITED && field === 2) status = r.string();
    else if (wire === LENGTH_DELIMITED && field === 3) lastProbeTime = time(r);
    else if (wire === LENGTH_DELIMITED && field === 4) lastTransitionTime = time(r);
    else if (wire === LENGTH_DELIMITED && field === 5) reason = r.string();
    else if (wire === LENGTH_DELIMITED && field === 6) message = r.string();
    else if (wire === VARINT && field === 7) observedGeneration = r.varint();
    else r.skip(wire);
  }
  r.leave(outer);
  const out: JsonObject = {};
  if (type !== '') out.type = type;
  if (observedGeneration !== 0) out.observedGeneration = observedGeneration;
  if (status !== '') out.status = status;
  if (lastProbeTime !== undefined) out.lastProbeTime = lastProbeTime;
  if (lastTransitionTime !== undefined) out.lastTransitionTime = lastTransitionTime;
  if (reason !== '') out.reason = reason;
  if (message !== '') out.message = message;
  return out;
}

/** PodSpec: nodeName (10) alone. */
function podSpec(r: ProtobufReader): JsonObject {
  const outer = r.enter();
  const out: JsonObject = {};
  while (!r.done) {
    const tag = r.varint();
    if (tag >>> 3 === 10 && (tag & 7) === LENGTH_DELIMITED) {
      const node = r.string();
      if (node !== '') out.nodeName = node;
    } else r.skip(tag & 7);
  }
  r.leave(outer);
  return out;
}

/** PodStatus: phase (1) and conditions (2). */
function podStatus(r: ProtobufReader): JsonObject {
  const outer = r.enter();
  const out: JsonObject = {};
  let conditions: JsonObject[] | undefined;
  while (!r.done) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === LENGTH_DELIMITED) {
      const phase = r.string();
      if (phase !== '') out.phase = phase;
    } else if (field === 2 && wire === LENGTH_DELIMITED) (conditions ??= []).push(podCondition(r));
    else r.skip(wire);
  }
  if (conditions !== undefined) out.conditions = conditions;
  r.leave(outer);
  return out;
}

/** A core/v1 Pod message's bytes as the JSON shape of what a pod watcher reads (see the file's head). */
export function decodePod(r: ProtobufReader, apiVersion: string): JsonObject {
  const out: JsonObject = { kind: 'Pod', apiVersion };
  while (!r.done) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === LENGTH_DELIMITED) out.metadata = objectMeta(r);
    else if (field === 2 && wire === LENGTH_DELIMITED) out.spec = podSpec(r);
    else if (field === 3 && wire === LENGTH_DELIMITED) out.status = podStatus(r);
    else r.skip(wire);
  }
  out.metadata ??= {};
  return out;
}

function statusCause(r: ProtobufReader): JsonObject {
  const outer = r.enter();
  const out: JsonObject = {};
  while (!r.done) {
    const tag = r.varint();
    const field = tag >>> 3;
    if (field >= 1 && field <= 3 && (tag & 7) === LENGTH_DELIMITED) {
      const s = r.string();
      if (s !== '') out[field === 1 ? 'reason' : field === 2 ? 'message' : 'field'] = s;
    } else r.skip(tag & 7);
  }
  r.leave(outer);
  return out;
}

function statusDetails(r: ProtobufReader): JsonObject {
  const outer = r.enter();
  const out: JsonObject = {};
  let causes: JsonObject[] | undefined;
  while (!r.done) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wire = tag & 7;
    if ((field === 1 || field === 2 || field === 3 || field === 6) && wire === LENGTH_DELIMITED) {
      const s = r.string();
      if (s !== '') out[DETAILS_STRINGS[field]!] = s;
    } else if (field === 4 && wire === LENGTH_DELIMITED) (causes ??= []).push(statusCause(r));
    else if (field === 5 && wire === VARINT) {
      const seconds = r.varint();
      if (seconds !== 0) out.retryAfterSeconds = seconds;
    } else r.skip(wire);
  }
  if (causes !== undefined) out.causes = causes;
  r.leave(outer);
  return out;
}

const DETAILS_STRINGS: Record<number, string> = { 1: 'name', 2: 'group', 3: 'kind', 6: 'uid' };

/** A meta/v1 Status message (an ERROR event's object) as JSON carries it. */
export function decodeStatus(r: ProtobufReader, apiVersion: string): JsonObject {
  const out: JsonObject = { kind: 'Status', apiVersion, metadata: {} };
  while (!r.done) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wire = tag & 7;
    if ((field === 2 || field === 3 || field === 4) && wire === LENGTH_DELIMITED) {
      const s = r.string();
      if (s !== '') out[field === 2 ? 'status' : field === 3 ? 'message' : 'reason'] = s;
    } else if (field === 5 && wire === LENGTH_DELIMITED) out.details = statusDetails(r);
    else if (field === 6 && wire === VARINT) {
      const code = r.varint();
      if (code !== 0) out.code = code;
    } else r.skip(wire);
  }
  return out;
}

/** The object decoders by kind, for the kinds a pod watch carries. */
export const DECODERS: Record<string, (r: ProtobufReader, apiVersion: string) => JsonObject> = {
  Pod: decodePod,
  Status: decodeStatus,
};

export { ProtobufDecodeError };
