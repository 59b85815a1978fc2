// The inverse of protobuf.ts: a stored JSON object as kube-apiserver's protobuf serializer writes it (the
// `k8s\0` magic, then runtime.Unknown{typeMeta, raw, contentEncoding, contentType}), and a watch event as a
// length-prefixed metav1.WatchEvent frame. Fields go out in ascending number, as gogo's marshalers write
// them; a non-pointer field (protobuf-fields.ts) is written even at its zero value, as Go does, any other
// only when the JSON has it. JSON that protobuf cannot carry is dropped: a field the schema lacks, an empty
// list or map, a sub-second part of a metav1.Time.
import { INLINE, nonPointerFields, schema } from './protobuf.ts';
import { KINDS } from './protobuf-schemas.ts';

/** The media type of protobuf, and of a protobuf watch's response. */
export const PROTOBUF = 'application/vnd.kubernetes.protobuf';
export const PROTOBUF_WATCH = `${PROTOBUF};stream=watch`;

const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

type JsonIn = { readonly [key: string]: unknown };

interface EncField {
  no: number;
  name: string;
  type: string;
  repeated: boolean;
  map: boolean;
  /** An embedded Go struct: its fields are the parent's own in JSON. */
  inline: boolean;
  /** Written even when the JSON lacks it (a non-pointer field), at its zero value. */
  always: boolean;
}

/** A growable buffer; a nested message's length is reserved as one byte and widened if it grows past 127. */
class Writer {
  buf: Buffer = Buffer.allocUnsafe(4096);
  pos = 0;

  private ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** An unsigned varint (tags, lengths, non-negative numbers up to 2^53). */
  uvarint(n: number): void {
    this.ensure(10);
    while (n > 0x7f) {
      this.buf[this.pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    this.buf[this.pos++] = n;
  }

  /** An int32/int64 field's value: a negative one is its 64-bit two's complement, ten bytes. */
  int(n: number): void {
    if (n >= 0) {
      this.uvarint(n);
      return;
    }
    this.ensure(10);
    let v = BigInt.asUintN(64, BigInt(n));
    while (v > 0x7fn) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
  }

  tag(no: number, wire: number): void {
    this.uvarint(no * 8 + wire);
  }

  string(s: string): void {
    const n = s.length;
    if (n < 0x80) {
      // Short ASCII (most of an object's strings) byte by byte: cheaper than a native call per string.
      this.ensure(n + 1);
      const buf = this.buf;
      let p = this.pos + 1;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) break;
        buf[p++] = c;
      }
      if (i === n) {
        buf[this.pos] = n;
        this.pos = p;
        return;
      }
    }
    const len = Buffer.byteLength(s);
    this.uvarint(len);
    this.ensure(len);
    this.pos += this.buf.write(s, this.pos, len, 'utf8');
  }

  bytes(b: Uint8Array): void {
    this.uvarint(b.length);
    this.raw(b);
  }

  /** Starts a length-delimited value; `end` with what this returns closes it. */
  begin(): number {
    this.ensure(1);
    return this.pos++;
  }

  end(at: number): void {
    const len = this.pos - at - 1;
    if (len < 0x80) {
      this.buf[at] = len;
      return;
    }
    let extra = 0;
    for (let v = len >>> 7; v > 0; v >>>= 7) extra++;
    this.ensure(extra);
    this.buf.copyWithin(at + 1 + extra, at + 1, this.pos);
    this.pos += extra;
    const end = this.pos;
    this.pos = at;
    this.uvarint(len);
    this.pos = end;
  }

  /** The bytes written, as a Buffer of their own (the scratch buffer is reused). */
  take(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.pos));
  }
}

const compiled = new Map<string, EncField[]>();

function fieldsOf(message: string): EncField[] {
  let out = compiled.get(message);
  if (out) return out;
  const always = nonPointerFields(message);
  out = [...schema(message)]
    .map(([no, f]) => ({
      no,
      name: f.name,
      type: f.type,
      repeated: f.repeated,
      map: f.map,
      inline: INLINE.has(f.name) || INLINE.has(`${message}.${f.name}`),
      always: always?.has(no) ?? false,
    }))
    .filter((f) => f.type !== 'any')
    .sort((a, b) => a.no - b.no);
  compiled.set(message, out);
  return out;
}

function isObject(v: unknown): v is JsonIn {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function num(v: unknown): number {
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : 0;
}

/** Seconds since the epoch of RFC3339 texts seen (the same few recur in every version of an object). */
const secondsOf = new Map<string, number>();

/** A metav1.Time (whole seconds) or MicroTime (microseconds) from its RFC3339 text; nothing for the zero time. */
function timestamp(w: Writer, v: unknown, micro: boolean): void {
  if (typeof v !== 'string' || v === '') return;
  let seconds = secondsOf.get(v);
  if (seconds === undefined) {
    const ms = Date.parse(v);
    if (!Number.isFinite(ms)) return;
    seconds = Math.floor(ms / 1000);
    if (secondsOf.size >= 10_000) secondsOf.clear();
    secondsOf.set(v, seconds);
  }
  let nanos = 0;
  if (micro) {
    const frac = /\.(\d+)/.exec(v)?.[1] ?? '';
    nanos = Number(frac.slice(0, 6).padEnd(6, '0')) * 1000;
  }
  // Timestamp's marshaler writes both, nanos even when 0 (Time's always is: Go drops sub-seconds).
  w.tag(1, 0);
  w.int(seconds);
  w.tag(2, 0);
  w.int(nanos);
}

const DURATION_UNITS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** A Go duration string ("1h2m3.5s") in nanoseconds. */
function durationNanos(v: unknown): number {
  if (typeof v === 'number') return Math.trunc(v);
  if (typeof v !== 'string') return 0;
  const sign = v.startsWith('-') ? -1 : 1;
  let total = 0;
  for (const m of v.matchAll(/([\d.]+)([a-zµμ]+)/g))
    total += Number(m[1]) * (DURATION_UNITS[m[2] ?? ''] ?? 0);
  return sign * Math.round(total);
}

/** One value of a (non-map) field type, with its tag. */
function writeValue(w: Writer, no: number, type: string, v: unknown): void {
  switch (type) {
    case 's':
      w.tag(no, 2);
      w.string(typeof v === 'string' ? v : String(v ?? ''));
      return;
    case 'y':
      w.tag(no, 2);
      w.bytes(Buffer.from(typeof v === 'string' ? v : '', 'base64'));
      return;
    case 'i':
      w.tag(no, 0);
      w.int(num(v));
      return;
    case 'b':
      w.tag(no, 0);
      w.uvarint(v === true ? 1 : 0);
      return;
    case 'd': {
      w.tag(no, 1);
      const b = Buffer.allocUnsafe(8);
      b.writeDoubleLE(Number(v) || 0);
      w.raw(b);
      return;
    }
    case 'f': {
      w.tag(no, 5);
      const b = Buffer.allocUnsafe(4);
      b.writeFloatLE(Number(v) || 0);
      w.raw(b);
      return;
    }
  }
  w.tag(no, 2);
  const at = w.begin();
  switch (type) {
    case 'time':
    case 'microtime':
      timestamp(w, v, type === 'microtime');
      break;
    case 'duration':
      w.tag(1, 0);
      w.int(durationNanos(v));
      break;
    case 'quantity':
      // Quantity's marshaler always writes its string; the zero Quantity reads "0".
      w.tag(1, 2);
      w.string(v === undefined || v === null ? '0' : String(v));
      break;
    case 'intstr': {
      // IntOrString { type = 1 (0 int, 1 string); intVal = 2; strVal = 3 }, all three always written.
      const isString = typeof v === 'string';
      w.tag(1, 0);
      w.uvarint(isString ? 1 : 0);
      w.tag(2, 0);
      w.int(isString ? 0 : num(v));
      w.tag(3, 2);
      w.string(isString ? v : '');
      break;
    }
    case 'raw':
      // RawExtension / FieldsV1 { bytes raw = 1 }: the JSON text; nothing for none (a nil Raw).
      if (v !== undefined && v !== null) {
        w.tag(1, 2);
        w.string(JSON.stringify(v));
      }
      break;
    default:
      writeMessage(w, isObject(v) ? v : {}, type);
  }
  w.end(at);
}

function writeMap(w: Writer, f: EncField, m: JsonIn): void {
  // gogo sorts a map's keys (Go's byte order: the same as JS's for the ASCII keys Kubernetes allows).
  const keys = Object.keys(m);
  if (keys.length > 1) keys.sort();
  for (const k of keys) {
    w.tag(f.no, 2);
    const at = w.begin();
    w.tag(1, 2);
    w.string(k);
    const v = m[k];
    writeValue(w, 2, f.type, v === null ? undefined : v);
    w.end(at);
  }
}

function writeMessage(w: Writer, obj: JsonIn, message: string): void {
  for (const f of fieldsOf(message)) {
    const v = f.inline ? obj : obj[f.name];
    if (v === undefined || v === null) {
      if (f.always && !f.repeated && !f.map) writeValue(w, f.no, f.type, undefined);
      continue;
    }
    if (f.map) {
      if (isObject(v)) writeMap(w, f, v);
    } else if (f.repeated) {
      if (Array.isArray(v)) for (const item of v) if (item !== null) writeValue(w, f.no, f.type, item);
    } else {
      writeValue(w, f.no, f.type, v);
    }
  }
}

const scratch = new Writer();

/** One message of protobuf-schemas.ts (or META), without envelope. */
export function encodeProtobufMessage(obj: JsonIn, message: string): Buffer {
  scratch.pos = 0;
  writeMessage(scratch, obj, message);
  return scratch.take();
}

/**
 * An object as kube-apiserver's protobuf serializer writes it: `k8s\0`, then runtime.Unknown with the
 * object's apiVersion and kind, its message as raw, and empty contentEncoding and contentType (strings Go
 * writes even empty). `message` is the object's message (protobufMessage, or Status).
 */
export function encodeKubeProtobuf(obj: JsonIn, message: string): Buffer {
  const w = scratch;
  w.pos = 0;
  w.raw(MAGIC);
  w.tag(1, 2);
  let at = w.begin();
  w.tag(1, 2);
  w.string(typeof obj.apiVersion === 'string' ? obj.apiVersion : '');
  w.tag(2, 2);
  w.string(typeof obj.kind === 'string' ? obj.kind : '');
  w.end(at);
  w.tag(2, 2);
  at = w.begin();
  writeMessage(w, obj, message);
  w.end(at);
  w.tag(3, 2);
  w.uvarint(0);
  w.tag(4, 2);
  w.uvarint(0);
  return w.take();
}

function varintSize(n: number): number {
  let size = 1;
  while (n > 0x7f) {
    n = Math.floor(n / 0x80);
    size++;
  }
  return size;
}

/**
 * One frame of a protobuf watch: a 4-byte big-endian length, then metav1.WatchEvent { string type = 1;
 * RawExtension object = 2 } whose raw is `object` (an encodeKubeProtobuf result, not copied until here).
 */
export function watchEventFrame(type: string, object: Buffer): Buffer {
  const typeLen = Buffer.byteLength(type);
  const extLen = 1 + varintSize(object.length) + object.length;
  const eventLen = 1 + varintSize(typeLen) + typeLen + 1 + varintSize(extLen) + extLen;
  const head = 4 + eventLen - object.length;
  const out = Buffer.allocUnsafe(4 + eventLen);
  out.writeUInt32BE(eventLen, 0);
  let pos = 4;
  const varint = (n: number): void => {
    while (n > 0x7f) {
      out[pos++] = (n % 0x80) | 0x80;
      n = Math.floor(n / 0x80);
    }
    out[pos++] = n;
  };
  out[pos++] = 0x0a;
  varint(typeLen);
  pos += out.write(type, pos, 'utf8');
  out[pos++] = 0x12;
  varint(extLen);
  out[pos++] = 0x0a;
  varint(object.length);
  object.copy(out, head);
  return out;
}

/** The built-in API versions protobuf-schemas.ts describes (one per group; autoscaling's is v2). */
const SCHEMA_VERSION: Record<string, string> = { autoscaling: 'v2' };

/**
 * The message of a type whose objects can be served in protobuf: a built-in kind of protobuf-schemas.ts in
 * the version those describe. Undefined for anything else (custom resources above all).
 */
export function protobufMessage(t: { group: string; version: string; kind: string }): string | undefined {
  if (t.version !== (SCHEMA_VERSION[t.group] ?? 'v1')) return undefined;
  return KINDS[`${t.group}/${t.kind}`];
}
