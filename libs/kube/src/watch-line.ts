// A watch line without its object's `metadata.managedFields`, cut out of the text before JSON.parse. On a
// pod after its kubelet's status writes that list is ~45 % of the line and half its keys, and JSON.parse's
// cost in a busy process goes by keys (each one internalized and looked up in the map transitions). Only
// for readers that never look at managedFields (the watcher); any line not shaped as expected is returned
// unchanged, so JSON.parse sees the whole line and judges it.

const KEY = '"managedFields":[';
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COLON = 0x3a;

/** What opened a container on the way to the list: `"object":{`, `"metadata":{`, or anything else. */
const OTHER = 0;
const OBJECT = 1;
const METADATA = 2;
type Opened = typeof OTHER | typeof OBJECT | typeof METADATA;

/** Index just past the string whose opening quote is at `i`, or -1 when it never closes. */
function stringEnd(s: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = s.indexOf('"', from);
    if (q < 0) return -1;
    let k = q - 1;
    while (s.charCodeAt(k) === BACKSLASH) k--;
    // An even run of backslashes escapes itself, not the quote.
    if ((q - 1 - k) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/** Whether the member at `at` is a key of `{"object":{"metadata":{…` at the top of the line. */
function atObjectMetadata(s: string, at: number): boolean {
  const stack: Opened[] = [];
  let pending: Opened = OTHER;
  let i = 0;
  while (i < at) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(s, i);
      if (end < 0 || end > at) return false;
      if (s.charCodeAt(end) === COLON) {
        const len = end - i;
        pending =
          len === 8 && s.startsWith('"object"', i)
            ? OBJECT
            : len === 10 && s.startsWith('"metadata"', i)
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
function listEnd(s: string, open: number): number {
  const closers: number[] = [CLOSE_ARRAY];
  let i = open + 1;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(s, i);
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
 * The line with the member `"managedFields":[…]` of `object.metadata` removed (and the comma that joined
 * it); the line itself when it has none, or when anything about it is not as the API server writes it
 * (compact JSON): a string that does not close, brackets that do not match, the member elsewhere.
 */
export function withoutManagedFields(line: string): string {
  const at = line.indexOf(KEY);
  if (at < 1 || !atObjectMetadata(line, at)) return line;
  const end = listEnd(line, at + KEY.length - 1);
  if (end < 0) return line;
  const before = line.charCodeAt(at - 1);
  if (before === COMMA) return line.slice(0, at - 1) + line.slice(end);
  if (before !== OPEN_OBJECT) return line;
  const after = line.charCodeAt(end);
  if (after === COMMA) return line.slice(0, at) + line.slice(end + 1);
  if (after === CLOSE_OBJECT) return line.slice(0, at) + line.slice(end);
  return line;
}
