// CEL compilation for x-kubernetes-validations, cached by expression text, with errors worded as cel-go's.
// The CEL environment: `self` and `oldSelf` (dynamically typed: kube-apiserver types them from the schema),
// optional types (`self.?x.orValue(y)`, `oldSelf.hasValue()`), and a few functions of Kubernetes' CEL
// libraries that cel-js lacks.
import { Environment, type ParseResult } from '@marcbachmann/cel-js';

type Ordered = bigint | number | string | boolean | Date;

/** The least (`min`) or greatest (`max`) element, as the Kubernetes list library's min() and max(). */
function extreme(list: Ordered[], which: 'min' | 'max'): Ordered {
  if (list.length === 0) throw new Error(`${which} called on empty list`);
  return list.reduce((a, b) => ((which === 'min' ? b < a : b > a) ? b : a));
}

const env = new Environment({ enableOptionalTypes: true, homogeneousAggregateLiterals: false })
  .registerVariable('self', 'dyn')
  .registerVariable('oldSelf', 'dyn')
  .registerFunction('list.isSorted(): bool', (l: Ordered[]) => l.every((x, i) => i === 0 || l[i - 1]! <= x))
  .registerFunction('list.sum(): dyn', (l: (bigint | number)[]) =>
    l.every((x) => typeof x === 'bigint')
      ? l.reduce<bigint>((a, b) => a + (b as bigint), 0n)
      : l.reduce<number>((a, b) => a + Number(b), 0),
  )
  .registerFunction('list.min(): dyn', (l: Ordered[]) => extreme(l, 'min'))
  .registerFunction('list.max(): dyn', (l: Ordered[]) => extreme(l, 'max'))
  .registerFunction('string.replace(string, string): string', (s: string, a: string, b: string) =>
    s.split(a).join(b),
  )
  .registerFunction(
    'string.replace(string, string, int): string',
    (s: string, a: string, b: string, n: bigint) => {
      if (n < 0n) return s.split(a).join(b);
      const parts = s.split(a);
      const k = Number(n);
      return parts.slice(0, k + 1).join(b) + (parts.length > k + 1 ? a + parts.slice(k + 1).join(a) : '');
    },
  );

// Compilation

export interface Compiled {
  program?: ParseResult;
  /** Why it does not compile, as cel-go words it after `compilation failed: `. */
  error?: string;
  /** The result type cel-js infers (`bool`, `string`, `dyn`, ...), when it could check the expression. */
  type?: string;
  usesOldSelf: boolean;
}

const compiledCache = new Map<string, Compiled>();

export function compile(expr: string): Compiled {
  let c = compiledCache.get(expr);
  if (c) return c;
  c = compileUncached(expr);
  if (compiledCache.size >= 5000) compiledCache.clear();
  compiledCache.set(expr, c);
  return c;
}

export interface CelError {
  code?: string;
  summary?: string;
  message?: string;
  range?: { start: number };
}

/** cel-go's rendering of a compile error: `ERROR: <input>:1:9: Syntax error: ...` (1-based line and column). */
function compileErrorText(e: unknown, expr: string): string {
  const err = (typeof e === 'object' && e !== null ? e : {}) as CelError;
  let text = err.summary ?? String(err.message ?? e).split('\n')[0] ?? '';
  const unknown = /^Unknown variable: (.+)$/.exec(text);
  if (unknown) text = `undeclared reference to '${unknown[1]}' (in container '')`;
  else if (err.code !== 'unknown_variable') text = `Syntax error: ${text}`;
  const pos = typeof err.range?.start === 'number' ? err.range.start : 0;
  const before = expr.slice(0, pos).split('\n');
  return `ERROR: <input>:${before.length}:${(before[before.length - 1] ?? '').length + 1}: ${text}`;
}

function compileUncached(expr: string): Compiled {
  let program: ParseResult;
  try {
    program = env.parse(expr);
  } catch (e) {
    return { error: compileErrorText(e, expr), usesOldSelf: /\boldSelf\b/.test(expr) };
  }
  const usesOldSelf = referencesOldSelf(program.ast);
  let checked: ReturnType<ParseResult['check']>;
  try {
    checked = program.check();
  } catch {
    return { program, usesOldSelf };
  }
  if (checked.valid) return { program, ...(checked.type ? { type: checked.type } : {}), usesOldSelf };
  // Only an undeclared name is a compile error here. Other type errors are left to evaluation: self is `dyn`,
  // and the check fails on functions of Kubernetes' CEL libraries that a real server compiles.
  if ((checked.error as CelError | undefined)?.code === 'unknown_variable') {
    return { error: compileErrorText(checked.error, expr), usesOldSelf };
  }
  return { program, usesOldSelf };
}

/** Whether an expression refers to `oldSelf` (which makes a rule a transition rule). */
function referencesOldSelf(node: unknown): boolean {
  if (Array.isArray(node)) return node.some(referencesOldSelf);
  if (typeof node !== 'object' || node === null || !('op' in node)) return false;
  const n = node as { op: string; args: unknown };
  if (n.op === 'id') return n.args === 'oldSelf';
  if (n.op === 'value') return false;
  return referencesOldSelf(n.args);
}
