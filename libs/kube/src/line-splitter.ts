// A watch body's bytes, as they arrive, into its lines. Split on the newline byte before decoding: 0x0A is
// never part of a multi-byte UTF-8 sequence, so a character cut between two chunks is whole again once a
// line's bytes are joined, and each line is decoded once, straight from the chunk (no readline: its
// decoder, 'line' events and async iterator cost a callback and a promise or two per line).

const LF = 0x0a;
const CR = 0x0d;

export class LineSplitter {
  /** The bytes of a line not yet ended, from the chunks before. */
  #rest: Buffer | undefined;

  /** The lines `chunk` ends (the first with whatever the chunks before left), without their line ends. */
  push(chunk: Buffer): string[] {
    const lines: string[] = [];
    if (chunk.length === 0) return lines;
    let nl = chunk.indexOf(LF);
    if (nl === -1) {
      this.#rest = this.#rest === undefined ? chunk : Buffer.concat([this.#rest, chunk]);
      return lines;
    }
    let start = 0;
    if (this.#rest !== undefined) {
      const head = Buffer.concat([this.#rest, chunk.subarray(0, nl)]);
      this.#rest = undefined;
      lines.push(decode(head, 0, head.length));
      start = nl + 1;
      nl = chunk.indexOf(LF, start);
    }
    while (nl !== -1) {
      lines.push(decode(chunk, start, nl));
      start = nl + 1;
      nl = chunk.indexOf(LF, start);
    }
    if (start < chunk.length) this.#rest = chunk.subarray(start);
    return lines;
  }

  /** The last line, when the body ended without a newline after it. */
  end(): string[] {
    const rest = this.#rest;
    this.#rest = undefined;
    return rest === undefined ? [] : [decode(rest, 0, rest.length)];
  }
}

/** Bytes `start` to `end` as text, a CR before the newline left out (CRLF ends a line as LF does). */
function decode(bytes: Buffer, start: number, end: number): string {
  return bytes.toString('utf8', start, end > start && bytes[end - 1] === CR ? end - 1 : end);
}
