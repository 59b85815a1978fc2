// YAML as Kubernetes tools read it. kubectl, Helm and the API server's clients decode YAML 1.1
// (sigs.k8s.io/yaml on go-yaml v2): there `yes`, `no`, `on`, `off`, `y` and `n` are booleans, `0755` is
// octal and `1_000` a number. The `yaml` package reads and writes YAML 1.2 by default, where all of these
// are strings, so a manifest written or checked with its defaults can mean one thing here and another to
// kubectl (an unquoted `- yes` in a container's command is a boolean the API server refuses).
import { parseAllDocuments, stringify } from 'yaml';

/**
 * Writing options: the YAML 1.2 core schema, and every string that YAML 1.1 would read as another type
 * quoted too (`compat`), so that readers of either version read the same value.
 */
export const K8S_YAML_WRITE = { schema: 'core', compat: 'yaml-1.1', lineWidth: 0 } as const;

/** A value as manifest text that YAML 1.1 and 1.2 readers read alike. */
export function toK8sYaml(value: unknown): string {
  return stringify(value, K8S_YAML_WRITE);
}

/** The documents of a manifest (empty ones left out), read as YAML 1.1, as kubectl and Helm read them. */
export function parseK8sYaml<T = unknown>(text: string): T[] {
  return parseAllDocuments(text, { version: '1.1' })
    .map((d) => d.toJS() as T | null)
    .filter((o): o is T => o !== null);
}

/** Where two decoded values differ, as `path: a ≠ b` lines (empty: equal). */
export function valueDifferences(a: unknown, b: unknown, at = ''): string[] {
  if (isRecord(a) && isRecord(b)) {
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) => valueDifferences(a[k], b[k], at === '' ? k : `${at}.${k}`));
  }
  if (Array.isArray(a) && Array.isArray(b)) {
    const n = Math.max(a.length, b.length);
    return Array.from({ length: n }, (_x, i) => valueDifferences(a[i], b[i], `${at}[${i}]`)).flat();
  }
  if (Object.is(a, b) || (a instanceof Date && b instanceof Date && a.getTime() === b.getTime())) return [];
  return [`${at || '(document)'}: ${show(a)} ≠ ${show(b)}`];
}

/**
 * The values of a YAML text that YAML 1.1 reads differently from YAML 1.2 (e.g. an unquoted `yes`: a
 * string in 1.2, true in 1.1), as `document N: path: value-in-1.2 ≠ value-in-1.1` lines.
 */
export function yamlVersionDifferences(text: string): string[] {
  const v12 = parseAllDocuments(text).map((d) => d.toJS() as unknown);
  const v11 = parseAllDocuments(text, { version: '1.1' }).map((d) => d.toJS() as unknown);
  return v12.flatMap((doc, i) => valueDifferences(doc, v11[i]).map((d) => `document ${i + 1}: ${d}`));
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x) && !(x instanceof Date);
}

function show(x: unknown): string {
  if (x instanceof Date) return `timestamp ${x.toISOString()}`;
  return x === undefined ? '(absent)' : `${typeof x} ${JSON.stringify(x)}`;
}
