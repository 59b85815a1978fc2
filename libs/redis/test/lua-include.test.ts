// The include-aware loader: `-- @include name` lines resolved in place from the modules given, each once.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { luaModule, luaScriptOf, resolveLua } from '../src/index.ts';

const keys = luaModule('keys', "local A = 'a:'");
const rule = luaModule('rule', '-- @include keys\nlocal function f(k) return A .. k end', [keys]);

test('an include is replaced by the module it names', () => {
  assert.equal(resolveLua('-- @include keys\nreturn A', [keys]), "local A = 'a:'\nreturn A");
});

test("a nested include resolves first, from the module's own uses", () => {
  assert.equal(
    resolveLua('-- @include rule\nreturn f(KEYS[1])', [rule]),
    "local A = 'a:'\nlocal function f(k) return A .. k end\nreturn f(KEYS[1])",
  );
});

test('a module included twice (directly and through another) lands once, where first included', () => {
  const out = resolveLua('-- @include keys\n-- @include rule\n--   @include keys\nreturn f(A)', [rule]);
  assert.equal(out, "local A = 'a:'\nlocal function f(k) return A .. k end\nreturn f(A)");
  assert.equal(out.split("local A = 'a:'").length - 1, 1);
});

test('a missing include is an error naming it and where it was included', () => {
  assert.throws(() => resolveLua('-- @include rule\nreturn 1', [luaModule('rule', '-- @include nope')]), {
    message: /Lua include "nope" in module "rule" is not a module given \(given: rule\)/,
  });
  assert.throws(() => resolveLua('-- @include keys', []), { message: /"keys" in the script .*given: none/ });
});

test('two different modules of one name are an error; the same one twice is not', () => {
  assert.throws(() => resolveLua('-- @include keys', [keys, luaModule('keys', 'local A = 1')]), {
    message: /two different Lua modules are named "keys"/,
  });
  assert.equal(resolveLua('-- @include keys', [keys, rule, keys]), "local A = 'a:'");
});

test('a script is made of its resolved text (what Redis runs, and whose sha the loader loads)', () => {
  const script = luaScriptOf('-- @include rule\nreturn f(KEYS[1])', [rule]);
  assert.equal(script.source, resolveLua('-- @include rule\nreturn f(KEYS[1])', [rule]));
  assert.doesNotMatch(script.source, /@include/);
});
