// The two trees a compare runs: the base (REF's prepared worktree, or a tree given ready) and the head (this
// working tree, uncommitted changes included), each with what its own bench accepts.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { prepareBaseTree, READY_MARKER } from './base-tree.ts';
import { runStreamed } from './child.ts';
import type { Side } from './plan.ts';

export interface Tree {
  side: Side;
  dir: string;
  /** The commit checked out ('' when the directory is not a git checkout). */
  sha: string;
  /** What the user named it by (REF, the --base-dir, or "working tree"). */
  label: string;
  /** Changes not committed (the head's, usually the point of the compare). */
  dirty: boolean;
  how: 'cached' | 'prepared' | 'given' | 'working tree';
  /** The bench's --help text in this tree: what options and scenarios its bench knows. */
  usage: string;
}

export const nodeOf = (dir: string): string => path.join(dir, 'node_modules/.bin/node');

const gitOr = (cwd: string, args: readonly string[], fallback: string): string => {
  try {
    return execFileSync('git', ['-C', cwd, ...args], { stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return fallback;
  }
};

/** The bench's usage text of the tree at `dir` (run with its own node). */
function usageOf(dir: string): string {
  try {
    return execFileSync(nodeOf(dir), [path.join(dir, 'bench/run.ts'), '--help'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: 60_000,
    }).toString();
  } catch (err) {
    throw new Error(`the bench at ${dir} did not print its usage: ${(err as Error).message}`, { cause: err });
  }
}

/**
 * Whether `git status --porcelain` shows changes. New files not yet added run too, so they count; the marker
 * a prepared base tree keeps for itself (READY_MARKER) does not.
 */
export function hasChanges(porcelain: string): boolean {
  return porcelain.split('\n').some((line) => line.trim() !== '' && line !== `?? ${READY_MARKER}`);
}

function describe(side: Side, dir: string, label: string, how: Tree['how']): Tree {
  if (!existsSync(nodeOf(dir)))
    throw new Error(`${side} tree ${dir} has no node_modules/.bin/node: run npm ci there first`);
  const sha = gitOr(dir, ['rev-parse', 'HEAD'], '');
  const dirty = hasChanges(gitOr(dir, ['status', '--porcelain'], ''));
  return { side, dir, sha, label, dirty, how, usage: usageOf(dir) };
}

export function headTree(repo: string): Tree {
  return describe('head', repo, 'working tree', 'working tree');
}

/** The base: `baseDir` as given, or REF prepared in its cached worktree (npm ci streamed to `out`). */
export async function baseTree(
  o: { repo: string; base?: string; baseDir?: string; fresh: boolean },
  log: (line: string) => void,
  out: (line: string) => void,
): Promise<Tree> {
  if (o.baseDir !== undefined) {
    const dir = path.resolve(o.baseDir);
    return describe('base', dir, dir, 'given');
  }
  const ref = o.base!;
  const prepared = await prepareBaseTree({
    repo: o.repo,
    ref,
    fresh: o.fresh,
    log,
    install: async (dir) => {
      const r = await runStreamed('npm', ['ci', '--no-audit', '--no-fund'], {
        cwd: dir,
        prefix: '[base npm ci] ',
        out,
      });
      if (r.code !== 0)
        throw new Error(
          `npm ci in the base tree failed (${r.signal ?? `exit ${r.code}`}):\n${r.tail.join('\n')}`,
        );
    },
  });
  return describe('base', prepared.dir, ref, prepared.how);
}

/**
 * The options of `passthrough` that `tree`'s bench does not list in its usage (an older base may lack a newer
 * option): named before anything runs, rather than failing every run of that side.
 */
export function unknownOptions(tree: Tree, passthrough: readonly string[]): string[] {
  return passthrough
    .map((t) => /^--([\w-]+)/.exec(t)?.[1])
    .filter((name): name is string => name !== undefined)
    .filter((name) => !new RegExp(`--${name}\\b`).test(tree.usage));
}

/** Whether `tree`'s bench runs `scenario` (its usage names it). */
export const knowsScenario = (tree: Tree, scenario: string): boolean =>
  new RegExp(`\\b${scenario}\\b`).test(tree.usage.split('\n')[0] ?? '');

/**
 * What a side adds to its converge runs so both run the same pod lifecycle: a base from before kube-sim's
 * kubelet lifecycle knows only the fast one (and refuses `--lifecycle`), while the head's converge defaults
 * to the kubelet one; compared as they are, the two sides would run different worlds. Nothing when the user
 * chose the pods' runner (the base then refuses the option by name) or both sides know the option.
 */
export function sameLifecycleArgs(
  scenario: string,
  side: Side,
  trees: Record<Side, Pick<Tree, 'usage'>>,
  passthrough: readonly string[],
): string[] {
  if (scenario !== 'converge' || side !== 'head') return [];
  if (passthrough.some((t) => /^--(lifecycle|node-agent)\b/.test(t))) return [];
  const knows = (t: Pick<Tree, 'usage'>) => /--lifecycle\b/.test(t.usage);
  return knows(trees.head) && !knows(trees.base) ? ['--lifecycle', 'fast'] : [];
}
