// kube-sim's layout rules, over its source (src/, test files aside): no function over 80 lines, no
// file over 600 (schema data aside), no import of the operator's `@podset/*` packages (the simulator must not
// depend on what it tests), no import cycle, every folder on the README's folder map, and folders that point
// one way: each top folder imports only the folders its row of ALLOWED_IMPORTS lists, and that table has no
// cycle (as k8s.io/apiserver's storage never imports its endpoints); nor do a folder and its subfolder import
// each other. The checkers are tried first on synthetic sources, so a rule that could not fail would show here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  describedAllowedImports,
  describedFolders,
  disallowedImports,
  folderGraph,
  functionSizes,
  importCycles,
  importGraph,
  podsetImports,
  type SourceFile,
  tableGraph,
  topFolder,
} from './kube-sim-layout.ts';
import { lineCount } from './size-rules.ts';
import { foldersUnder, isTestFile, read, repoFiles, sourcesUnder } from './walker.ts';

const SRC = 'tools/kube-sim/src';
const README = 'tools/kube-sim/README.md';
const MAX_FUNCTION_LINES = 80;
const MAX_FILE_LINES = 600;

/** Schema data (object literals, no logic): exempt from the file-size limit, as the issue allows. */
const SCHEMA_DATA_FILES = [
  'openapi/meta-schemas.ts',
  'openapi/builtin-schemas.ts',
  'openapi/parameters.ts',
  'apimachinery/protobuf-schemas.ts',
];

/**
 * Which top folders of src/ each top folder may import (`.` is src/index.ts, the package's entry), lowest
 * first. A folder's subfolders are part of it. The README's Layout section shows the same table.
 */
const ALLOWED_IMPORTS: Record<string, string[]> = {
  apimachinery: [],
  patch: ['apimachinery'],
  apiextensions: ['apimachinery'],
  fieldmanager: ['apimachinery', 'patch'],
  storage: ['apimachinery'],
  admission: ['apimachinery', 'storage'],
  registry: ['admission', 'apiextensions', 'apimachinery', 'fieldmanager', 'patch', 'storage'],
  openapi: ['apimachinery', 'registry'],
  controllers: ['admission', 'apimachinery', 'registry'],
  endpoints: ['apimachinery', 'fieldmanager', 'registry', 'storage'],
  server: ['admission', 'apimachinery', 'endpoints', 'openapi', 'registry', 'storage'],
  controlplane: ['apiextensions', 'apimachinery', 'registry', 'server', 'storage'],
  '.': [
    'admission',
    'apiextensions',
    'apimachinery',
    'controllers',
    'controlplane',
    'registry',
    'server',
    'storage',
  ],
  cmd: ['.', 'controllers', 'server'],
};

const src = (file: string, text: string): SourceFile => ({ file, text });
const body = (lines: number) =>
  Array.from({ length: lines - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');

describe('the checkers, on synthetic sources', () => {
  test('function length: the first to last line of each function, named by its class or variable', () => {
    const sizes = functionSizes(
      src(
        'a/x.ts',
        [
          `export function long() {\n${body(81)}\n}`,
          `export function fits() {\n${body(80)}\n}`,
          `class K {\n  method() {\n${body(81)}\n  }\n}`,
          `const arrow = () => {\n${body(81)}\n};`,
          `export function outer() {\n  const inner = function () {\n${body(81)}\n  };\n  return inner;\n}`,
        ].join('\n'),
      ),
    );
    const long = sizes.filter((s) => s.lines > MAX_FUNCTION_LINES).map((s) => `${s.id}:${s.lines}`);
    assert.deepEqual(long, [
      'a/x.ts#long:81',
      'a/x.ts#K.method:81',
      'a/x.ts#arrow:81',
      'a/x.ts#outer:84',
      'a/x.ts#outer.inner:81',
    ]);
    assert.equal(sizes.find((s) => s.id === 'a/x.ts#fits')?.lines, 80);
  });

  test('file length: lines, a final newline not counting as one more', () => {
    assert.equal(lineCount('a\nb\n'), 2);
    assert.equal(lineCount('a\nb'), 2);
    assert.equal(lineCount(`${'x\n'.repeat(601)}`), 601);
  });

  test('@podset imports: static, type-only, re-exports, import() and import types', () => {
    const found = podsetImports([
      src('a.ts', "import { x } from '@podset/reconcile';\nimport { y } from './y.ts';"),
      src('b.ts', "import type { T } from '@podset/state';"),
      src('c.ts', "export { z } from '@podset/queue';"),
      src('d.ts', "const m = await import('@podset/kube');"),
      src('e.ts', "let t: import('@podset/testkit').T;\nimport '@kubernetes/client-node';"),
    ]);
    assert.deepEqual(found, [
      'a.ts -> @podset/reconcile',
      'b.ts -> @podset/state',
      'c.ts -> @podset/queue',
      'd.ts -> @podset/kube',
      'e.ts -> @podset/testkit',
    ]);
  });

  test('import cycles: a strongly connected component of two or more files, or a file importing itself', () => {
    const graph = importGraph([
      src('x/a.ts', "import { b } from '../y/b.ts';"),
      src('y/b.ts', "import type { C } from './c.ts';"),
      src('y/c.ts', "export { a } from '../x/a.ts';"),
      src('y/d.ts', "import { a } from '../x/a.ts';\nimport { d } from './d.ts';"),
      src('z/e.ts', "import { a } from '../x/a.ts';\nimport { f } from 'node:fs';"),
    ]);
    assert.deepEqual(graph.get('y/d.ts'), ['x/a.ts', 'y/d.ts']);
    assert.deepEqual(importCycles(graph), ['x/a.ts <-> y/b.ts <-> y/c.ts', 'y/d.ts']);
    assert.deepEqual(importCycles(importGraph([src('a.ts', "import './b.ts';"), src('b.ts', '')])), []);
  });

  test('allowed imports: an import into a top folder its row does not list, a folder with no row', () => {
    const graph = importGraph([
      src(
        'storage/watch.ts',
        "import { table } from '../endpoints/table.ts';\nimport { s } from './store.ts';",
      ),
      src('storage/store.ts', "import { J } from '../apimachinery/json.ts';"),
      src(
        'endpoints/handlers/watch.ts',
        "import { w } from '../../storage/watch.ts';\nimport { t } from '../table.ts';",
      ),
      src('endpoints/table.ts', ''),
      src('apimachinery/json.ts', ''),
      src('index.ts', "import { w } from './storage/watch.ts';"),
      src('extra/x.ts', "import { J } from '../apimachinery/json.ts';"),
    ]);
    const allowed = { storage: ['apimachinery'], endpoints: ['storage'], '.': ['storage'] };
    assert.deepEqual(disallowedImports(graph, allowed), [
      'extra/x.ts -> apimachinery/json.ts (extra -> apimachinery)',
      'storage/watch.ts -> endpoints/table.ts (storage -> endpoints)',
    ]);
    assert.equal(topFolder('index.ts'), '.');
    assert.equal(topFolder('server/filters/faults.ts'), 'server');
  });

  test('allowed imports: a table whose folders import each other is a cycle', () => {
    assert.deepEqual(
      importCycles(tableGraph({ storage: ['endpoints'], endpoints: ['storage'], cmd: ['storage'] })),
      ['endpoints <-> storage'],
    );
    assert.deepEqual(importCycles(tableGraph({ storage: [], endpoints: ['storage'] })), []);
  });

  test('folders: a folder and its subfolder importing each other are a cycle, as two top folders would be', () => {
    const graph = importGraph([
      src('endpoints/resource.ts', "import { get } from './handlers/get.ts';"),
      src('endpoints/handlers/get.ts', "import { send } from '../response.ts';"),
      src('endpoints/response.ts', ''),
      src('registry/kinds/pods.ts', "import { s } from '../rest/strategy.ts';"),
      src('registry/rest/strategy.ts', ''),
      src('registry/store.ts', "import { p } from './kinds/pods.ts';"),
    ]);
    assert.deepEqual(importCycles(folderGraph(graph)), ['endpoints <-> endpoints/handlers']);
  });

  test("allowed imports: the README's table rows, `| \\`folder\\` | \\`a\\`, \\`b\\` |`", () => {
    const readme = [
      '# x',
      '## Layout',
      '| folder | may import |',
      '| --- | --- |',
      '| `storage` | `apimachinery` |',
      '| `.` | `storage`, `server` |',
      '| `apimachinery` | — |',
      '## Other',
      '| `elsewhere` | `x` |',
    ].join('\n');
    assert.deepEqual(describedAllowedImports(readme), {
      storage: ['apimachinery'],
      '.': ['server', 'storage'],
      apimachinery: [],
    });
  });

  test("folder map: the `- \\`src/<folder>/\\` — …` lines of the README's Layout section", () => {
    const readme = [
      '# x',
      '## Layout',
      'intro `src/not-a-line/`',
      '- `src/server/` — listening',
      '- `src/server/filters/` — before a handler',
      '- `src/empty/` —',
      '## Other',
      '- `src/elsewhere/` — not in the section',
    ].join('\n');
    assert.deepEqual(describedFolders(readme), ['server', 'server/filters']);
    assert.deepEqual(describedFolders('# no layout section'), []);
  });
});

describe('kube-sim/src', () => {
  const sources = sourcesUnder(SRC, '**/*.ts').filter((s) => !isTestFile(s.file));

  test('the source is there to check', () => {
    assert.ok(sources.length >= 50, `${sources.length} files under ${SRC}`);
  });

  test(`no function is longer than ${MAX_FUNCTION_LINES} lines`, () => {
    const long = sources
      .flatMap(functionSizes)
      .filter((f) => f.lines > MAX_FUNCTION_LINES)
      .map((f) => f.id);
    assert.deepEqual(long, [], 'functions over the limit');
  });

  test(`no file is longer than ${MAX_FILE_LINES} lines, schema data aside`, () => {
    for (const file of SCHEMA_DATA_FILES)
      assert.ok(repoFiles(`${SRC}/${file}`).length === 1, `${file} exists`);
    const long = sources
      .filter((s) => !SCHEMA_DATA_FILES.includes(s.file) && lineCount(s.text) > MAX_FILE_LINES)
      .map((s) => s.file);
    assert.deepEqual(long, [], 'files over the limit');
  });

  test('nothing imports an @podset/* package', () => {
    assert.deepEqual(podsetImports(sources), [], 'imports of the operator');
  });

  test('no import cycle among its modules (type-only imports included)', () => {
    assert.deepEqual(importCycles(importGraph(sources)), [], 'import cycles');
  });

  test('every import from one top folder into another is one its row of the allowed-imports table lists', () => {
    const tops = [...new Set(sources.map((s) => topFolder(s.file)))].sort();
    assert.deepEqual(Object.keys(ALLOWED_IMPORTS).sort(), tops, 'a row for every top folder, and no other');
    assert.deepEqual(
      disallowedImports(importGraph(sources), ALLOWED_IMPORTS),
      [],
      'imports the table does not allow',
    );
  });

  test('the allowed-imports table points one way: no folders import each other, directly or round a cycle', () => {
    assert.deepEqual(importCycles(tableGraph(ALLOWED_IMPORTS)), [], 'cycles in the table');
  });

  test('every folder and its subfolders point one way: no two folders import each other', () => {
    assert.deepEqual(importCycles(folderGraph(importGraph(sources))), [], 'folders importing each other');
  });

  test("the README's allowed-imports table is this one", () => {
    const sorted = Object.fromEntries(Object.entries(ALLOWED_IMPORTS).map(([k, v]) => [k, [...v].sort()]));
    assert.deepEqual(describedAllowedImports(read(README)), sorted);
  });

  test("every folder is on the README's folder map, and every folder there exists", () => {
    const described = describedFolders(read(README));
    const folders = foldersUnder(SRC);
    assert.deepEqual(
      folders.filter((f) => !described.includes(f)),
      [],
      'folders the map does not describe',
    );
    assert.deepEqual(
      described.filter((f) => !folders.includes(f)),
      [],
      'folders on the map that do not exist',
    );
  });
});
