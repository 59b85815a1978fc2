// What the protobuf tests share (src/apimachinery/protobuf-encode.test.ts, test/server/watch-protobuf.test.ts):
// a message read as its fields in wire order, by a reader of its own (not the decoder under test), so that
// the tests see the bytes as written. Only varints and length-delimited fields: what kube's objects use.
import assert from 'node:assert/strict';

/** One field as written: its number, its wire type (0 varint, 2 length-delimited) and its value. */
export type WireField = [number: number, wire: 0 | 2, value: bigint | Buffer];

/** A message's fields in wire order. */
export function protobufFields(buf: Buffer): WireField[] {
  const out: WireField[] = [];
  let pos = 0;
  const varint = (): bigint => {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      const b = buf[pos++] as number;
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return v;
    }
  };
  while (pos < buf.length) {
    const tag = Number(varint());
    const wire = tag & 7;
    if (wire === 0) out.push([tag >>> 3, 0, varint()]);
    else if (wire === 2) {
      const len = Number(varint());
      out.push([tag >>> 3, 2, buf.subarray(pos, pos + len)]);
      pos += len;
    } else throw new Error(`unexpected wire type ${wire}`);
  }
  return out;
}

/** The bytes of field `no` (its first occurrence), asserted present and length-delimited. */
export function fieldBytes(fields: readonly WireField[], no: number): Buffer {
  const v = fields.find(([n]) => n === no)?.[2];
  assert.ok(Buffer.isBuffer(v), `field ${no} present and length-delimited`);
  return v;
}
