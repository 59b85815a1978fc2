// Static readers for the deployment files: the Dockerfile, .dockerignore, and the runtime import graph
// of an app (what `node apps/<app>/src/main.ts` loads), so that tests can check the image without a
// Docker engine.
import { existsSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';
import ts from 'typescript';

export const REPO = path.resolve(import.meta.dirname, '../..');

/** The apps the images run, by the name compose and k8s use, with their entry files. */
export const ENTRIES: Record<string, string> = {
  watcher: 'apps/watcher/src/main.ts',
  worker: 'apps/worker/src/main.ts',
  dashboard: 'apps/dashboard/src/main.ts',
  'kube-sim': 'tools/kube-sim/src/cmd/main.ts',
  // The Redis pod's init container (compose: the redis-acl service): writes Redis's ACL file.
  'redis-acl': 'apps/redis-init/src/redis-acl-init.ts',
};

/** Dockerfile targets: the production image (its last stage, what `docker build .` gives) and kube-sim's. */
export const PRODUCTION_TARGET = 'runtime';
export const KUBE_SIM_TARGET = 'kube-sim';

/** The Dockerfile target each app runs from: kube-sim, a development tool, is not in the production image. */
export const TARGET_OF: Record<string, string> = {
  watcher: PRODUCTION_TARGET,
  worker: PRODUCTION_TARGET,
  dashboard: PRODUCTION_TARGET,
  'kube-sim': KUBE_SIM_TARGET,
  'redis-acl': PRODUCTION_TARGET,
  'redis-scripts': PRODUCTION_TARGET,
};

export interface Instruction {
  /** Upper-cased keyword (FROM, RUN, COPY, …). */
  keyword: string;
  /** The rest of the instruction, continuation lines joined. */
  args: string;
  line: number;
}

export interface Stage {
  /** Base image reference with `${ARG}`s from the global ARGs substituted (for `FROM <stage>`, that stage's). */
  image: string;
  name: string | undefined;
  /** The earlier stage this one is built FROM, if any. */
  parent: Stage | undefined;
  instructions: Instruction[];
}

/** Parses a Dockerfile into instructions (continuations joined, comments dropped). */
export function parseDockerfile(text: string): Instruction[] {
  const out: Instruction[] = [];
  const lines = text.split('\n');
  let current: { text: string; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    const trimmed = raw.trim();
    if (current === undefined && (trimmed === '' || trimmed.startsWith('#'))) continue;
    if (current !== undefined && trimmed.startsWith('#')) continue; // comment inside a continuation
    const continued = trimmed.endsWith('\\');
    const piece = continued ? trimmed.slice(0, -1) : trimmed;
    current =
      current === undefined ? { text: piece, line: i + 1 } : { ...current, text: `${current.text} ${piece}` };
    if (!continued) {
      const m = /^(\S+)\s*(.*)$/s.exec(current.text.trim());
      if (m) out.push({ keyword: (m[1] ?? '').toUpperCase(), args: (m[2] ?? '').trim(), line: current.line });
      current = undefined;
    }
  }
  return out;
}

/** Groups instructions by stage; global ARG defaults (before the first FROM) are substituted in images. */
export function stages(instructions: Instruction[]): Stage[] {
  const args = new Map<string, string>();
  const out: Stage[] = [];
  for (const ins of instructions) {
    if (ins.keyword === 'FROM') {
      const m = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(ins.args);
      if (!m) throw new Error(`line ${ins.line}: cannot read FROM ${ins.args}`);
      const image = (m[1] ?? '').replace(
        /\$\{(\w+)\}|\$(\w+)/g,
        (_, a: string, b: string) => args.get(a ?? b) ?? '',
      );
      // Stage names are case-insensitive.
      const parent = out.find((s) => s.name?.toLowerCase() === image.toLowerCase());
      out.push({ image: parent?.image ?? image, name: m[2], parent, instructions: [] });
    } else if (out.length === 0) {
      if (ins.keyword === 'ARG') {
        const [name, value] = ins.args.split('=', 2);
        if (name) args.set(name.trim(), (value ?? '').trim().replace(/^"(.*)"$/, '$1'));
      }
    } else {
      out[out.length - 1]?.instructions.push(ins);
    }
  }
  return out;
}

/** What a stage runs with: the instructions of the stages it is built FROM, then its own. */
export function lineage(stage: Stage): Instruction[] {
  return [...(stage.parent ? lineage(stage.parent) : []), ...stage.instructions];
}

/** A JSON (exec-form) CMD/ENTRYPOINT as an array, or undefined for the shell form. */
export function execForm(args: string): string[] | undefined {
  if (!args.startsWith('[')) return undefined;
  const parsed: unknown = JSON.parse(args);
  return Array.isArray(parsed) && parsed.every((s) => typeof s === 'string') ? parsed : undefined;
}

/**
 * .dockerignore semantics (Docker's: Go filepath.Match per pattern with `**` for any number of
 * directories, a leading `!` re-includes, the last matching pattern wins, and a path is excluded when
 * it or one of its parent directories is).
 */
export function dockerignore(text: string): (relPath: string) => boolean {
  const rules = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const pattern = path.posix.normalize((negate ? l.slice(1) : l).trim().replace(/^\/+/, ''));
      return { negate, re: globToRegExp(pattern) };
    });
  const matches = (p: string): boolean => {
    let excluded = false;
    for (const r of rules) if (r.re.test(p)) excluded = !r.negate;
    return excluded;
  };
  return (relPath: string) => {
    const parts = relPath.split('/');
    for (let i = 1; i <= parts.length; i++) if (matches(parts.slice(0, i).join('/'))) return true;
    return false;
  };
}

function globToRegExp(glob: string): RegExp {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '*' && glob[i + 1] === '*') {
      // `**/` matches zero or more directories; a trailing `**` anything.
      if (glob[i + 2] === '/') {
        re += '(?:.*/)?';
        i += 2;
      } else {
        re += '.*';
        i += 1;
      }
    } else if (c === '*') re += '[^/]*';
    else if (c === '?') re += '[^/]';
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${re}$`);
}

export interface ImportGraph {
  /** Every repository file loaded at run time (relative paths). */
  files: string[];
  /** Bare package names imported at run time (not node: builtins, not workspaces). */
  packages: Map<string, string[]>;
  /** Imports that resolve to nothing. */
  unresolved: string[];
}

/** The files and packages `node <entry>` loads: value imports only (`import type` is erased). */
export function runtimeImports(entry: string): ImportGraph {
  const workspaces = workspaceEntries();
  const builtins = new Set(builtinModules);
  const files = new Set<string>();
  const packages = new Map<string, string[]>();
  const unresolved: string[] = [];
  const queue = [path.join(REPO, entry)];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    const rel = path.relative(REPO, file);
    if (files.has(rel)) continue;
    files.add(rel);
    for (const spec of valueImports(file)) {
      if (spec.startsWith('.') || spec.startsWith('/')) {
        const target = path.resolve(path.dirname(file), spec);
        if (existsSync(target)) queue.push(target);
        else unresolved.push(`${rel}: ${spec}`);
        continue;
      }
      if (spec.startsWith('node:') || builtins.has(spec)) continue;
      const name = spec.startsWith('@')
        ? spec.split('/').slice(0, 2).join('/')
        : (spec.split('/')[0] as string);
      if (workspaces.names.has(name)) {
        const target = workspaces.entries.get(spec);
        if (target !== undefined && existsSync(target)) queue.push(target);
        else unresolved.push(`${rel}: ${spec}`);
        continue;
      }
      packages.set(name, [...(packages.get(name) ?? []), rel]);
    }
  }
  return { files: [...files].sort(), packages, unresolved };
}

function valueImports(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      if (node.importClause?.isTypeOnly !== true) out.push(node.moduleSpecifier.text);
    } else if (
      ts.isExportDeclaration(node) &&
      node.moduleSpecifier &&
      ts.isStringLiteral(node.moduleSpecifier)
    ) {
      if (!node.isTypeOnly) out.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] !== undefined &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      out.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

/** Workspace package name → absolute path of its "." export. */
/** The workspace packages' names, and the file each specifier they export (`name`, `name/sub`) loads. */
function workspaceEntries(): { names: Set<string>; entries: Map<string, string> } {
  const names = new Set<string>();
  const out = new Map<string, string>();
  const root = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { workspaces: string[] };
  for (const pattern of root.workspaces) {
    const base = path.join(REPO, pattern.replace(/\/\*$/, ''));
    for (const dir of ts.sys.getDirectories(base)) {
      const pj = path.join(base, dir, 'package.json');
      if (!existsSync(pj)) continue;
      const pkg = JSON.parse(readFileSync(pj, 'utf8')) as { name: string; exports?: Record<string, string> };
      names.add(pkg.name);
      for (const [sub, file] of Object.entries(pkg.exports ?? {})) {
        if (typeof file === 'string') out.set(pkg.name + sub.slice(1), path.join(base, dir, file));
      }
    }
  }
  return { names, entries: out };
}

export function readRepo(rel: string): string {
  return readFileSync(path.join(REPO, rel), 'utf8');
}

/** The options of an `npm ci` in a RUN instruction that decide what it installs. */
export interface NpmCi {
  omitDev: boolean;
  /** `--include-workspace-root`: with --workspace, the root's dependencies too. */
  includeRoot: boolean;
  /** The --workspace (-w) values; undefined without any (then every workspace and the root). */
  workspaces: string[] | undefined;
}

/** Reads the `npm ci …` of a RUN instruction (up to the next `&&`, `;` or `|`), if there is one. */
export function parseNpmCi(run: string): NpmCi | undefined {
  const m = /\bnpm\s+ci\b([^;&|]*)/.exec(run);
  if (!m) return undefined;
  const words = (m[1] ?? '').trim().split(/\s+/);
  const out: NpmCi = { omitDev: false, includeRoot: false, workspaces: undefined };
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    const [flag, inline] = w.split('=', 2) as [string, string | undefined];
    const value = (): string => inline ?? (words[++i] as string);
    if (flag === '--omit' && value() === 'dev') out.omitDev = true;
    else if (w === '--production') out.omitDev = true;
    else if (w === '--include-workspace-root') out.includeRoot = true;
    else if (flag === '--workspace' || flag === '-w') out.workspaces = [...(out.workspaces ?? []), value()];
  }
  return out;
}

interface LockPackage {
  name?: string;
  link?: boolean;
  resolved?: string;
  dev?: boolean;
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
}

export interface Lockfile {
  packages: Record<string, LockPackage>;
}

/**
 * The package-lock.json locations (`node_modules/x`, `libs/kube`, …) that `npm ci` with these options
 * installs: from the root and the selected workspaces, along dependency edges resolved as Node resolves
 * them (the nearest node_modules up the tree). Every peer edge is followed, so this may count a package
 * npm would leave out, never the other way round: good enough to show a package is NOT installed.
 */
export function lockInstall(lock: Lockfile, ci: NpmCi): Set<string> {
  const pk = lock.packages;
  const workspaces = Object.entries(pk)
    .filter(([, p]) => p.link === true && p.resolved !== undefined)
    .map(([, p]) => ({ path: p.resolved as string, name: pk[p.resolved as string]?.name }));
  // npm's --workspace takes a workspace's name, its path, or a folder holding workspaces.
  const selected =
    ci.workspaces === undefined
      ? workspaces
      : workspaces.filter((ws) =>
          (ci.workspaces ?? []).some(
            (w) => w === ws.name || ws.path === normalize(w) || ws.path.startsWith(`${normalize(w)}/`),
          ),
        );
  const queue: string[] = [];
  if (ci.workspaces === undefined || ci.includeRoot) queue.push('');
  for (const ws of selected) {
    queue.push(ws.path);
    const link = Object.keys(pk).find((loc) => pk[loc]?.link === true && pk[loc]?.resolved === ws.path);
    if (link !== undefined) queue.push(link);
  }
  const out = new Set<string>();
  while (queue.length > 0) {
    const loc = queue.pop() as string;
    if (out.has(loc)) continue;
    const p = pk[loc];
    if (p === undefined) continue;
    out.add(loc);
    if (p.link === true && p.resolved !== undefined) {
      queue.push(p.resolved);
      continue;
    }
    const isProject = loc === '' || workspaces.some((ws) => ws.path === loc);
    const edges = {
      ...p.peerDependencies,
      ...p.optionalDependencies,
      ...p.dependencies,
      ...(isProject && !ci.omitDev ? p.devDependencies : {}),
    };
    for (const dep of Object.keys(edges)) {
      const target = resolveIn(pk, loc, dep);
      if (target !== undefined) queue.push(target);
    }
  }
  return out;
}

function normalize(p: string): string {
  return path.posix.normalize(p).replace(/^\.\//, '').replace(/\/$/, '');
}

/** The nearest `<dir>/node_modules/<name>` from `from` up to the root, as Node resolves a bare import. */
function resolveIn(pk: Lockfile['packages'], from: string, name: string): string | undefined {
  let dir = from;
  for (;;) {
    const candidate = `${dir === '' ? '' : `${dir}/`}node_modules/${name}`;
    if (candidate in pk) return candidate;
    if (dir === '') return undefined;
    // node_modules/a/node_modules/b → node_modules/a; node_modules/a and libs/kube → the root.
    const i = dir.lastIndexOf('/node_modules/');
    dir = i >= 0 ? dir.slice(0, i) : '';
  }
}
