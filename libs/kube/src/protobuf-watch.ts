// A protobuf watch's body, as kube-apiserver writes it for `Accept: application/vnd.kubernetes.protobuf`:
// frames, each a 4-byte big-endian length and then a meta/v1 WatchEvent (type = 1, object = 2: a
// RawExtension whose raw = 1 holds the object), the object being `k8s\0` and a runtime.Unknown (typeMeta =
// 1 {apiVersion = 1, kind = 2}, raw = 2: the object's own message). The frames are split from the
// socket's chunks as lines are for JSON (line-splitter.ts): a frame within one chunk is read where it lies.
import { DECODERS } from './protobuf-objects.ts';
import { LENGTH_DELIMITED, ProtobufDecodeError, ProtobufReader } from './protobuf-reader.ts';
import type { Status, WatchEvent } from './types.ts';

/** What a watch asks for when it can read protobuf: the API serves JSON where it has no protobuf (CRDs). */
export const PROTOBUF_WATCH_ACCEPT = 'application/vnd.kubernetes.protobuf, application/json';

/** Whether a response's Content-Type is the protobuf watch stream. */
export function isProtobufStream(contentType: string | string[] | undefined): boolean {
  const value = Array.isArray(contentType) ? contentType[0] : contentType;
  return value !== undefined && value.trimStart().startsWith('application/vnd.kubernetes.protobuf');
}

/** An object far beyond what the API stores (etcd's request limit is 1.5 MiB): not a frame we can trust. */
const MAX_FRAME_BYTES = 64 * 1024 * 1024;

const MAGIC = [0x6b, 0x38, 0x73, 0x00]; // "k8s\0"
const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** The length a frame's 4 bytes at `at` announce, refused beyond what any object can be. */
function frameLength(buf: Buffer, at: number): number {
  const length = buf.readUInt32BE(at);
  if (length > MAX_FRAME_BYTES) {
    throw new ProtobufDecodeError(`a watch frame of ${length} bytes (more than ${MAX_FRAME_BYTES})`);
  }
  return length;
}

export class FrameSplitter {
  /** Bytes of a frame (or of its length) not yet whole, from the chunks before. */
  #rest: Buffer | undefined;

  /** The frames `chunk` completes, each as its bytes (a view of its chunk when it lies in one). */
  push(chunk: Buffer): Buffer[] {
    const frames: Buffer[] = [];
    let at = 0;
    if (this.#rest !== undefined) {
      // Only what completes the frame begun before is copied; the rest of the chunk is read where it lies.
      const rest = this.#rest;
      const head = rest.length >= 4 ? rest : Buffer.concat([rest, chunk.subarray(0, 4 - rest.length)]);
      if (head.length < 4) {
        this.#rest = head;
        return frames;
      }
      const whole = 4 + frameLength(head, 0);
      const needed = whole - rest.length;
      if (chunk.length < needed) {
        this.#rest = Buffer.concat([rest, chunk]);
        return frames;
      }
      const frame = Buffer.concat([rest, chunk.subarray(0, needed)]);
      this.#rest = undefined;
      frames.push(frame.subarray(4));
      at = needed;
    }
    while (chunk.length - at >= 4) {
      const length = frameLength(chunk, at);
      if (chunk.length - at - 4 < length) break;
      frames.push(chunk.subarray(at + 4, at + 4 + length));
      at += 4 + length;
    }
    if (at < chunk.length) this.#rest = chunk.subarray(at);
    return frames;
  }

  /** Whether the body ended inside a frame. */
  get partial(): boolean {
    return this.#rest !== undefined;
  }
}

/** One frame's WatchEvent, its object decoded for the kinds protobuf-objects.ts knows (Pod, Status). */
export function decodeWatchFrame<T>(frame: Buffer): WatchEvent<T> {
  const r = new ProtobufReader(frame, 0, frame.length);
  let type = '';
  let object: unknown;
  while (!r.done) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === LENGTH_DELIMITED) type = r.string();
    else if (field === 2 && wire === LENGTH_DELIMITED) {
      const outer = r.enter();
      object = rawExtension(r);
      r.leave(outer);
    } else r.skip(wire);
  }
  if (type === '') throw new ProtobufDecodeError('a watch event without a type');
  if (object === undefined) throw new ProtobufDecodeError(`a ${type} watch event without an object`);
  return { type, object } as WatchEvent<T>;
}

/** RawExtension { raw = 1 }: the embedded object. */
function rawExtension(r: ProtobufReader): unknown {
  let object: unknown;
  while (!r.done) {
    const tag = r.varint();
    if (tag >>> 3 === 1 && (tag & 7) === LENGTH_DELIMITED) {
      const outer = r.enter();
      object = embedded(r);
      r.leave(outer);
    } else r.skip(tag & 7);
  }
  return object;
}

/** `k8s\0` + runtime.Unknown: its type says which decoder reads its raw bytes. */
function embedded(r: ProtobufReader): unknown {
  const { buf } = r;
  for (let i = 0; i < 4; i++) {
    if (r.pos + i >= r.limit || buf[r.pos + i] !== MAGIC[i]) {
      throw new ProtobufDecodeError('an embedded object without the k8s\\0 prefix');
    }
  }
  r.pos += 4;
  let apiVersion = '';
  let kind = '';
  // The object's own message, read once its type is known (the fields may come in any order).
  let rawStart = -1;
  let rawEnd = -1;
  let contentEncoding = '';
  let contentType = '';
  while (!r.done) {
    const tag = r.varint();
    const field = tag >>> 3;
    const wire = tag & 7;
    if (field === 1 && wire === LENGTH_DELIMITED) {
      const outer = r.enter();
      while (!r.done) {
        const tt = r.varint();
        if (tt >>> 3 === 1 && (tt & 7) === LENGTH_DELIMITED) apiVersion = r.string();
        else if (tt >>> 3 === 2 && (tt & 7) === LENGTH_DELIMITED) kind = r.string();
        else r.skip(tt & 7);
      }
      r.leave(outer);
    } else if (field === 2 && wire === LENGTH_DELIMITED) [rawStart, rawEnd] = r.span();
    else if (field === 3 && wire === LENGTH_DELIMITED) contentEncoding = r.string();
    else if (field === 4 && wire === LENGTH_DELIMITED) contentType = r.string();
    else r.skip(wire);
  }
  // Go's serializer writes the object's own message, neither compressed nor in another encoding.
  if (contentEncoding !== '' || (contentType !== '' && !contentType.startsWith(PROTOBUF))) {
    throw new ProtobufDecodeError(
      `an embedded ${kind || 'object'} in ${contentType || PROTOBUF}${contentEncoding ? ` (${contentEncoding})` : ''}`,
    );
  }
  const decode = DECODERS[kind];
  if (decode === undefined) {
    throw new ProtobufDecodeError(
      `an embedded ${JSON.stringify(kind)} (this watch reads ${Object.keys(DECODERS).join(', ')})`,
    );
  }
  const end = r.pos;
  const outer = r.limit;
  r.pos = rawStart === -1 ? end : rawStart;
  r.limit = rawStart === -1 ? end : rawEnd;
  const object = decode(r, apiVersion);
  r.pos = end;
  r.limit = outer;
  return object;
}

/**
 * A whole protobuf body (`k8s\0` + Unknown), as the API answers a request or a Go client sends one, its
 * object decoded as a watch's is (protobuf-objects.ts: a Pod or a Status).
 */
export function decodeProtobufObject(body: Uint8Array): unknown {
  const buf = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  return embedded(new ProtobufReader(buf, 0, buf.length));
}

/** An error answer's body in protobuf: its Status, or undefined when it is none. */
export function protobufStatus(body: Uint8Array): Status | undefined {
  try {
    const object = decodeProtobufObject(body) as Status;
    return object.kind === 'Status' ? object : undefined;
  } catch {
    return undefined;
  }
}

export { ProtobufDecodeError };
