// A watch line's text without its object's `metadata.managedFields`, cut out of the line's bytes before they
// are decoded and parsed. On a pod after its kubelet's status writes that list is ~45 % of the line and half
// its keys, and JSON.parse's cost in a busy process goes by keys (each one internalized and looked up in the
// map transitions). Cut from the bytes, not from the decoded text: the text is then decoded once, already
// without the list, instead of decoded whole and then copied again without it (a concatenation JSON.parse
// flattens), a copy of the line's size less per event for the garbage collector. JSON's structural
// characters are ASCII, and no byte of a multi-byte UTF-8 character is, so the scan reads bytes as it would
// read characters. Only for readers that never look at managedFields (the watcher); any line not shaped as
// expected is decoded whole, so JSON.parse sees the whole line and judges it.

const KEY = Buffer.from('"managedFields":[');
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;
const OBJECT_KEY = Buffer.from('"object"');
const METADATA_KEY = Buffer.from('"metadata"');

/** What opened a container on the way to the list: `"object":{`, `"metadata":{`, or anything else. */
const OTHER = 0;
const OBJECT = 1;
const METADATA = 2;
type Opened = typeof OTHER | typeof OBJECT | typeof METADATA;

/** Index just past the string whose opening quote is at `i`, or -1 when it does not close before `end`. */
function stringEnd(b: Uint8Array, i: number, end: number): number {
  for (let j = i + 1; j < end; j++) {
    const c = b[j];
    if (c === QUOTE) return j + 1;
    // A backslash escapes the byte after it (\" \\ \/ \b \f \n \r \t \uXXXX): that byte never ends the string.
    if (c === BACKSLASH) j++;
  }
  return -1;
}

/** Whether `b` holds `word` at `at`. */
function holds(b: Uint8Array, at: number, word: Uint8Array): boolean {
  for (let k = 0; k < word.length; k++) if (b[at + k] !== word[k]) return false;
  return true;
}

/** Whether the member at `at` is a key of `{"object":{"metadata":{…` at the top of the line. */
function atObjectMetadata(b: Uint8Array, at: number): boolean {
  const stack: Opened[] = [];
  let pending: Opened = OTHER;
  let i = 0;
  while (i < at) {
    const c = b[i];
    if (c === QUOTE) {
      const end = stringEnd(b, i, at);
      if (end < 0) return false;
      if (b[end] === COLON) {
        const len = end - i;
        pending =
          len === OBJECT_KEY.length && holds(b, i, OBJECT_KEY)
            ? OBJECT
            : len === METADATA_KEY.length && holds(b, i, METADATA_KEY)
              ? METADATA
              : OTHER;
      }
      i = end;
      continue;
    }
    if (c === OPEN_OBJECT) {
      stack.push(pending);
      pending = OTHER;
    } else if (c === OPEN_ARRAY) {
      stack.push(OTHER);
      pending = OTHER;
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      stack.pop();
    }
    i++;
  }
  return stack.length === 3 && stack[1] === OBJECT && stack[2] === METADATA;
}

/** Index just past the `]` that closes the list whose `[` is at `open`, or -1 when it does not close. */
function listEnd(b: Uint8Array, open: number): number {
  const closers: number[] = [CLOSE_ARRAY];
  const end = b.length;
  let i = open + 1;
  while (i < end) {
    const c = b[i];
    if (c === QUOTE) {
      i = stringEnd(b, i, end);
      if (i < 0) return -1;
      continue;
    }
    if (c === OPEN_OBJECT) closers.push(CLOSE_OBJECT);
    else if (c === OPEN_ARRAY) closers.push(CLOSE_ARRAY);
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (closers.pop() !== c) return -1;
      if (closers.length === 0) return i + 1;
    }
    i++;
  }
  return -1;
}

/**
 * The bytes to leave out of `line`: the member `"managedFields":[…]` of `object.metadata` and the comma that
 * joined it, as [from, to); undefined when the line has none, or when anything about it is not as the API
 * server writes it (compact JSON): a string that does not close, brackets that do not match, the member
 * elsewhere.
 */
function managedFieldsSpan(line: Buffer): [number, number] | undefined {
  const at = line.indexOf(KEY);
  if (at < 1 || !atObjectMetadata(line, at)) return undefined;
  const end = listEnd(line, at + KEY.length - 1);
  if (end < 0) return undefined;
  const before = line[at - 1];
  if (before === COMMA) return [at - 1, end];
  if (before !== OPEN_OBJECT) return undefined;
  const after = line[end];
  if (after === COMMA) return [at, end + 1];
  if (after === CLOSE_OBJECT) return [at, end];
  return undefined;
}

/** Where a cut line's two parts are joined before they are decoded: kept, and grown up to 1 MiB as lines need. */
let joined = Buffer.allocUnsafeSlow(64 * 1024);
const JOINED_MAX = 1024 * 1024;

/** A watch line's text (its bytes decoded as UTF-8), without object.metadata.managedFields (see the header). */
export function textWithoutManagedFields(line: Buffer): string {
  const span = managedFieldsSpan(line);
  return span === undefined ? line.toString('utf8') : joinedText(line, span);
}

/** The same cut of a line given as text (for tools and tests); the text itself when nothing is cut. */
export function withoutManagedFields(text: string): string {
  const line = Buffer.from(text, 'utf8');
  const span = managedFieldsSpan(line);
  return span === undefined ? text : joinedText(line, span);
}

/** `line` without its bytes [from, to), decoded once. */
function joinedText(line: Buffer, [from, to]: [number, number]): string {
  const length = line.length - (to - from);
  let into = joined;
  if (into.length < length) {
    // A rare line past the kept buffer's bound gets one of its own, not kept.
    into = Buffer.allocUnsafeSlow(Math.max(length, Math.min(JOINED_MAX, into.length * 2)));
    if (into.length <= JOINED_MAX) joined = into;
  }
  line.copy(into, 0, 0, from);
  line.copy(into, from, to);
  return into.toString('utf8', 0, length);
}
