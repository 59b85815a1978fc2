// bench compare's base tree: REF checked out in a worktree outside the repository, installed, kept per
// commit for the next compare, redone with --fresh, and removed when its checkout or install fails. On a
// throwaway repository with a stand-in install (the real one is npm ci), so no network and no minute.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { baseTreeDir, prepareBaseTree, READY_MARKER, resolveCommit } from '../../bench/compare/base-tree.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'compare-base-tree-'));
after(() => rmSync(root, { recursive: true, force: true }));
const repo = path.join(root, 'repo');
const cacheRoot = path.join(root, 'cache');
const git = (...args: string[]): string =>
  execFileSync('git', ['-C', repo, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
    .toString()
    .trim();

execFileSync('git', ['init', '-q', repo]);
git('config', 'user.email', 'bench@example.invalid');
git('config', 'user.name', 'bench');
writeFileSync(path.join(repo, 'version.txt'), 'one\n');
git('add', '.');
git('commit', '-qm', 'one');
const first = git('rev-parse', 'HEAD');
writeFileSync(path.join(repo, 'version.txt'), 'two\n');
git('commit', '-qam', 'two');

const installs: string[] = [];
const install = async (dir: string): Promise<void> => {
  installs.push(dir);
  writeFileSync(path.join(dir, 'installed.txt'), 'yes\n');
};
const worktrees = (): string => git('worktree', 'list', '--porcelain');
const log = (): void => {};

test('REF is checked out (detached, at its commit) outside the repository and installed', async () => {
  const tree = await prepareBaseTree({ repo, ref: 'HEAD~1', fresh: false, cacheRoot, install, log });
  assert.equal(tree.sha, first);
  assert.equal(tree.how, 'prepared');
  assert.equal(tree.dir, baseTreeDir(first, cacheRoot));
  assert.ok(!tree.dir.startsWith(repo + path.sep));
  assert.equal(readFileSync(path.join(tree.dir, 'version.txt'), 'utf8'), 'one\n');
  assert.ok(existsSync(path.join(tree.dir, 'installed.txt')));
  assert.equal(readFileSync(path.join(tree.dir, READY_MARKER), 'utf8').trim(), first);
  assert.ok(worktrees().includes(tree.dir));
  assert.deepEqual(installs, [tree.dir]);
});

test('a second compare against the same commit reuses the tree; --fresh redoes it', async () => {
  installs.length = 0;
  const again = await prepareBaseTree({ repo, ref: first, fresh: false, cacheRoot, install, log });
  assert.equal(again.how, 'cached');
  assert.deepEqual(installs, []);
  const fresh = await prepareBaseTree({ repo, ref: first, fresh: true, cacheRoot, install, log });
  assert.equal(fresh.how, 'prepared');
  assert.deepEqual(installs, [fresh.dir]);
});

test('a tree whose install failed (or was interrupted) is removed, and redone next time', async () => {
  const failing = async (): Promise<void> => {
    throw new Error('npm ci failed');
  };
  await assert.rejects(
    prepareBaseTree({ repo, ref: 'HEAD', fresh: false, cacheRoot, install: failing, log }),
    /npm ci failed/,
  );
  const dir = baseTreeDir(git('rev-parse', 'HEAD'), cacheRoot);
  assert.ok(!existsSync(dir), 'the half-made tree is gone');
  assert.ok(!worktrees().includes(dir), 'and no longer in the worktree list');
  const tree = await prepareBaseTree({ repo, ref: 'HEAD', fresh: false, cacheRoot, install, log });
  assert.equal(tree.how, 'prepared');
});

test('a leftover directory without the ready marker is not trusted', async () => {
  const dir = baseTreeDir(first, cacheRoot);
  rmSync(path.join(dir, READY_MARKER));
  installs.length = 0;
  const tree = await prepareBaseTree({ repo, ref: first, fresh: false, cacheRoot, install, log });
  assert.equal(tree.how, 'prepared');
  assert.deepEqual(installs, [dir]);
});

test('a REF that names no commit is said so', () => {
  assert.throws(() => resolveCommit(repo, 'no-such-branch'), /--base no-such-branch: not a commit/);
});
