// A watch body's bytes, as they arrive, into its lines' bytes. Split on the newline byte: 0x0A is never part
// of a multi-byte UTF-8 sequence, so a character cut between two chunks is whole again once a line's bytes
// are joined. Each line is handed on as bytes, a view of its chunk where it lies in one (no copy), to be
// decoded once by its reader (no readline: its decoder, 'line' events and async iterator cost a callback
// and a promise or two per line).

const LF = 0x0a;
const CR = 0x0d;

export class LineSplitter {
  /** The bytes of a line not yet ended, from the chunks before. */
  #rest: Buffer | undefined;

  /** The lines `chunk` ends (the first with whatever the chunks before left), without their line ends. */
  push(chunk: Buffer): Buffer[] {
    const lines: Buffer[] = [];
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
      lines.push(withoutCr(head, 0, head.length));
      start = nl + 1;
      nl = chunk.indexOf(LF, start);
    }
    while (nl !== -1) {
      lines.push(withoutCr(chunk, start, nl));
      start = nl + 1;
      nl = chunk.indexOf(LF, start);
    }
    if (start < chunk.length) this.#rest = chunk.subarray(start);
    return lines;
  }

  /** The last line, when the body ended without a newline after it. */
  end(): Buffer[] {
    const rest = this.#rest;
    this.#rest = undefined;
    return rest === undefined ? [] : [withoutCr(rest, 0, rest.length)];
  }
}

/** Bytes `start` to `end`, a CR before the newline left out (CRLF ends a line as LF does). */
function withoutCr(bytes: Buffer, start: number, end: number): Buffer {
  return bytes.subarray(start, end > start && bytes[end - 1] === CR ? end - 1 : end);
}
