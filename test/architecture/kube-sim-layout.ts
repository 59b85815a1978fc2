// Static checks of kube-sim's source layout (used by kube-sim-layout.test.ts): function and file length,
// imports of the operator's packages, import cycles, and the README's folder map. Pure functions over
// file names and texts, so a test can feed them a synthetic case and see each rule fail.
import path from 'node:path';
import ts from 'typescript';
import type { Source } from './walker.ts';

/** A source named relative to kube-sim's src/, with forward slashes (e.g. `server/server.ts`). */
export type SourceFile = Source;

/** Each source parsed once, however many rules read it. */
const parsed = new WeakMap<SourceFile, ts.SourceFile>();
function parse(src: SourceFile): ts.SourceFile {
  let sf = parsed.get(src);
  if (!sf) parsed.set(src, (sf = ts.createSourceFile(src.file, src.text, ts.ScriptTarget.Latest, true)));
  return sf;
}

export interface FunctionSize {
  /** `file#name`, the name qualified by its class or enclosing function (`server/server.ts#KubeServer.resource`). */
  id: string;
  lines: number;
}

/** A function-like node's own name, or the name of what it is assigned to; undefined when anonymous. */
function ownName(node: ts.Node, sf: ts.SourceFile): string | undefined {
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name) return named.name.getText(sf);
  const parent = node.parent;
  if (
    ts.isVariableDeclaration(parent) ||
    ts.isPropertyAssignment(parent) ||
    ts.isPropertyDeclaration(parent)
  ) {
    return parent.name.getText(sf);
  }
  return undefined;
}

const isFunctionLike = (node: ts.Node): node is ts.FunctionLikeDeclaration =>
  ts.isFunctionDeclaration(node) ||
  ts.isMethodDeclaration(node) ||
  ts.isConstructorDeclaration(node) ||
  ts.isGetAccessorDeclaration(node) ||
  ts.isSetAccessorDeclaration(node) ||
  ts.isFunctionExpression(node) ||
  ts.isArrowFunction(node);

/**
 * The length in lines of every function with a body (declarations, methods, accessors, function
 * expressions, arrows), from its first token to its closing brace. A nested function counts in its
 * outer function too: a 300-line function is long whether or not its body is one inner closure.
 */
export function functionSizes(src: SourceFile): FunctionSize[] {
  const sf = parse(src);
  const out: FunctionSize[] = [];
  const line = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const visit = (node: ts.Node, scope: string[]) => {
    let inner = scope;
    if (ts.isClassLike(node)) {
      inner = [...scope, node.name?.getText(sf) ?? '(class)'];
    } else if (isFunctionLike(node) && node.body) {
      const name = ownName(node, sf) ?? `(anonymous:${line(node.getStart(sf)) + 1})`;
      inner = [...scope, name];
      out.push({ id: `${src.file}#${inner.join('.')}`, lines: line(node.end) - line(node.getStart(sf)) + 1 });
    }
    ts.forEachChild(node, (child) => visit(child, inner));
  };
  visit(sf, []);
  return out;
}

/** Module specifiers a file imports or re-exports, statically or with `import()`, type-only included. */
export function importSpecifiers(src: SourceFile): string[] {
  const sf = parse(src);
  const out: string[] = [];
  const visit = (node: ts.Node) => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier) {
      if (ts.isStringLiteral(node.moduleSpecifier)) out.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [arg] = node.arguments;
      if (arg && ts.isStringLiteralLike(arg)) out.push(arg.text);
    } else if (ts.isImportTypeNode(node)) {
      const arg = node.argument;
      if (ts.isLiteralTypeNode(arg) && ts.isStringLiteral(arg.literal)) out.push(arg.literal.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

/** `file -> specifier` for every import of an `@podset/*` package (kube-sim must not depend on the operator). */
export function podsetImports(sources: SourceFile[]): string[] {
  return sources.flatMap((src) =>
    importSpecifiers(src)
      .filter((s) => s === '@podset' || s.startsWith('@podset/'))
      .map((s) => `${src.file} -> ${s}`),
  );
}

/** The import graph among the given files: relative specifiers resolved against the importing file. */
export function importGraph(sources: SourceFile[]): Map<string, string[]> {
  const known = new Set(sources.map((s) => s.file));
  const graph = new Map<string, string[]>();
  for (const src of sources) {
    const targets = importSpecifiers(src)
      .filter((s) => s.startsWith('.'))
      .map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(src.file), s)))
      .filter((t) => known.has(t));
    graph.set(src.file, [...new Set(targets)].sort());
  }
  return graph;
}

/**
 * The import cycles: each strongly connected component of more than one file (or a file importing
 * itself), as its sorted file list joined by ' <-> '. Tarjan's algorithm, iterative so a deep
 * graph does not overflow the stack.
 */
export function importCycles(graph: Map<string, string[]>): string[] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const cycles: string[] = [];
  let next = 0;
  for (const root of graph.keys()) {
    if (index.has(root)) continue;
    const work: { node: string; edge: number }[] = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1] as { node: string; edge: number };
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++] as string;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node) as number, index.get(to) as number));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent)
        low.set(parent.node, Math.min(low.get(parent.node) as number, low.get(frame.node) as number));
      if (low.get(frame.node) !== index.get(frame.node)) continue;
      const component: string[] = [];
      for (;;) {
        const member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
        if (member === frame.node) break;
      }
      const selfLoop = (graph.get(frame.node) ?? []).includes(frame.node);
      if (component.length > 1 || selfLoop) cycles.push(component.sort().join(' <-> '));
    }
  }
  return cycles.sort();
}

/**
 * The folders a README's `## Layout` section describes: every line of its folder map reads
 * "- `src/<folder>/` — what it holds".
 */
export function describedFolders(readme: string): string[] {
  const start = readme.indexOf('\n## Layout\n');
  if (start < 0) return [];
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^- `src\/([\w/-]+?)\/?` — \S/gm)].map((m) => m[1] as string).sort();
}

/** The folder a file's imports are ruled by: its top folder under the source root, `.` for the root's files. */
export function topFolder(file: string): string {
  const slash = file.indexOf('/');
  return slash < 0 ? '.' : file.slice(0, slash);
}

/**
 * Imports the allowed-imports table does not allow, as `file -> target (from -> to)`: every import from one
 * top folder into another must be listed under the importing folder; a folder missing from the table may
 * import no other.
 */
export function disallowedImports(
  graph: Map<string, string[]>,
  allowed: Readonly<Record<string, readonly string[]>>,
): string[] {
  const out: string[] = [];
  for (const [file, targets] of graph) {
    const from = topFolder(file);
    for (const target of targets) {
      const to = topFolder(target);
      if (to !== from && !(allowed[from] ?? []).includes(to))
        out.push(`${file} -> ${target} (${from} -> ${to})`);
    }
  }
  return out.sort();
}

/**
 * The graph of folders (every folder, subfolders included, `.` for the root) that the files' imports make, so
 * a folder and its subfolder importing each other show as a cycle as two top folders would.
 */
export function folderGraph(graph: Map<string, string[]>): Map<string, string[]> {
  const folders = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = path.posix.dirname(file);
    const tos = folders.get(from) ?? new Set<string>();
    for (const target of targets)
      if (path.posix.dirname(target) !== from) tos.add(path.posix.dirname(target));
    folders.set(from, tos);
  }
  return new Map([...folders].map(([from, tos]) => [from, [...tos].sort()]));
}

/** The allowed-imports table as a graph, so the table itself can be checked for cycles (one way only). */
export function tableGraph(allowed: Readonly<Record<string, readonly string[]>>): Map<string, string[]> {
  return new Map(Object.entries(allowed).map(([from, tos]) => [from, [...tos].sort()]));
}

/**
 * The allowed-imports table a README's `## Layout` section shows: its rows read
 * "| `folder` | `a`, `b` |" (a dash for none), the header and separator rows aside.
 */
export function describedAllowedImports(readme: string): Record<string, string[]> {
  const start = readme.indexOf('\n## Layout\n');
  if (start < 0) return {};
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const table: Record<string, string[]> = {};
  for (const m of section.matchAll(/^\| `([\w./-]+)` \| (.*?) \|$/gm)) {
    table[m[1] as string] = [...(m[2] as string).matchAll(/`([\w./-]+)`/g)].map((t) => t[1] as string).sort();
  }
  return table;
}
