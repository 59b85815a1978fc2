// The one file walker of the architecture tests. Every structure rule reads the tree through it, so they all
// agree on what the tree is (node_modules, .tmp and .git left out, paths repo-relative with forward slashes,
// sorted) and a file several rules look at is read once.
import { globSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const REPO = path.resolve(import.meta.dirname, '../..');

/** A file and its text; `file` is relative to the repository (or to the root a caller asked for). */
export interface Source {
  file: string;
  text: string;
}

const IGNORED = /^(node_modules|\.tmp|\.git)$/;
const slash = (file: string) => file.split(path.sep).join('/');

/** The repository's files matching the globs, sorted. */
export function repoFiles(patterns: string | string[]): string[] {
  return globSync(patterns, { cwd: REPO, exclude: (p) => IGNORED.test(path.basename(p)) })
    .map(slash)
    .sort();
}

const texts = new Map<string, string>();

/** A repository file's text, read once. */
export function read(file: string): string {
  let text = texts.get(file);
  if (text === undefined) texts.set(file, (text = readFileSync(path.join(REPO, file), 'utf8')));
  return text;
}

/** The files matching the globs, with their texts. */
export function repoSources(patterns: string | string[]): Source[] {
  return repoFiles(patterns).map((file) => ({ file, text: read(file) }));
}

/** The sources under `root` (a repo-relative folder) named relative to it, `root/a/b.ts` as `a/b.ts`. */
export function sourcesUnder(root: string, patterns: string | string[]): Source[] {
  const globs = (Array.isArray(patterns) ? patterns : [patterns]).map((p) => `${root}/${p}`);
  return repoSources(globs).map((s) => ({ file: s.file.slice(root.length + 1), text: s.text }));
}

/** Every folder under `root` (repo-relative), relative to it, sorted. */
export function foldersUnder(root: string): string[] {
  const abs = path.join(REPO, root);
  return readdirSync(abs, { recursive: true, withFileTypes: true })
    .filter((d) => d.isDirectory() && !IGNORED.test(d.name))
    .map((d) => slash(path.relative(abs, path.join(d.parentPath, d.name))))
    .sort();
}

/** A test file by its name: `x.test.ts` or `x.compose-test.ts`. */
export function isTestFile(file: string): boolean {
  return /\.([a-z]+-)?test\.ts$/.test(file);
}
