// The base side of a compare: REF checked out in a detached git worktree outside the repository, with its
// own npm ci (its workspaces' node_modules links point into its own libs/ and apps/), kept per commit so
// the next compare against the same commit starts at once. A checkout or install that fails or is
// interrupted is removed, never left half-made for the next compare to trust.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface BaseTree {
  dir: string;
  /** The full commit id REF named. */
  sha: string;
  /** `cached`: prepared by an earlier compare; `prepared`: checked out and installed now. */
  how: 'cached' | 'prepared';
}

/** Written last, holding the sha: a tree without it was never finished. */
export const READY_MARKER = '.bench-base-ready';

export interface PrepareOptions {
  /** The repository REF is resolved in and whose worktree list gets the base tree. */
  repo: string;
  ref: string;
  /** Redo the checkout and install even if a finished tree of the commit is there. */
  fresh: boolean;
  /** Where the trees are kept (default: the system's temporary directory). */
  cacheRoot?: string;
  /** Installs the tree's dependencies (default: npm ci); rejects when it fails. */
  install: (dir: string) => Promise<void>;
  log: (line: string) => void;
}

const git = (cwd: string, args: readonly string[]): string =>
  execFileSync('git', ['-C', cwd, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    .toString()
    .trim();

/** The commit REF names in `repo`, or an error that says REF is not one. */
export function resolveCommit(repo: string, ref: string): string {
  try {
    return git(repo, ['rev-parse', '--verify', '--quiet', `${ref}^{commit}`]);
  } catch {
    throw new Error(`--base ${ref}: not a commit of the repository at ${repo}`);
  }
}

/** The directory a commit's base tree is kept in (not podset-bench-*: those are the runs' own, removed after). */
export function baseTreeDir(sha: string, cacheRoot = os.tmpdir()): string {
  return path.join(cacheRoot, `podset-compare-base-${sha.slice(0, 12)}`);
}

/** Whether `dir` is a finished base tree of `sha` (its marker says so and its HEAD is that commit). */
function isReady(dir: string, sha: string): boolean {
  const marker = path.join(dir, READY_MARKER);
  if (!existsSync(marker) || readFileSync(marker, 'utf8').trim() !== sha) return false;
  try {
    return git(dir, ['rev-parse', 'HEAD']) === sha;
  } catch {
    return false;
  }
}

/** Removes a base tree: from the repository's worktree list, and from disk. */
export function removeBaseTree(repo: string, dir: string): void {
  try {
    git(repo, ['worktree', 'remove', '--force', dir]);
  } catch {
    // not a registered worktree (a leftover directory): removed below
  }
  rmSync(dir, { recursive: true, force: true });
  git(repo, ['worktree', 'prune']);
}

/** REF's tree, ready to run the bench: the cached one, or a new checkout and install. */
export async function prepareBaseTree(o: PrepareOptions): Promise<BaseTree> {
  const sha = resolveCommit(o.repo, o.ref);
  const dir = baseTreeDir(sha, o.cacheRoot);
  if (!o.fresh && isReady(dir, sha)) {
    o.log(`base: ${o.ref} (${sha.slice(0, 12)}) prepared earlier at ${dir}`);
    return { dir, sha, how: 'cached' };
  }
  removeBaseTree(o.repo, dir);
  try {
    o.log(`base: checking ${o.ref} (${sha.slice(0, 12)}) out at ${dir}`);
    git(o.repo, ['worktree', 'add', '--detach', dir, sha]);
    o.log('base: installing its dependencies (npm ci)');
    await o.install(dir);
    writeFileSync(path.join(dir, READY_MARKER), `${sha}\n`);
  } catch (err) {
    removeBaseTree(o.repo, dir);
    throw err;
  }
  return { dir, sha, how: 'prepared' };
}
