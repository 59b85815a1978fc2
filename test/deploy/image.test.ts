// The Dockerfile and .dockerignore, checked statically (no Docker engine here): stages, a non-root
// numeric user, production dependencies only, and every app's entry file and runtime imports present
// in the image.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  ENTRIES,
  REPO,
  dockerignore,
  execForm,
  parseDockerfile,
  readRepo,
  runtimeImports,
  stages,
  type Stage,
} from './support.ts';

const all = stages(parseDockerfile(readRepo('Dockerfile')));
const runtime = all.at(-1) as Stage;
const ignored = dockerignore(readRepo('.dockerignore'));
const rootPkg = JSON.parse(readRepo('package.json')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

const of = (stage: Stage, keyword: string) => stage.instructions.filter((i) => i.keyword === keyword);

/** Repository paths the runtime stage copies from the build context (not from another stage). */
function contextCopies(stage: Stage): string[] {
  return of(stage, 'COPY')
    .filter((c) => !/--from=/.test(c.args))
    .flatMap((c) => {
      const words = c.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      return words.slice(0, -1).map((w) => w.replace(/^\.\//, '').replace(/\/$/, ''));
    });
}

test('the Dockerfile is multi-stage on Node 24 and the last stage is the runtime', () => {
  assert.ok(all.length >= 2, `expected several stages, saw ${all.length}`);
  for (const s of all) {
    assert.match(
      s.image,
      /^node:24(\.|-|$)/,
      `stage ${s.name ?? '?'} must build on node:24*, saw ${s.image}`,
    );
  }
  const names = all.map((s) => s.name);
  assert.equal(new Set(names).size, names.length, 'stage names are unique');
});

test('the runtime stage runs as a numeric non-root user', () => {
  const users = of(runtime, 'USER');
  assert.ok(users.length > 0, 'the runtime stage sets USER');
  const user = (users.at(-1)?.args ?? '').split(':');
  assert.match(user[0] ?? '', /^\d+$/, 'USER is numeric (Kubernetes runAsNonRoot can verify it)');
  assert.notEqual(Number(user[0]), 0, 'USER is not root');
  if (user[1] !== undefined) assert.notEqual(Number(user[1]), 0, 'group is not root');
  // Nothing after USER switches back.
  const last = runtime.instructions.findLastIndex((i) => i.keyword === 'USER');
  assert.ok(
    runtime.instructions.slice(last + 1).every((i) => i.keyword !== 'RUN'),
    'no RUN after USER (it would run as the app user anyway, but keeps the image layers predictable)',
  );
});

test('only production dependencies are installed, and the runtime takes its node_modules from there', () => {
  const runs = all.flatMap((s) => of(s, 'RUN').map((r) => ({ stage: s, run: r.args })));
  assert.ok(
    runs.every(({ run }) => !/\bnpm\s+(install|i|add)\b/.test(run)),
    'no `npm install` (npm ci keeps to the lockfile)',
  );
  const ci = runs.filter(({ run }) => /\bnpm\s+ci\b/.test(run));
  assert.equal(ci.length, 1, 'one npm ci');
  const [{ stage, run }] = ci as [{ stage: Stage; run: string }];
  assert.match(run, /--omit=dev\b/, 'npm ci --omit=dev');
  assert.ok(stage !== runtime, 'dependencies install in a build stage, not in the runtime stage');
  const fromDeps = of(runtime, 'COPY').filter((c) => c.args.includes(`--from=${stage.name}`));
  assert.ok(
    fromDeps.some((c) => /node_modules/.test(c.args)),
    `the runtime stage copies node_modules from stage ${stage.name}`,
  );
  // The `node` devDependency (a Node binary from npm) must not be what runs: the base image's node does.
  assert.ok('node' in rootPkg.devDependencies && !('node' in rootPkg.dependencies));
});

test('.dockerignore keeps host state out of the build context', () => {
  for (const p of [
    'node_modules',
    'node_modules/yaml/package.json',
    'apps/worker/node_modules/x',
    '.git',
    '.git/HEAD',
    '.tmp',
    '.tmp/x.log',
    'apps/worker/src/controller.test.ts',
  ]) {
    assert.ok(ignored(p), `${p} is excluded`);
  }
  for (const p of [
    'package.json',
    'package-lock.json',
    'apps/worker/src/main.ts',
    'libs/config/package.json',
  ]) {
    assert.ok(!ignored(p), `${p} is kept`);
  }
});

for (const [app, entry] of Object.entries(ENTRIES)) {
  test(`${app}: ${entry} and everything it loads are in the image; it imports production dependencies only`, () => {
    assert.ok(existsSync(path.join(REPO, entry)), `${entry} exists`);
    const copied = contextCopies(runtime);
    const graph = runtimeImports(entry);
    assert.deepEqual(graph.unresolved, [], 'every relative and workspace import resolves');
    for (const file of graph.files) {
      assert.ok(!ignored(file), `${file} is loaded at run time but .dockerignore excludes it`);
      assert.ok(
        copied.some((c) => file === c || file.startsWith(`${c}/`)),
        `${file} is loaded at run time but no COPY in the runtime stage brings it (copies: ${copied.join(', ')})`,
      );
    }
    for (const [pkg, by] of graph.packages) {
      assert.ok(
        pkg in rootPkg.dependencies,
        `${pkg} (imported by ${by.join(', ')}) must be a production dependency` +
          (pkg in rootPkg.devDependencies ? ' (it is a devDependency, left out of the image)' : ''),
      );
    }
    // Workspace package.json files must be in the context too (npm ci links the workspaces).
    for (const file of graph.files) {
      const pkgDir = file.split('/').slice(0, 2).join('/');
      if (existsSync(path.join(REPO, pkgDir, 'package.json'))) {
        assert.ok(!ignored(`${pkgDir}/package.json`), `${pkgDir}/package.json is in the context`);
      }
    }
    const cmd = execForm(of(runtime, 'CMD').at(-1)?.args ?? '');
    assert.ok(cmd && cmd[0] === 'node' && existsSync(path.join(REPO, cmd[1] ?? '')), 'CMD is `node <entry>`');
  });
}

test('every workspace package.json reaches the dependency stage (npm ci links every workspace in the lockfile)', () => {
  const lock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { link?: boolean; resolved?: string }>;
  };
  const workspaces = Object.values(lock.packages)
    .filter((p) => p.link === true && p.resolved !== undefined)
    .map((p) => p.resolved as string);
  assert.ok(workspaces.length > 0);
  for (const ws of workspaces) {
    assert.ok(existsSync(path.join(REPO, ws, 'package.json')), `${ws}/package.json exists`);
    assert.ok(!ignored(`${ws}/package.json`), `${ws}/package.json is in the build context`);
  }
});

test('the lockfile the image installs from is the one in the repository', () => {
  const lock = JSON.parse(readFileSync(path.join(REPO, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  for (const name of Object.keys(rootPkg.dependencies)) {
    const entry = lock.packages[`node_modules/${name}`];
    assert.ok(entry, `${name} is in package-lock.json`);
    assert.notEqual(entry.dev, true, `${name} is not marked dev in the lockfile`);
  }
});
