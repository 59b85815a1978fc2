// The length of every function in a TypeScript source, by the compiler's own parse (not a regex): what the
// size rules of the code-shape tests measure.
import ts from 'typescript';

export interface FunctionLength {
  /** `name` for a named function or method, `(anonymous)` otherwise; `Class#method` for a class member. */
  name: string;
  line: number;
  lines: number;
}

export function functionLengths(fileName: string, text: string): FunctionLength[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true);
  const found: FunctionLength[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      found.push({ name: nameOf(node), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(node: ts.SignatureDeclaration): string {
  const parent = node.parent;
  // An arrow function or function expression takes the name of the variable or property it is assigned to.
  const assigned =
    (ts.isVariableDeclaration(parent) ||
      ts.isPropertyAssignment(parent) ||
      ts.isPropertyDeclaration(parent)) &&
    parent.initializer === node
      ? parent.name.getText()
      : undefined;
  const own = node.name?.getText() ?? assigned ?? '(anonymous)';
  if (ts.isClassLike(parent) && parent.name !== undefined)
    return `${parent.name.text}#${own.replace(/^#/, '')}`;
  return own;
}
