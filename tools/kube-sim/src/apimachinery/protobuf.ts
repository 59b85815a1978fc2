// Just enough Kubernetes protobuf to decode the request bodies kubectl's typed clients send (`kubectl create
// deployment|service|job|role|namespace|secret|...`): the `k8s\0` envelope and the messages in
// protobuf-schemas.ts, turned into the JSON the API would have received. Anything else gets 415.
// protobuf-encode.ts writes the same messages (a watch served in protobuf).
import { NON_POINTER } from './protobuf-fields.ts';
import { KINDS, MESSAGES } from './protobuf-schemas.ts';
import { ApiError, type Json, type JsonObject } from './types.ts';

export interface Field {
  name: string;
  type: string;
  repeated: boolean;
  map: boolean;
}

/** The well-known apimachinery messages, in the same notation. */
const META: Record<string, string> = {
  // selfLink is never set any more, but Go still writes it (empty).
  ObjectMeta:
    'name=1:s generateName=2:s namespace=3:s selfLink=4:s uid=5:s resourceVersion=6:s generation=7:i ' +
    'creationTimestamp=8:time deletionTimestamp=9:time deletionGracePeriodSeconds=10:i labels=11:map:s ' +
    'annotations=12:map:s ownerReferences=13:OwnerReference* finalizers=14:s* managedFields=17:ManagedFieldsEntry*',
  // fieldsV1 is FieldsV1 { bytes raw = 1 } holding the JSON text: on the wire, what `raw` describes.
  ManagedFieldsEntry:
    'manager=1:s operation=2:s apiVersion=3:s time=4:time fieldsType=6:s fieldsV1=7:raw subresource=8:s',
  OwnerReference: 'kind=1:s name=3:s uid=4:s apiVersion=5:s controller=6:b blockOwnerDeletion=7:b',
  LabelSelector: 'matchLabels=1:map:s matchExpressions=2:LabelSelectorRequirement*',
  LabelSelectorRequirement: 'key=1:s operator=2:s values=3:s*',
  // Go clients that speak protobuf (Helm's storage driver, client-go typed clients) send DELETE bodies so.
  DeleteOptions:
    'gracePeriodSeconds=1:i preconditions=2:Preconditions orphanDependents=3:b propagationPolicy=4:s dryRun=5:s*',
  Preconditions: 'uid=1:s resourceVersion=2:s',
  // An ERROR watch event's object.
  Status: 'metadata=1:ListMeta status=2:s message=3:s reason=4:s details=5:StatusDetails code=6:i',
  ListMeta: 'selfLink=1:s resourceVersion=2:s continue=3:s remainingItemCount=4:i',
  StatusDetails: 'name=1:s group=2:s kind=3:s uid=6:s causes=4:StatusCause* retryAfterSeconds=5:i',
  StatusCause: 'reason=1:s message=2:s field=3:s',
  Condition: 'type=1:s status=2:s observedGeneration=3:i lastTransitionTime=4:time reason=5:s message=6:s',
};

/** Embedded Go structs: their fields appear inline in JSON (by field name, or message.field). */
export const INLINE = new Set([
  'Probe.handler',
  'localObjectReference',
  'volumeSource',
  'persistentVolumeSource',
  'ephemeralContainerCommon',
  'ingressRuleValue',
]);

/**
 * gogo-protobuf writes every non-pointer scalar, zero or not, where JSON would omit it (omitempty). A zero
 * ("", 0, false) is dropped when NON_POINTER says the field is such a one; a pointer's is kept, as it is only
 * on the wire when set (e.g. `kubectl create deployment --replicas=0`). For a message NON_POINTER does not
 * know, zero numbers and false are dropped except for these names, and empty strings always.
 */
const KEEP_ZERO = new Set([
  'replicas',
  'value',
  'parallelism',
  'completions',
  'backoffLimit',
  'suspend',
  'automountServiceAccountToken',
  'immutable',
  'terminationGracePeriodSeconds',
  'gracePeriodSeconds',
  'orphanDependents',
  'activeDeadlineSeconds',
  'revisionHistoryLimit',
  'progressDeadlineSeconds',
  'ttlSecondsAfterFinished',
  'successfulJobsHistoryLimit',
  'failedJobsHistoryLimit',
  'startingDeadlineSeconds',
  'enableServiceLinks',
  'runAsUser',
  'runAsGroup',
  'runAsNonRoot',
  'privileged',
  'readOnlyRootFilesystem',
  'allowPrivilegeEscalation',
  'optional',
  'defaultMode',
  'mode',
]);

const parsed = new Map<string, Map<number, Field>>();
const nonPointer = new Map<string, Set<number> | undefined>();

/** The fields of `message` Go writes even at their zero value; undefined when not known. */
export function nonPointerFields(message: string): Set<number> | undefined {
  if (nonPointer.has(message)) return nonPointer.get(message);
  const text = NON_POINTER[message];
  const set = text === undefined ? undefined : new Set(text === '' ? [] : text.split(' ').map(Number));
  nonPointer.set(message, set);
  return set;
}

export function schema(message: string): Map<number, Field> {
  let m = parsed.get(message);
  if (m) return m;
  const text = META[message] ?? MESSAGES[message];
  if (text === undefined) throw new Error(`no protobuf schema for ${message}`);
  m = new Map();
  for (const part of text.split(' ')) {
    const eq = part.indexOf('=');
    const colon = part.indexOf(':', eq);
    const name = part.slice(0, eq);
    const no = Number(part.slice(eq + 1, colon));
    let type = part.slice(colon + 1);
    const repeated = type.endsWith('*');
    if (repeated) type = type.slice(0, -1);
    const map = type.startsWith('map:');
    if (map) type = type.slice(4);
    m.set(no, { name, type, repeated, map });
  }
  parsed.set(message, m);
  return m;
}

class Reader {
  pos: number;
  readonly buf: Buffer;
  readonly end: number;
  constructor(buf: Buffer) {
    this.buf = buf;
    this.pos = 0;
    this.end = buf.length;
  }
  varint(): bigint {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      if (this.pos >= this.end) throw new Error('truncated varint');
      const b = this.buf[this.pos++] as number;
      result |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result;
      shift += 7n;
    }
  }
  bytes(): Buffer {
    const len = Number(this.varint());
    const s = this.pos;
    this.pos += len;
    if (this.pos > this.end) throw new Error('truncated field');
    return this.buf.subarray(s, this.pos);
  }
  fixed64(): Buffer {
    const s = this.pos;
    this.pos += 8;
    return this.buf.subarray(s, this.pos);
  }
  fixed32(): Buffer {
    const s = this.pos;
    this.pos += 4;
    return this.buf.subarray(s, this.pos);
  }
  skip(wire: number): void {
    if (wire === 0) this.varint();
    else if (wire === 2) this.bytes();
    else if (wire === 1) this.pos += 8;
    else if (wire === 5) this.pos += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
}

function int(v: bigint): number {
  return Number(BigInt.asIntN(64, v));
}

function timeString(buf: Buffer, micro: boolean): string | null {
  const t = decodeMessage(buf, 'Timestamp', { 1: 'i', 2: 'i' });
  const seconds = Number(t[1] ?? 0);
  if (seconds <= 0) return null; // the zero time: omitted in JSON
  const iso = new Date(seconds * 1000).toISOString();
  // metav1.MicroTime reads as RFC3339 with six fractional digits; metav1.Time has whole seconds only.
  if (!micro) return iso.replace(/\.\d{3}Z$/, 'Z');
  const micros = Math.floor(Number(t[2] ?? 0) / 1000);
  return `${iso.slice(0, 19)}.${String(micros).padStart(6, '0')}Z`;
}

/** Reads one value of a (non-map) field type from the wire. */
function readValue(r: Reader, wire: number, type: string): Json {
  switch (type) {
    case 's':
      return r.bytes().toString('utf8');
    case 'y':
      return r.bytes().toString('base64');
    case 'i':
      return int(r.varint());
    case 'b':
      return r.varint() !== 0n;
    case 'd':
      return wire === 1 ? r.fixed64().readDoubleLE(0) : int(r.varint());
    case 'f':
      return wire === 5 ? r.fixed32().readFloatLE(0) : int(r.varint());
    case 'time':
      return timeString(r.bytes(), false);
    case 'microtime':
      return timeString(r.bytes(), true);
    case 'duration': {
      const d = decodeMessage(r.bytes(), 'Duration', { 1: 'i' });
      return `${Number(d[1] ?? 0) / 1e9}s`;
    }
    case 'quantity':
      return String(decodeMessage(r.bytes(), 'Quantity', { 1: 's' })[1] ?? '0');
    case 'intstr': {
      const v = decodeMessage(r.bytes(), 'IntOrString', { 1: 'i', 2: 'i', 3: 's' });
      return v[1] === 1 ? String(v[3] ?? '') : Number(v[2] ?? 0);
    }
    case 'raw': {
      const v = decodeMessage(r.bytes(), 'RawExtension', { 1: 'y' });
      const raw = Buffer.from(String(v[1] ?? ''), 'base64').toString('utf8');
      return raw ? (JSON.parse(raw) as Json) : null;
    }
    default:
      return decodeObject(r.bytes(), type);
  }
}

/** A message with numbered scalar fields (for the small well-known wrappers). */
function decodeMessage(buf: Buffer, _name: string, fields: Record<number, string>): Record<number, Json> {
  const r = new Reader(buf);
  const out: Record<number, Json> = {};
  while (r.pos < r.end) {
    const tag = Number(r.varint());
    const no = tag >>> 3;
    const wire = tag & 7;
    const type = fields[no];
    if (type === undefined) r.skip(wire);
    else out[no] = readValue(r, wire, type);
  }
  return out;
}

/** Decodes one message of protobuf-schemas.ts (or META) into its JSON form. */
export function decodeProtobufMessage(buf: Buffer, message: string): JsonObject {
  return decodeObject(buf, message);
}

function decodeObject(buf: Buffer, message: string): JsonObject {
  const fields = schema(message);
  const always = nonPointerFields(message);
  const r = new Reader(buf);
  const out: JsonObject = {};
  while (r.pos < r.end) {
    const tag = Number(r.varint());
    const no = tag >>> 3;
    const wire = tag & 7;
    const f = fields.get(no);
    if (!f) {
      r.skip(wire);
      continue;
    }
    if (f.type === 'any') {
      r.skip(wire);
      continue;
    }
    if (f.map) {
      const entry = new Reader(r.bytes());
      let key = '';
      let val: Json = null;
      while (entry.pos < entry.end) {
        const t = Number(entry.varint());
        if (t >>> 3 === 1) key = entry.bytes().toString('utf8');
        else val = readValue(entry, t & 7, f.type);
      }
      const m = (out[f.name] as JsonObject | undefined) ?? {};
      m[key] = val;
      out[f.name] = m;
      continue;
    }
    if (f.repeated && wire === 2 && (f.type === 'i' || f.type === 'b')) {
      // packed scalars
      const packed = new Reader(r.bytes());
      const a = (out[f.name] as Json[] | undefined) ?? [];
      while (packed.pos < packed.end) a.push(readValue(packed, 0, f.type));
      out[f.name] = a;
      continue;
    }
    const v = readValue(r, wire, f.type);
    if (!f.repeated && v === null) continue;
    if (!f.repeated && (v === '' || v === 0 || v === false) && f.type !== 'intstr') {
      if (always ? always.has(no) : v === '' || !KEEP_ZERO.has(f.name)) continue;
    }
    if (
      (INLINE.has(f.name) || INLINE.has(`${message}.${f.name}`)) &&
      typeof v === 'object' &&
      v !== null &&
      !Array.isArray(v)
    ) {
      Object.assign(out, v);
    } else if (f.repeated) {
      const a = (out[f.name] as Json[] | undefined) ?? [];
      a.push(v);
      out[f.name] = a;
    } else {
      out[f.name] = v;
    }
  }
  return out;
}

/** Decodes a `k8s\0`-enveloped protobuf object into its JSON form; 415 for kinds we can't read. */
export function decodeKubeProtobuf(buf: Buffer): JsonObject {
  try {
    if (buf.length < 4 || buf.readUInt32BE(0) !== 0x6b387300) throw new Error('missing k8s protobuf magic');
    const r = new Reader(buf.subarray(4));
    let apiVersion = '';
    let kind = '';
    let raw: Buffer = Buffer.alloc(0);
    while (r.pos < r.end) {
      const tag = Number(r.varint());
      const no = tag >>> 3;
      if ((tag & 7) !== 2) {
        r.skip(tag & 7);
        continue;
      }
      const b = r.bytes();
      if (no === 1) {
        const tm = decodeMessage(b, 'TypeMeta', { 1: 's', 2: 's' });
        apiVersion = String(tm[1] ?? '');
        kind = String(tm[2] ?? '');
      } else if (no === 2) raw = b;
    }
    const slash = apiVersion.indexOf('/');
    // DeleteOptions is registered in every group version, so a client may send it under any of them.
    const message =
      kind === 'DeleteOptions' ? kind : KINDS[`${slash >= 0 ? apiVersion.slice(0, slash) : ''}/${kind}`];
    if (!message) {
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `kube-sim cannot read protobuf for ${kind || 'this kind'}; send JSON (application/json), e.g. kubectl apply -f`,
      );
    }
    return { apiVersion, kind, ...decodeObject(raw, message) };
  } catch (e) {
    if (e instanceof ApiError) throw e;
    throw new ApiError(
      400,
      'BadRequest',
      `error decoding protobuf body: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
}
