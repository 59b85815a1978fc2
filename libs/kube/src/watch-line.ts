// A watch event's line without its object's metadata.managedFields. The field bookkeeping is nearly half
// of a pod's JSON and most of its objects (one `{}` per field a manager owns), and a watch that reads only
// spec, status and the rest of the metadata never looks at it. The member is found by a structural scan
// (strings with their escapes, brackets), never by a pattern over the whole line: the key counts only at
// event.object.metadata, never inside a string or elsewhere. Anything unexpected leaves the line as it is,
// so JSON.parse reports a broken line as before (only a line broken inside that member's value alone,
// its brackets and strings whole, is read without it).

const WS_SPACE = 0x20;
const WS_TAB = 0x09;
const WS_LF = 0x0a;
const WS_CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

const isSpace = (c: number): boolean => c === WS_SPACE || c === WS_LF || c === WS_CR || c === WS_TAB;

/** The index of the quote closing the string opened at `open`, or -1 when it is not closed. */
function stringEnd(text: string, open: number): number {
  // indexOf runs natively: a long string (an annotation of last-applied configuration) costs next to nothing.
  let j = text.indexOf('"', open + 1);
  while (j >= 0) {
    let backslashes = 0;
    for (let k = j - 1; text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return j;
    j = text.indexOf('"', j + 1);
  }
  return -1;
}

/** The index just past the array or object opening at `open`, or -1 when its brackets do not match. */
function containerEnd(text: string, open: number): number {
  const closers: number[] = [];
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (i < 0) return -1;
    } else if (c === OPEN_OBJECT) closers.push(CLOSE_OBJECT);
    else if (c === OPEN_ARRAY) closers.push(CLOSE_ARRAY);
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (closers.pop() !== c) return -1;
      if (closers.length === 0) return i + 1;
    }
  }
  return -1;
}

/**
 * `line` without the `managedFields` member of `object.metadata` (the comma beside it too), or `line`
 * itself when it has none or is not shaped as expected. For valid JSON, JSON.parse of the result equals
 * JSON.parse of `line` with that member deleted; a line broken outside that member stays broken.
 */
export function withoutManagedFields(line: string): string {
  if (!line.includes('"managedFields"')) return line;
  // Containers open: each one's closer, and the key it is the value of ('' for none).
  const closers: number[] = [];
  const keys: string[] = [];
  let key = ''; // the last key read in the innermost object
  let expectKey = false;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(line, i);
      if (end < 0) return line;
      if (expectKey) {
        expectKey = false;
        // Only keys of the event, its object and the object's metadata are ever compared.
        key = closers.length <= 3 ? line.slice(i + 1, end) : '';
        if (
          key === 'managedFields' &&
          closers.length === 3 &&
          keys[1] === 'object' &&
          keys[2] === 'metadata' &&
          closers[2] === CLOSE_OBJECT
        ) {
          return cut(line, i, end + 1);
        }
      }
      i = end;
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      keys.push(closers.length > 0 && closers[closers.length - 1] === CLOSE_OBJECT ? key : '');
      closers.push(c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY);
      expectKey = c === OPEN_OBJECT;
      key = '';
      // Deeper than the metadata's members: skipped whole.
      if (closers.length > 3) {
        const end = containerEnd(line, i);
        if (end < 0) return line;
        closers.pop();
        keys.pop();
        i = end - 1;
        expectKey = false;
      }
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (closers.pop() !== c) return line;
      key = keys.pop() ?? '';
      // The metadata closed without the member: nothing to cut.
      if (closers.length === 2 && key === 'metadata' && keys[1] === 'object') return line;
      expectKey = false;
    } else if (c === COMMA) {
      expectKey = closers[closers.length - 1] === CLOSE_OBJECT;
    }
  }
  return line;
}

/**
 * A list holding no list (outside its strings), from its `[` to its `]`: managedFields as the API server
 * writes it (its entries' fieldsV1 are objects of objects). One regular expression, run natively: a loop
 * over the characters in JavaScript cost about as much as the parse it saved. Single-character steps (no
 * nested quantifier), so a line it does not match fails in linear time.
 */
const FLAT_LIST = /\[(?:[^"[\]]|"(?:[^"\\]|\\.)*")*\]/y;

/** `line` without the member whose key spans [keyStart, keyEnd), or `line` when its value is no such list. */
function cut(line: string, keyStart: number, keyEnd: number): string {
  let i = keyEnd;
  while (i < line.length && isSpace(line.charCodeAt(i))) i++;
  if (line.charCodeAt(i) !== COLON) return line;
  i++;
  while (i < line.length && isSpace(line.charCodeAt(i))) i++;
  FLAT_LIST.lastIndex = i;
  if (!FLAT_LIST.test(line)) return line;
  const valueEnd = FLAT_LIST.lastIndex;
  // Take the comma before the member (it was not the first) or else the one after it (it was not the last).
  let before = keyStart - 1;
  while (before >= 0 && isSpace(line.charCodeAt(before))) before--;
  if (line.charCodeAt(before) === COMMA) return line.slice(0, before) + line.slice(valueEnd);
  let after = valueEnd;
  while (after < line.length && isSpace(line.charCodeAt(after))) after++;
  if (line.charCodeAt(after) === COMMA) return line.slice(0, keyStart) + line.slice(after + 1);
  return line.slice(0, keyStart) + line.slice(valueEnd);
}
