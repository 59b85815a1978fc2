// One logger type: apps/, libs/, tools/ and bench/ take `Logger` from @podset/log (libs/log/src/index.ts), pino's
// shape, so a test passes one silent or recording logger and every part logs the same way. No other file
// declares a shape with log levels of its own (an interface, a type or an inline parameter type with two or more
// of debug/info/warn/error), and only the maker of the apps' logger names pino's own Logger type.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import ts from 'typescript';
import { repoSources, type Source } from './walker.ts';

const HOME = 'libs/log/src/index.ts';
/** Makes the apps' pino logger: the one place pino's type is named. */
const MAKER = 'libs/runtime/src/log.ts';
const LEVELS = new Set(['debug', 'info', 'warn', 'error']);
const PINO_LOGGER = /import\s+(?:type\s+)?\{[^}]*\bLogger\b[^}]*\}\s*from\s*'pino'|\bpino\.Logger\b/;

/** Each interface or type literal in the source that declares two or more log levels, as `file:line name`. */
export function logShapes(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isInterfaceDeclaration(node) || ts.isTypeLiteralNode(node)) {
      const levels = node.members.filter((m) => m.name !== undefined && LEVELS.has(m.name.getText(source)));
      if (levels.length >= 2) {
        const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
        const name = ts.isInterfaceDeclaration(node) ? node.name.text : '(type literal)';
        found.push(`${file}:${line} ${name}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const sources: Source[] = repoSources(['apps/**/*.ts', 'libs/**/*.ts', 'tools/**/*.ts', 'bench/**/*.ts']);

test('the check finds a logger shape of its own, however declared, and not a use of Logger', () => {
  const planted = [
    'interface UserLog {\n  info(obj: object, msg: string): void;\n  warn(obj: object, msg: string): void;\n}',
    'export type EgressLog = { warn: (f: object, m: string) => void; error: (f: object) => void };',
    'function f(opts: { log: { info(o: object): void; debug(o: object): void } }) {}',
  ];
  assert.deepEqual(
    planted.map((text) => logShapes('x.ts', text)),
    [['x.ts:1 UserLog'], ['x.ts:1 (type literal)'], ['x.ts:1 (type literal)']],
  );
  for (const fine of [
    "import type { Logger } from '@podset/log';\nfunction f(log: Pick<Logger, 'info' | 'warn'>) {}",
    'interface Counters { info: number }',
    'const log = { info: () => undefined, warn: () => undefined };',
  ]) {
    assert.deepEqual(logShapes('x.ts', fine), [], fine);
  }
  assert.match("import type { Logger } from 'pino';", PINO_LOGGER);
  assert.match("import { pino, type Logger, type LevelWithSilent } from 'pino';", PINO_LOGGER);
  assert.doesNotMatch("import { pino } from 'pino';", PINO_LOGGER);
});

test('only libs/log declares a logger shape', () => {
  assert.ok(
    sources.some((s) => s.file === HOME),
    HOME,
  );
  const found = sources.filter((s) => s.file !== HOME).flatMap((s) => logShapes(s.file, s.text));
  assert.deepEqual(found, [], `take Logger (or a Pick of it) from @podset/log (${HOME}) instead`);
});

test("only the apps' logger maker names pino's Logger type", () => {
  const found = sources.filter((s) => s.file !== MAKER && PINO_LOGGER.test(s.text)).map((s) => s.file);
  assert.deepEqual(found, [], 'take Logger from @podset/log: a pino logger is one');
});
