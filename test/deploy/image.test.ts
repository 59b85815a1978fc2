// The Dockerfile and .dockerignore, checked statically (no Docker engine here): stages, a non-root
// numeric user, production dependencies only, every app's entry file and runtime imports present in the
// image it runs from, and kube-sim (a development tool) in a target of its own, never in production.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import {
  ENTRIES,
  KUBE_SIM_TARGET,
  PRODUCTION_TARGET,
  REPO,
  TARGET_OF,
  dockerignore,
  execForm,
  lineage,
  lockInstall,
  parseDockerfile,
  parseNpmCi,
  readRepo,
  runtimeImports,
  stages,
  type Instruction,
  type Lockfile,
  type NpmCi,
  type Stage,
} from './support.ts';

const all = stages(parseDockerfile(readRepo('Dockerfile')));
const ignored = dockerignore(readRepo('.dockerignore'));
const rootPkg = JSON.parse(readRepo('package.json')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};
const kubeSimPkg = JSON.parse(readRepo('tools/kube-sim/package.json')) as {
  dependencies?: Record<string, string>;
};
const lock = JSON.parse(readRepo('package-lock.json')) as Lockfile;

function target(name: string): Stage {
  const s = all.find((st) => st.name === name);
  assert.ok(s, `the Dockerfile has a stage ${name}`);
  return s;
}

const of = (stage: Stage, keyword: string): Instruction[] =>
  lineage(stage).filter((i) => i.keyword === keyword);

/** Repository paths a target copies from the build context ('' for the whole context). */
function contextCopies(stage: Stage): string[] {
  return of(stage, 'COPY')
    .filter((c) => !/--from=/.test(c.args))
    .flatMap((c) => {
      const words = c.args.split(/\s+/).filter((w) => !w.startsWith('--'));
      return words.slice(0, -1).map((w) => path.posix.normalize(w).replace(/^\.$/, '').replace(/\/$/, ''));
    });
}

const covers = (copy: string, file: string): boolean =>
  copy === '' || file === copy || file.startsWith(`${copy}/`);

/** The npm ci runs of the stages a target takes node_modules from. */
function installs(stage: Stage): NpmCi[] {
  return of(stage, 'COPY').flatMap((c) => {
    const from = /--from=(\S+)/.exec(c.args)?.[1];
    if (from === undefined || !/node_modules/.test(c.args)) return [];
    return of(target(from), 'RUN').flatMap((r) => parseNpmCi(r.args) ?? []);
  });
}

/** What a target's node_modules hold (package-lock.json locations). */
function installed(stage: Stage): Set<string> {
  return new Set(installs(stage).flatMap((ci) => [...lockInstall(lock, ci)]));
}

/** Whether a bare import from `file` finds the package among the installed locations. */
function resolves(pkg: string, file: string, locations: Set<string>): boolean {
  const ws = file.split('/').slice(0, 2).join('/');
  return locations.has(`node_modules/${pkg}`) || locations.has(`${ws}/node_modules/${pkg}`);
}

const production = target(PRODUCTION_TARGET);
const kubeSim = target(KUBE_SIM_TARGET);
const productionApps = Object.keys(ENTRIES).filter((app) => TARGET_OF[app] === PRODUCTION_TARGET);
const kubeSimGraph = runtimeImports(ENTRIES['kube-sim'] as string);
/** Packages kube-sim loads that no production app does: the production image must not install them. */
const kubeSimOnly = [...kubeSimGraph.packages.keys()].filter(
  (pkg) => !productionApps.some((app) => runtimeImports(ENTRIES[app] as string).packages.has(pkg)),
);

test('the Dockerfile is multi-stage on Node 24 and the last stage is the production target', () => {
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
  // `docker build .` (and so k8s/'s podset-operator image) builds the last stage.
  assert.equal(all.at(-1)?.name, PRODUCTION_TARGET, 'the default target is the production image');
  assert.notEqual(kubeSim, production);
});

test("the Dockerfile names no # syntax= frontend: it builds with the builder's own, with no registry", () => {
  // A `# syntax=` parser directive makes every BuildKit build (Docker 23+ and Compose v2 by default) pull
  // that frontend image before the first step, so an air-gapped or mirrored build fails; the file uses
  // nothing beyond the built-in frontend.
  const directives = readRepo('Dockerfile')
    .split('\n')
    .filter((l) => /^\s*#\s*syntax\s*=/i.test(l));
  assert.deepEqual(directives, [], 'no # syntax= line in the Dockerfile');
});

for (const stage of [production, kubeSim]) {
  test(`${stage.name}: runs as a numeric non-root user`, () => {
    const users = of(stage, 'USER');
    assert.ok(users.length > 0, 'the target sets USER');
    const user = (users.at(-1)?.args ?? '').split(':');
    assert.match(user[0] ?? '', /^\d+$/, 'USER is numeric (Kubernetes runAsNonRoot can verify it)');
    assert.notEqual(Number(user[0]), 0, 'USER is not root');
    if (user[1] !== undefined) assert.notEqual(Number(user[1]), 0, 'group is not root');
    // Nothing after USER switches back.
    const ins = lineage(stage);
    const last = ins.findLastIndex((i) => i.keyword === 'USER');
    assert.ok(
      ins.slice(last + 1).every((i) => i.keyword !== 'RUN'),
      'no RUN after USER (it would run as the app user anyway, but keeps the image layers predictable)',
    );
  });
}

test('dependencies install with npm ci --omit=dev in build stages, and the targets take node_modules from there', () => {
  const runs = all.flatMap((s) => s.instructions.filter((i) => i.keyword === 'RUN').map((r) => ({ s, r })));
  assert.ok(
    runs.every(({ r }) => !/\bnpm\s+(install|i|add)\b/.test(r.args)),
    'no `npm install` (npm ci keeps to the lockfile)',
  );
  const ci = runs.filter(({ r }) => parseNpmCi(r.args) !== undefined);
  assert.ok(ci.length > 0, 'an npm ci');
  for (const { s, r } of ci) {
    assert.equal(parseNpmCi(r.args)?.omitDev, true, `${s.name}: npm ci --omit=dev (line ${r.line})`);
    for (const t of [production, kubeSim]) {
      assert.ok(
        !lineage(t).includes(r),
        `${s.name}: dependencies install in a build stage, not in ${t.name}`,
      );
    }
  }
  for (const t of [production, kubeSim]) {
    assert.ok(installed(t).size > 0, `${t.name} copies node_modules from a stage that runs npm ci`);
  }
  // The `node` devDependency (a Node binary from npm) must not be what runs: the base image's node does.
  assert.ok('node' in rootPkg.devDependencies && !('node' in rootPkg.dependencies));
  assert.ok(!installed(production).has('node_modules/node') && !installed(kubeSim).has('node_modules/node'));
});

test(`${PRODUCTION_TARGET}: no tools/ (kube-sim is a development tool) is copied or installed`, () => {
  assert.ok('tools/kube-sim' in lock.packages, 'kube-sim is a workspace (else this check means nothing)');
  for (const copy of contextCopies(production)) {
    assert.ok(
      !covers(copy, 'tools/kube-sim/src/cmd/main.ts') && !copy.startsWith('tools'),
      `the production image copies ${copy === '' ? 'the whole context' : copy}, which brings tools/`,
    );
  }
  const locations = [...installed(production)];
  assert.deepEqual(
    locations.filter((l) => l.startsWith('tools/') || l.startsWith('node_modules/@podset/kube-sim')),
    [],
    'the production npm ci leaves the tools/ workspaces out (select libs and apps with --workspace)',
  );
});

test(`${PRODUCTION_TARGET}: libs/testkit (test helpers) is neither copied nor installed`, () => {
  assert.ok('libs/testkit' in lock.packages, 'testkit is a workspace (else this check means nothing)');
  for (const app of productionApps) {
    const graph = runtimeImports(ENTRIES[app] as string);
    assert.ok(!graph.packages.has('@podset/testkit'), `${app} does not import @podset/testkit`);
    assert.ok(!graph.files.some((f) => f.startsWith('libs/testkit/')), `${app} loads no libs/testkit file`);
  }
  for (const copy of contextCopies(production)) {
    assert.ok(
      !covers(copy, 'libs/testkit/src/index.ts'),
      `the production image copies ${copy === '' ? 'the whole context' : copy}, which brings libs/testkit`,
    );
  }
  assert.deepEqual(
    [...installed(production)].filter(
      (l) => l === 'libs/testkit' || l.endsWith('node_modules/@podset/testkit'),
    ),
    [],
    'the production npm ci selects the libs/ workspaces the apps use by name, not libs/testkit',
  );
});

test(`${PRODUCTION_TARGET}: npm, npx and corepack are removed from the image`, () => {
  // What node:24-bookworm-slim installs beside node; the apps run with node alone.
  const tools = [
    '/usr/local/lib/node_modules/npm',
    '/usr/local/lib/node_modules/corepack',
    '/usr/local/bin/npm',
    '/usr/local/bin/npx',
    '/usr/local/bin/corepack',
  ];
  const removed = new Set(
    of(production, 'RUN').flatMap((r) =>
      [...r.args.matchAll(/\brm\s+-(?:rf|fr)\s+([^;&|]+)/g)].flatMap((m) => (m[1] ?? '').split(/[\s\\]+/)),
    ),
  );
  for (const t of tools) assert.ok(removed.has(t), `${t} is removed in ${PRODUCTION_TARGET}'s lineage`);
  // And nothing after the removal runs npm (it would fail, or bring it back).
  const ins = lineage(production);
  const at = ins.findIndex((i) => i.keyword === 'RUN' && i.args.includes('/usr/local/bin/npm'));
  assert.ok(
    ins
      .slice(at + 1)
      .every((i) => !(i.keyword === 'RUN' && /\bnp[mx]\b/.test(i.args.replace(/\/usr\/local\/\S+/g, '')))),
    'no npm after it is removed',
  );
});

test(`${PRODUCTION_TARGET}: kube-sim's own dependencies are not installed`, () => {
  assert.ok(kubeSimOnly.length > 0, 'kube-sim imports packages the apps do not (else nothing to check)');
  const locations = installed(production);
  for (const pkg of kubeSimOnly) {
    assert.ok(
      ![...locations].some((l) => l === `node_modules/${pkg}` || l.endsWith(`/node_modules/${pkg}`)),
      `${pkg} (kube-sim only) is installed in the production image: declare it in tools/kube-sim/package.json, not the root's dependencies`,
    );
    assert.ok(!(pkg in rootPkg.dependencies), `${pkg} is not a root production dependency`);
    assert.ok(pkg in (kubeSimPkg.dependencies ?? {}), `tools/kube-sim/package.json declares ${pkg}`);
  }
});

test('the install check notices kube-sim creeping back into the production install', () => {
  const [ci] = installs(production) as [NpmCi];
  const [pkg] = kubeSimOnly as [string];
  const has = (l: Set<string>) => l.has(`node_modules/${pkg}`);
  assert.ok(!has(lockInstall(lock, ci)));
  // Every workspace (a plain `npm ci --omit=dev`).
  assert.ok(has(lockInstall(lock, { ...ci, workspaces: undefined })));
  // The package back among the root's dependencies.
  const root = lock.packages[''] ?? {};
  const moved: Lockfile = {
    packages: { ...lock.packages, '': { ...root, dependencies: { ...root.dependencies, [pkg]: '*' } } },
  };
  assert.ok(has(lockInstall(moved, ci)));
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
  const stage = target(TARGET_OF[app] as string);
  test(`${app}: ${entry} and everything it loads are in the ${stage.name} image, with the packages it imports`, () => {
    assert.ok(existsSync(path.join(REPO, entry)), `${entry} exists`);
    const copied = contextCopies(stage);
    const graph = app === 'kube-sim' ? kubeSimGraph : runtimeImports(entry);
    assert.deepEqual(graph.unresolved, [], 'every relative and workspace import resolves');
    for (const file of graph.files) {
      assert.ok(!ignored(file), `${file} is loaded at run time but .dockerignore excludes it`);
      assert.ok(
        copied.some((c) => covers(c, file)),
        `${file} is loaded at run time but no COPY of ${stage.name} brings it (copies: ${copied.join(', ')})`,
      );
    }
    const locations = installed(stage);
    for (const [pkg, by] of graph.packages) {
      assert.ok(
        by.every((file) => resolves(pkg, file, locations)),
        `${pkg} (imported by ${by.join(', ')}) is not installed in the ${stage.name} image` +
          (stage === production
            ? ` (a production app's imports must be root dependencies${pkg in rootPkg.devDependencies ? '; it is a devDependency' : ''})`
            : ''),
      );
      if (stage === production) assert.ok(pkg in rootPkg.dependencies, `${pkg} is a production dependency`);
    }
    // Workspace package.json files must be in the context too (npm ci links the workspaces).
    for (const file of graph.files) {
      const pkgDir = file.split('/').slice(0, 2).join('/');
      if (existsSync(path.join(REPO, pkgDir, 'package.json'))) {
        assert.ok(!ignored(`${pkgDir}/package.json`), `${pkgDir}/package.json is in the context`);
      }
    }
  });
}

test('each target runs its own entry by default: the worker in production, kube-sim in its target', () => {
  const cmd = (s: Stage) => execForm(of(s, 'CMD').at(-1)?.args ?? '');
  assert.deepEqual(cmd(production), ['node', ENTRIES.worker]);
  assert.deepEqual(cmd(kubeSim), ['node', ENTRIES['kube-sim']]);
  assert.ok(
    of(kubeSim, 'EXPOSE').some((e) => /\b6443\b/.test(e.args)),
    'kube-sim exposes 6443',
  );
  assert.ok(!of(production, 'EXPOSE').some((e) => /\b6443\b/.test(e.args)), 'production does not');
});

test('every workspace package.json reaches the dependency stages (npm ci links every workspace in the lockfile)', () => {
  const workspaces = Object.values(lock.packages)
    .filter((p) => p.link === true && p.resolved !== undefined)
    .map((p) => p.resolved as string);
  assert.ok(workspaces.length > 0);
  for (const ws of workspaces) {
    assert.ok(existsSync(path.join(REPO, ws, 'package.json')), `${ws}/package.json exists`);
    assert.ok(!ignored(`${ws}/package.json`), `${ws}/package.json is in the build context`);
  }
});

test('the lockfile the images install from is the one in the repository', () => {
  const declared = { ...rootPkg.dependencies, ...kubeSimPkg.dependencies };
  for (const name of Object.keys(declared)) {
    const entry =
      lock.packages[`node_modules/${name}`] ?? lock.packages[`tools/kube-sim/node_modules/${name}`];
    assert.ok(entry, `${name} is in package-lock.json`);
    // Not dev, so both the images' `npm ci --omit=dev` and a development `npm ci` install it.
    assert.notEqual(entry.dev, true, `${name} is not marked dev in the lockfile`);
  }
  assert.deepEqual(lock.packages['tools/kube-sim']?.dependencies ?? {}, kubeSimPkg.dependencies ?? {});
});
