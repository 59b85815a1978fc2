// The project files a platform team reads before installing: the license (and that every package says
// which), the changelog's format, and that the commands and links of the front-door documents exist.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { PRODUCTION_TARGET, lineage, parseDockerfile, stages } from '../deploy/support.ts';
import { REPO, read, repoFiles } from './walker.ts';

const DEBIAN_APACHE = '/usr/share/common-licenses/Apache-2.0';
/** sha256 of the Apache License 2.0 text as distributed (Debian's common-licenses copy). */
const APACHE_SHA256 = 'cfc7749b96f63bd31c3c42b5c471bf756814053e847c10f3eb003417bc523d30';

interface PackageJson {
  name: string;
  version: string;
  license?: string;
  workspaces?: string[];
  scripts?: Record<string, string>;
}
const root = JSON.parse(read('package.json')) as PackageJson;
const workspaceFiles = repoFiles((root.workspaces ?? []).map((pattern) => `${pattern}/package.json`));

test('LICENSE is the Apache License 2.0, in full', () => {
  const text = read('LICENSE');
  if (existsSync(DEBIAN_APACHE)) assert.equal(text, readFileSync(DEBIAN_APACHE, 'utf8'));
  assert.equal(createHash('sha256').update(text).digest('hex'), APACHE_SHA256);
  assert.match(text, /Apache License\s+Version 2\.0, January 2004/);
  assert.match(text, /END OF TERMS AND CONDITIONS/);
});

test('every package.json, and its lockfile entry, says Apache-2.0', () => {
  assert.ok(workspaceFiles.length >= 10, `workspaces found: ${workspaceFiles.join(', ')}`);
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, { license?: string }> };
  for (const file of ['package.json', ...workspaceFiles]) {
    const pkg = JSON.parse(read(file)) as PackageJson;
    assert.equal(pkg.license, 'Apache-2.0', `${file}: license`);
    const dir = path.dirname(file) === '.' ? '' : path.dirname(file);
    assert.equal(lock.packages[dir]?.license, 'Apache-2.0', `package-lock.json packages["${dir}"].license`);
  }
});

test('CHANGELOG.md follows Keep a Changelog and has an entry for the version in package.json', () => {
  const text = read('CHANGELOG.md');
  assert.match(text, /^# Changelog\n/);
  assert.match(text, /keepachangelog\.com/);
  const versions = [...text.matchAll(/^## (.*)$/gm)].map((m) => m[1] as string);
  assert.equal(versions[0], '[Unreleased]', 'the first section is [Unreleased]');
  const released = versions.slice(1).map((heading) => {
    const m = /^\[(\d+\.\d+\.\d+(?:-[\w.]+)?)\] - (\d{4}-\d{2}-\d{2})$/.exec(heading);
    assert.ok(m, `"## ${heading}" is not "## [x.y.z] - YYYY-MM-DD"`);
    const date = m[2] as string;
    assert.equal(new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10), date, `${date} is not a date`);
    return { version: m[1] as string, date };
  });
  assert.ok(
    released.some((r) => r.version === root.version),
    `no "## [${root.version}] - date" for package.json's version`,
  );
  const dates = released.map((r) => r.date);
  assert.deepEqual(dates, [...dates].sort().reverse(), 'releases newest first');
  for (const m of text.matchAll(/^### (.*)$/gm)) {
    assert.ok(
      ['Added', 'Changed', 'Deprecated', 'Removed', 'Fixed', 'Security'].includes(m[1] as string),
      `"### ${m[1]}" is not a Keep a Changelog change type`,
    );
  }
});

const FRONT_DOOR = [
  'README.md',
  'CONTRIBUTING.md',
  'SECURITY.md',
  'CHANGELOG.md',
  'docs/install.md',
  'docs/uninstall.md',
];

/** Every Markdown file of the repository but the changelog (its entries are history, as written then). */
const DOCS = repoFiles('**/*.md').filter((file) => file !== 'CHANGELOG.md');

test('every `npm run X` in the docs is a script of package.json', () => {
  const scripts = new Set(Object.keys(root.scripts ?? {}));
  let seen = 0;
  for (const file of DOCS) {
    for (const m of read(file).matchAll(/npm run (?:--?\w[\w-]* )*([a-z][\w:-]*)/g)) {
      seen++;
      assert.ok(scripts.has(m[1] as string), `${file}: "${m[0]}" — package.json has no script "${m[1]}"`);
    }
  }
  assert.ok(seen >= 10, `only ${seen} npm run commands found`);
});

/** What makes `node` the project's Node 24 for the rest of a document (CONTRIBUTING's setup says it). */
const PROJECT_NODE_ON_PATH = 'export PATH=$PWD/node_modules/.bin:$PATH';
/**
 * `node` running a TypeScript file or the test runner. A machine's own `node` may be older than the
 * project's (Node 20 refuses `.ts`), so the docs give an npm script, or `node_modules/.bin/node`, or
 * `npx node`. Inside the image (`docker run … node …`) node is the image's.
 */
const BARE_NODE_ON_TS =
  /(?<![\w./-])(?<!npx )node\s+(?:-[\w-]+(?:[= ][^\s`-]\S*)?\s+)*?(?:--test\b|[^\s`]+\.ts\b)/g;

export function bareNodeCommands(text: string): string[] {
  const pathSetAt = text.indexOf(PROJECT_NODE_ON_PATH);
  const found: string[] = [];
  for (const m of text.matchAll(BARE_NODE_ON_TS)) {
    const lineStart = text.lastIndexOf('\n', m.index) + 1;
    const line = text.slice(lineStart, text.indexOf('\n', m.index) >>> 0);
    if (/\bdocker\b/.test(line)) continue;
    if (pathSetAt >= 0 && pathSetAt < m.index) continue;
    found.push(m[0]);
  }
  return found;
}

test('no doc runs a .ts file or the test runner with a bare `node` (the system Node may be too old)', () => {
  assert.deepEqual(bareNodeCommands('run `node scripts/config-docs.ts`'), ['node scripts/config-docs.ts']);
  assert.deepEqual(bareNodeCommands('`SCREENSHOTS=1 node --test test/a.test.ts`'), ['node --test']);
  assert.deepEqual(bareNodeCommands('node --import x.ts bench/run.ts'), ['node --import x.ts bench/run.ts']);
  assert.deepEqual(
    bareNodeCommands('node_modules/.bin/node --test test/chaos/ or npx node bench/run.ts'),
    [],
  );
  assert.deepEqual(bareNodeCommands(`${PROJECT_NODE_ON_PATH}\nnode --test test/e2e/x.test.ts`), []);
  assert.deepEqual(bareNodeCommands('docker run --rm img node apps/watcher/src/main.ts'), []);
  const offenders = DOCS.flatMap((file) => bareNodeCommands(read(file)).map((c) => `${file}: ${c}`));
  assert.deepEqual(offenders, [], 'give an npm script (or node_modules/.bin/node) instead');
});

test('no YAML comment (a generated file says how to regenerate it) runs a .ts file with a bare `node`', () => {
  const yamls = repoFiles('**/*.{yaml,yml}');
  assert.ok(yamls.includes('crds/podset.yaml'));
  // Comments only: a container's command runs the image's node.
  const comments = (text: string) =>
    text
      .split('\n')
      .filter((l) => l.trimStart().startsWith('#'))
      .join('\n');
  const offenders = yamls.flatMap((file) =>
    bareNodeCommands(comments(read(file))).map((c) => `${file}: ${c}`),
  );
  assert.deepEqual(offenders, [], 'name the npm script instead');
});

test('README links SECURITY.md and CONTRIBUTING.md; their relative links resolve', () => {
  const readme = read('README.md');
  for (const file of ['SECURITY.md', 'CONTRIBUTING.md', 'CHANGELOG.md', 'LICENSE', 'docs/install.md']) {
    assert.ok(readme.includes(`](${file})`), `README.md does not link ${file}`);
  }
  for (const file of FRONT_DOOR) {
    for (const m of read(file).matchAll(/\]\(([^)\s#]+)(?:#[^)]*)?\)/g)) {
      const target = m[1] as string;
      if (/^[a-z]+:/.test(target)) continue;
      const resolved = path.resolve(REPO, path.dirname(file), target);
      assert.ok(existsSync(resolved), `${file}: link ${target} does not resolve`);
    }
  }
});

test('the image carries LICENSE (the production target copies it; .dockerignore keeps it in the context)', () => {
  const runtime = stages(parseDockerfile(read('Dockerfile'))).find((st) => st.name === PRODUCTION_TARGET);
  assert.ok(runtime, `the Dockerfile has its production stage ${PRODUCTION_TARGET}`);
  // The target's own instructions and those of the stages it is built FROM.
  const copies = lineage(runtime).filter((i) => i.keyword === 'COPY' && !i.args.includes('--from='));
  assert.ok(
    copies.some((c) => /(?:^|\s)LICENSE(?:\s|$)/.test(c.args)),
    `the ${PRODUCTION_TARGET} target copies LICENSE`,
  );
  const ignored = read('.dockerignore')
    .split('\n')
    .map((l) => l.trim());
  assert.ok(!ignored.includes('LICENSE') && !ignored.includes('*'), '.dockerignore leaves LICENSE out');
});
