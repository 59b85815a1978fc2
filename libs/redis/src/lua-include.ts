// Lua scripts built from named parts: a script's .lua file says what it uses with `-- @include name`
// lines (as BullMQ's scripts do), and each name is resolved from the modules given, in place, each part
// once however many parts include it (a second `local` of the same names would be dead weight, and
// Lua allows a function only 200 locals).
import { readFileSync } from 'node:fs';

/** A named piece of Lua (helpers, constants) a script may include; `uses` are the modules it includes. */
export interface LuaModule {
  readonly name: string;
  readonly source: string;
  readonly uses: readonly LuaModule[];
}

/** The text of a .lua file, by URL (`new URL('./x.lua', import.meta.url)`). */
export function readLua(url: URL): string {
  return readFileSync(url, 'utf8');
}

/** A module from Lua text or a .lua file (read now); `uses`: the modules its own includes name. */
export function luaModule(name: string, source: string | URL, uses: readonly LuaModule[] = []): LuaModule {
  return { name, source: typeof source === 'string' ? source : readLua(source), uses };
}

const INCLUDE = /^--\s*@include\s+(\S+)\s*$/;

/** The modules by name, those given and those they use; two different modules of one name are an error. */
function modulesByName(modules: readonly LuaModule[]): Map<string, LuaModule> {
  const byName = new Map<string, LuaModule>();
  const add = (m: LuaModule): void => {
    const had = byName.get(m.name);
    if (had === m) return;
    if (had !== undefined && had.source !== m.source) {
      throw new Error(`two different Lua modules are named "${m.name}"`);
    }
    byName.set(m.name, m);
    for (const used of m.uses) add(used);
  };
  for (const m of modules) add(m);
  return byName;
}

/**
 * `source` with each `-- @include name` line replaced by that module's text (its own includes resolved
 * first), a module included again replaced by nothing. A name not among `modules` (or what they use)
 * is an error that names it and where it was included.
 */
export function resolveLua(source: string, modules: readonly LuaModule[], what = 'the script'): string {
  const byName = modulesByName(modules);
  const included = new Set<string>();
  const expand = (text: string, from: string): string[] =>
    text.split('\n').flatMap((line) => {
      const name = INCLUDE.exec(line)?.[1];
      if (name === undefined) return [line];
      if (included.has(name)) return [];
      const m = byName.get(name);
      if (m === undefined) {
        const known = [...byName.keys()].join(', ') || 'none';
        throw new Error(`Lua include "${name}" in ${from} is not a module given (given: ${known})`);
      }
      included.add(name);
      return expand(m.source, `module "${name}"`);
    });
  return expand(source, what).join('\n');
}
