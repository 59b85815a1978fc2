import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LineSplitter } from './line-splitter.ts';

/** Every line the splitter gives for `chunks`, the end's included. */
function split(chunks: readonly Buffer[]): string[] {
  const splitter = new LineSplitter();
  const lines: string[] = [];
  for (const chunk of chunks) lines.push(...text(splitter.push(chunk)));
  lines.push(...text(splitter.end()));
  return lines;
}

/** Lines' bytes decoded, as their reader decodes them. */
function text(lines: readonly Buffer[]): string[] {
  return lines.map((line) => line.toString('utf8'));
}

/** `text`'s bytes cut at the given byte offsets. */
function cut(text: string, at: readonly number[]): Buffer[] {
  const bytes = Buffer.from(text, 'utf8');
  const chunks: Buffer[] = [];
  let from = 0;
  for (const to of [...at, bytes.length]) {
    chunks.push(bytes.subarray(from, to));
    from = to;
  }
  return chunks;
}

test('lines of one chunk, the last ended or not', () => {
  assert.deepEqual(split(cut('{"a":1}\n{"b":2}\n', [])), ['{"a":1}', '{"b":2}']);
  assert.deepEqual(split(cut('{"a":1}\n{"b":2}', [])), ['{"a":1}', '{"b":2}']);
});

test('a line cut across chunks is joined, however many chunks it spans', () => {
  assert.deepEqual(split(cut('{"a":1}\n{"bb":22}\n', [3, 10, 12, 13])), ['{"a":1}', '{"bb":22}']);
  assert.deepEqual(split(cut('abcdef\n', [1, 2, 3, 4, 5, 6])), ['abcdef']);
});

test('a chunk that ends just before or just after a newline', () => {
  assert.deepEqual(split(cut('one\ntwo\n', [3])), ['one', 'two']);
  assert.deepEqual(split(cut('one\ntwo\n', [4])), ['one', 'two']);
});

test('a multi-byte character cut between chunks comes out whole', () => {
  const text = '{"name":"é€😀"}\n'; // 2, 3 and 4 bytes
  const bytes = Buffer.byteLength(text);
  for (let at = 1; at < bytes; at++)
    assert.deepEqual(split(cut(text, [at])), ['{"name":"é€😀"}'], `cut at ${at}`);
  assert.deepEqual(split(cut('😀😀\n', [1, 2, 3, 5, 6, 7])), ['😀😀']);
});

test('CRLF ends a line as LF does, also when CR and LF arrive in different chunks', () => {
  assert.deepEqual(split(cut('one\r\ntwo\r\n', [])), ['one', 'two']);
  assert.deepEqual(split(cut('one\r\ntwo\r\n', [4])), ['one', 'two']);
  assert.deepEqual(split(cut('one\r\ntwo\r', [4])), ['one', 'two']);
});

test('blank lines come out empty (the watch skips them), none made up at the end', () => {
  assert.deepEqual(split(cut('\n\none\n\n', [1])), ['', '', 'one', '']);
  assert.deepEqual(split(cut('\r\n', [])), ['']);
  assert.deepEqual(split([]), []);
  assert.deepEqual(split([Buffer.alloc(0)]), []);
});

test('push gives the lines as soon as their newline arrives, keeping only the unended one', () => {
  const splitter = new LineSplitter();
  assert.deepEqual(text(splitter.push(Buffer.from('{"a"'))), []);
  assert.deepEqual(text(splitter.push(Buffer.from(':1}\n{"b":'))), ['{"a":1}']);
  assert.deepEqual(text(splitter.push(Buffer.from('2}\n'))), ['{"b":2}']);
  assert.deepEqual(splitter.end(), []);
});

test('every cut of a body with all of these gives the lines of the whole body', () => {
  const text = '{"a":"é"}\r\n\n{"b":"€😀"}\n  \n{"c":3}';
  const want = ['{"a":"é"}', '', '{"b":"€😀"}', '  ', '{"c":3}'];
  const bytes = Buffer.byteLength(text);
  for (let i = 1; i < bytes; i++) {
    for (let j = i; j < bytes; j++) assert.deepEqual(split(cut(text, [i, j])), want, `cuts at ${i}, ${j}`);
  }
});
