// Reading Kubernetes protobuf (proto2, as gogo-protobuf writes it): fields in any order, each a tag (field
// number and wire type) then its value. A reader decodes the fields it knows and steps over the others by
// their length, which is what makes a protobuf watch cheaper to read than JSON: a pod's managedFields, spec
// and container statuses are skipped without being looked at.

/** A stream's bytes that are not Kubernetes protobuf, or not of the shape a reader expects. */
export class ProtobufDecodeError extends Error {
  override name = 'ProtobufDecodeError';
}

export const VARINT = 0;
export const FIXED64 = 1;
export const LENGTH_DELIMITED = 2;
export const FIXED32 = 5;

export class ProtobufReader {
  readonly buf: Buffer;
  /** The next byte to read. */
  pos: number;
  /** One past the last byte of the message being read (a nested one's while it is entered). */
  limit: number;

  constructor(buf: Buffer, start: number, end: number) {
    this.buf = buf;
    this.pos = start;
    this.limit = end;
  }

  get done(): boolean {
    return this.pos >= this.limit;
  }

  /**
   * Enters the nested message at the current field: until `leave`, the reader reads it alone. Returns the
   * enclosing message's limit, for `leave`. One reader for the whole frame, not one per nested message: a
   * pod has dozens of them (each label, condition and time), and each reader would be garbage.
   */
  enter(): number {
    const stop = this.#valueEnd();
    const outer = this.limit;
    this.limit = stop;
    return outer;
  }

  /** Leaves the entered message (past whatever of it was not read), back in the enclosing one. */
  leave(outer: number): void {
    this.pos = this.limit;
    this.limit = outer;
  }

  /** A varint as a number: exact up to 2^53, which every count, time and generation the API sends is. */
  varint(): number {
    const { buf, limit: end } = this;
    let pos = this.pos;
    let b = pos < end ? buf[pos++]! : this.#short();
    if (b < 0x80) {
      this.pos = pos;
      return b;
    }
    let value = b & 0x7f;
    let scale = 0x80;
    for (let i = 1; i < 10; i++) {
      if (pos >= end) this.#short();
      b = buf[pos++]!;
      value += (b & 0x7f) * scale;
      if (b < 0x80) {
        // A negative int64 is ten bytes of two's complement, beyond a double's precision: read it exactly.
        if (i === 9) return this.#int64(pos);
        this.pos = pos;
        return value;
      }
      scale *= 0x80;
    }
    throw new ProtobufDecodeError(`a varint longer than 10 bytes at byte ${this.pos}`);
  }

  /** The length-delimited value's bounds: [start, end) of `buf`. */
  span(): [number, number] {
    const stop = this.#valueEnd();
    const start = this.pos;
    this.pos = stop;
    return [start, stop];
  }

  string(): string {
    const stop = this.#valueEnd();
    const start = this.pos;
    this.pos = stop;
    return start === stop ? '' : this.buf.toString('utf8', start, stop);
  }

  /** Reads a length-delimited value's length: the reader is then at its first byte; returns one past its last. */
  #valueEnd(): number {
    const length = this.varint();
    const stop = this.pos + length;
    if (stop > this.limit) this.#short();
    return stop;
  }

  /** Steps over a value of `wireType`. */
  skip(wireType: number): void {
    switch (wireType) {
      case VARINT:
        this.varint();
        return;
      case FIXED64:
        this.#advance(8);
        return;
      case LENGTH_DELIMITED:
        this.pos = this.#valueEnd();
        return;
      case FIXED32:
        this.#advance(4);
        return;
      default:
        // Groups (3, 4) are not used by any Kubernetes message; anything else is not protobuf.
        throw new ProtobufDecodeError(`wire type ${wireType} at byte ${this.pos}`);
    }
  }

  /** Checks a known field's wire type: a mismatch means the bytes are not the message the reader expects. */
  expect(field: number, wireType: number, want: number, message: string): void {
    if (wireType !== want) {
      throw new ProtobufDecodeError(`${message} field ${field} has wire type ${wireType}, not ${want}`);
    }
  }

  /** The ten-byte varint that ends before `stop`, as a signed 64-bit number. */
  #int64(stop: number): number {
    let value = 0n;
    for (let k = 0; k < 10; k++) value |= BigInt(this.buf[stop - 10 + k]! & 0x7f) << BigInt(7 * k);
    this.pos = stop;
    return Number(BigInt.asIntN(64, value));
  }

  #advance(n: number): void {
    if (this.pos + n > this.limit) this.#short();
    this.pos += n;
  }

  #short(): never {
    throw new ProtobufDecodeError(`a value runs past the end of its message (byte ${this.limit})`);
  }
}
