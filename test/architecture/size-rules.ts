// The size rules of the code-shape test as pure functions over (file, text) pairs, so the test can show each
// one flagging a planted violation before it judges the tree.
import { functionLengths } from './function-lengths.ts';
import type { Source } from './walker.ts';

/** Something over a limit: `key` is what an allow-list names (`file`, or `file name` for a function). */
export interface Oversize {
  key: string;
  lines: number;
}

/** Lines in a text, a final newline not counting as one more. */
export function lineCount(text: string): number {
  if (text === '') return 0;
  const lines = text.split('\n').length;
  return text.endsWith('\n') ? lines - 1 : lines;
}

export function longFiles(sources: readonly Source[], max: number): Oversize[] {
  return sources.map((s) => ({ key: s.file, lines: lineCount(s.text) })).filter((s) => s.lines > max);
}

export function longFunctions(sources: readonly Source[], max: number): Oversize[] {
  return sources.flatMap((s) =>
    functionLengths(s.file, s.text)
      .filter((f) => f.lines > max)
      .map((f) => ({ key: `${s.file} ${f.name}`, lines: f.lines })),
  );
}

/**
 * What breaks a rule: everything over it, less what the allow-list names at no more than its recorded count;
 * and the entries that match nothing over the limit, so a split must also take its entry out.
 */
export function judge(
  over: readonly Oversize[],
  allowed: Readonly<Record<string, number>>,
): { broken: string[]; stale: string[] } {
  const broken = over
    .filter((o) => !(o.lines <= (allowed[o.key] ?? 0)))
    .map((o) => `${o.key} (${o.lines} lines)`);
  const stale = Object.keys(allowed).filter((key) => !over.some((o) => o.key === key));
  return { broken, stale };
}
