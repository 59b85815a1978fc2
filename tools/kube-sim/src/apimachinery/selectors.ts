// Label and field selectors, parsed the way k8s.io/apimachinery parses them (labels.Parse, fields.ParseSelector),
// with the same grammar, validation and error texts (near enough that kubectl users recognise them).
//
// Performance: parse once, then match with no allocation: a label selector is an array of requirements whose
// value sets are JS Sets; a field selector can be compiled for a resource into a function that reads only the
// fields it names straight off the object (see compileFieldSelector), so listing 100k pods does not build a
// field map per pod.
import { ApiError, type Json, type KubeObject } from './types.ts';

// ---------------------------------------------------------------------------------------------------------------
// Label selectors

export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'exists' | '!' | 'gt' | 'lt';

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** Sorted, de-duplicated (as apimachinery's sets.String.List()). */
  readonly values: readonly string[];
  /** The same values as a Set for matching. */
  readonly valueSet: ReadonlySet<string>;
  /** For gt/lt: the integer operand. */
  readonly number?: number;
}

export interface LabelSelector {
  readonly requirements: readonly LabelRequirement[];
}

const EVERYTHING_LABELS: LabelSelector = Object.freeze({ requirements: Object.freeze([]) });

// Tokens of the apimachinery lexer.
type TokenKind =
  | 'error'
  | 'eos'
  | 'closedPar'
  | 'comma'
  | 'doesNotExist'
  | 'doubleEquals'
  | 'equals'
  | 'gt'
  | 'identifier'
  | 'in'
  | 'lt'
  | 'notEquals'
  | 'notIn'
  | 'openPar';

interface Token {
  kind: TokenKind;
  lit: string;
}

const SPECIAL_TOKENS: ReadonlyMap<string, TokenKind> = new Map<string, TokenKind>([
  [')', 'closedPar'],
  [',', 'comma'],
  ['!', 'doesNotExist'],
  ['==', 'doubleEquals'],
  ['=', 'equals'],
  ['>', 'gt'],
  ['<', 'lt'],
  ['!=', 'notEquals'],
  ['(', 'openPar'],
]);

function isWhitespace(ch: string): boolean {
  return ch === ' ' || ch === '\t' || ch === '\r' || ch === '\n';
}
function isSpecialSymbol(ch: string): boolean {
  return ch === '=' || ch === '!' || ch === '(' || ch === ')' || ch === ',' || ch === '>' || ch === '<';
}

function lex(s: string): Token[] {
  const tokens: Token[] = [];
  let pos = 0;
  for (;;) {
    while (pos < s.length && isWhitespace(s[pos]!)) pos++;
    if (pos >= s.length) {
      tokens.push({ kind: 'eos', lit: '' });
      return tokens;
    }
    const ch = s[pos]!;
    if (isSpecialSymbol(ch)) {
      // Longest special token, as the Go lexer: keep reading special symbols while the buffer is a token.
      let buffer = '';
      let last: Token | undefined;
      while (pos < s.length && isSpecialSymbol(s[pos]!)) {
        buffer += s[pos]!;
        const kind = SPECIAL_TOKENS.get(buffer);
        if (kind !== undefined) {
          last = { kind, lit: buffer };
          pos++;
        } else if (last !== undefined) {
          break;
        } else {
          pos++;
        }
      }
      tokens.push(last ?? { kind: 'error', lit: `error expected: keyword found '${buffer}'` });
      continue;
    }
    const start = pos;
    while (pos < s.length && !isWhitespace(s[pos]!) && !isSpecialSymbol(s[pos]!)) pos++;
    const word = s.slice(start, pos);
    tokens.push({
      kind: word === 'in' ? 'in' : word === 'notin' ? 'notIn' : 'identifier',
      lit: word,
    });
  }
}

class SelectorSyntaxError extends Error {}

class LabelParser {
  private readonly tokens: Token[];
  private pos = 0;
  constructor(text: string) {
    this.tokens = lex(text);
  }
  /** `values` context: `in`/`notin` are plain identifiers there. */
  private lookahead(values: boolean): Token {
    const t = this.tokens[this.pos] ?? { kind: 'eos', lit: '' };
    if (values && (t.kind === 'in' || t.kind === 'notIn')) return { kind: 'identifier', lit: t.lit };
    return t;
  }
  private consume(values: boolean): Token {
    const t = this.lookahead(values);
    if (this.pos < this.tokens.length - 1) this.pos++;
    return t;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const t = this.lookahead(true);
      switch (t.kind) {
        case 'identifier':
        case 'doesNotExist': {
          let r: LabelRequirement;
          try {
            r = this.parseRequirement();
          } catch (e) {
            if (e instanceof SelectorSyntaxError) {
              throw new SelectorSyntaxError(`unable to parse requirement: ${e.message}`);
            }
            throw e;
          }
          requirements.push(r);
          const next = this.consume(true);
          if (next.kind === 'eos') return requirements;
          if (next.kind === 'comma') {
            const t2 = this.lookahead(true);
            if (t2.kind !== 'identifier' && t2.kind !== 'doesNotExist') {
              throw new SelectorSyntaxError(`found '${t2.lit}', expected: identifier after ','`);
            }
            break;
          }
          throw new SelectorSyntaxError(`found '${next.lit}', expected: ',' or 'end of string'`);
        }
        case 'eos':
          return requirements;
        default:
          throw new SelectorSyntaxError(`found '${t.lit}', expected: !, identifier, or 'end of string'`);
      }
    }
  }

  private parseRequirement(): LabelRequirement {
    let t = this.consume(true);
    let doesNotExist = false;
    if (t.kind === 'doesNotExist') {
      doesNotExist = true;
      t = this.consume(true);
    }
    if (t.kind !== 'identifier') throw new SelectorSyntaxError(`found '${t.lit}', expected: identifier`);
    const key = t.lit;
    const keyErr = validateLabelKey(key);
    if (keyErr !== undefined) throw new SelectorSyntaxError(keyErr);
    const after = this.lookahead(true).kind;
    if (doesNotExist || after === 'eos' || after === 'comma') {
      // `!key` must stand alone; `!key=v` fails on the requirement boundary check of the caller.
      return makeRequirement(key, doesNotExist ? '!' : 'exists', []);
    }
    const op = this.parseOperator();
    const values = op === 'in' || op === 'notin' ? this.parseValues() : this.parseExactValue();
    return makeRequirement(key, op, values);
  }

  private parseOperator(): LabelOperator {
    const t = this.consume(false);
    switch (t.kind) {
      case 'in':
        return 'in';
      case 'notIn':
        return 'notin';
      case 'equals':
        return '=';
      case 'doubleEquals':
        return '==';
      case 'notEquals':
        return '!=';
      case 'gt':
        return 'gt';
      case 'lt':
        return 'lt';
      default:
        throw new SelectorSyntaxError(`found '${t.lit}', expected: in, notin, =, ==, !=, gt, lt`);
    }
  }

  private parseValues(): string[] {
    const open = this.consume(true);
    if (open.kind !== 'openPar') throw new SelectorSyntaxError(`found '${open.lit}' expected: '('`);
    const t = this.lookahead(true);
    switch (t.kind) {
      case 'identifier':
      case 'comma': {
        const list = this.parseIdentifiersList();
        const close = this.consume(true);
        if (close.kind !== 'closedPar') {
          throw new SelectorSyntaxError(`found '${close.lit}', expected: ')'`);
        }
        return list;
      }
      case 'closedPar':
        this.consume(true);
        return [''];
      default:
        throw new SelectorSyntaxError(`found '${t.lit}', expected: ',', ')' or identifier`);
    }
  }

  private parseIdentifiersList(): string[] {
    const s = new Set<string>();
    for (;;) {
      const t = this.consume(true);
      if (t.kind === 'identifier') {
        s.add(t.lit);
        const t2 = this.lookahead(true);
        if (t2.kind === 'comma') continue;
        if (t2.kind === 'closedPar') return [...s];
        throw new SelectorSyntaxError(`found '${t2.lit}', expected: ',' or ')'`);
      } else if (t.kind === 'comma') {
        if (s.size === 0) s.add(''); // "(,"
        const t2 = this.lookahead(true);
        if (t2.kind === 'closedPar') {
          s.add(''); // ",)"
          return [...s];
        }
        if (t2.kind === 'comma') {
          this.consume(true); // ",,"
          s.add('');
        }
      } else {
        throw new SelectorSyntaxError(`found '${t.lit}', expected: ',', or identifier`);
      }
    }
  }

  private parseExactValue(): string[] {
    const t = this.lookahead(true);
    if (t.kind === 'eos' || t.kind === 'comma') return [''];
    const v = this.consume(true);
    if (v.kind === 'identifier') return [v.lit];
    throw new SelectorSyntaxError(`found '${v.lit}', expected: identifier`);
  }
}

const QUALIFIED_NAME_RE = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE_RE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;
const DNS1123_SUBDOMAIN_RE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME_MSG =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric " +
  "character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is " +
  "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";

/** Problems with a label key (qualified name: optional DNS subdomain prefix and '/', name ≤ 63), or []. */
export function labelKeyErrors(key: string): string[] {
  const errs: string[] = [];
  const parts = key.split('/');
  let name: string;
  if (parts.length === 1) {
    name = parts[0]!;
  } else if (parts.length === 2) {
    const prefix = parts[0]!;
    name = parts[1]!;
    if (prefix.length === 0) errs.push('prefix part must be non-empty');
    else {
      if (prefix.length > 253) errs.push('prefix part must be no more than 253 characters');
      if (!DNS1123_SUBDOMAIN_RE.test(prefix)) {
        errs.push(
          "prefix part a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or " +
            "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for " +
            "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        );
      }
    }
  } else {
    return [
      `a qualified name ${QUALIFIED_NAME_MSG} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ];
  }
  if (name.length === 0) errs.push('name part must be non-empty');
  else if (name.length > 63) errs.push('name part must be no more than 63 characters');
  if (!QUALIFIED_NAME_RE.test(name)) errs.push(`name part ${QUALIFIED_NAME_MSG}`);
  return errs;
}

/** Problems with a label value (empty, or ≤ 63 alphanumerics with '-', '_', '.' inside), or []. */
export function labelValueErrors(value: string): string[] {
  const errs: string[] = [];
  if (value.length > 63) errs.push('must be no more than 63 characters');
  if (!LABEL_VALUE_RE.test(value)) {
    errs.push(
      "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must " +
        "start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used " +
        "for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
    );
  }
  return errs;
}

function validateLabelKey(key: string): string | undefined {
  const errs = labelKeyErrors(key);
  return errs.length === 0 ? undefined : `key: Invalid value: ${JSON.stringify(key)}: ${errs.join('; ')}`;
}

function makeRequirement(key: string, operator: LabelOperator, rawValues: string[]): LabelRequirement {
  const values = [...new Set(rawValues)].sort();
  const problems: string[] = [];
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) {
        problems.push(`values: Invalid value: []: for 'in', 'notin' operators, values set can't be empty`);
      }
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) {
        problems.push(
          `values: Invalid value: ${JSON.stringify(values)}: exact-match compatibility requires one single value`,
        );
      }
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) {
        problems.push(
          `values: Invalid value: ${JSON.stringify(values)}: values set must be empty for exists and does not exist`,
        );
      }
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) {
        problems.push(
          `values: Invalid value: ${JSON.stringify(values)}: for 'Gt', 'Lt' operators, exactly one value is required`,
        );
      }
      values.forEach((v, i) => {
        if (!/^[-+]?\d+$/.test(v)) {
          problems.push(
            `values[${i}]: Invalid value: ${JSON.stringify(v)}: for 'Gt', 'Lt' operators, the value must be an integer`,
          );
        }
      });
      break;
  }
  values.forEach((v, i) => {
    const errs = labelValueErrors(v);
    if (errs.length > 0)
      problems.push(`values[${i}]: Invalid value: ${JSON.stringify(v)}: ${errs.join('; ')}`);
  });
  if (problems.length > 0) {
    throw new SelectorSyntaxError(problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`);
  }
  const req: LabelRequirement = { key, operator, values, valueSet: new Set(values) };
  if (operator === 'gt' || operator === 'lt') return { ...req, number: Number(values[0]) };
  return req;
}

/** Parses `a=b,c!=d,e in (x,y),f notin (z),g,!h`; throws ApiError 400 naming the bad part. */
export function parseLabelSelector(text: string): LabelSelector {
  if (text.trim() === '') return EVERYTHING_LABELS;
  try {
    const requirements = new LabelParser(text).parse();
    // apimachinery sorts requirements by key; matching is an AND, so order only matters for printing.
    requirements.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    return { requirements };
  } catch (e) {
    if (e instanceof SelectorSyntaxError) throw new ApiError(400, 'BadRequest', e.message);
    throw e;
  }
}

/** True when the selector selects everything (empty). */
export function labelSelectorIsEmpty(selector: LabelSelector): boolean {
  return selector.requirements.length === 0;
}

/** The selector printed back in canonical form (`a=b,c in (x,y)`); parsing it gives an equivalent selector. */
export function formatLabelSelector(selector: LabelSelector): string {
  return selector.requirements
    .map((r) => {
      switch (r.operator) {
        case 'exists':
          return r.key;
        case '!':
          return `!${r.key}`;
        case 'in':
        case 'notin':
          return `${r.key} ${r.operator} (${r.values.join(',')})`;
        case 'gt':
          return `${r.key}>${r.values[0] ?? ''}`;
        case 'lt':
          return `${r.key}<${r.values[0] ?? ''}`;
        default:
          return `${r.key}${r.operator}${r.values[0] ?? ''}`;
      }
    })
    .join(',');
}

/** Builds the selector matching exactly the objects carrying all these labels (`matchLabels`). */
export function labelSelectorFromMap(labels: Record<string, string>): LabelSelector {
  const requirements = Object.keys(labels)
    .sort()
    .map((k) => makeRequirementChecked(k, '=', [labels[k]!]));
  return { requirements };
}

function makeRequirementChecked(key: string, op: LabelOperator, values: string[]): LabelRequirement {
  try {
    const err = validateLabelKey(key);
    if (err !== undefined) throw new SelectorSyntaxError(err);
    return makeRequirement(key, op, values);
  } catch (e) {
    if (e instanceof SelectorSyntaxError) throw new ApiError(400, 'BadRequest', e.message);
    throw e;
  }
}

/**
 * The `[key, value]` pairs an object must carry to match: the requirements `k=v`, `k==v` and `k in (v)` (one
 * value). Empty when the selector has none (a label index can't narrow it down).
 */
export function labelSelectorEqualities(selector: LabelSelector): [key: string, value: string][] {
  const out: [string, string][] = [];
  for (const r of selector.requirements) {
    if ((r.operator === '=' || r.operator === '==' || r.operator === 'in') && r.values.length === 1) {
      out.push([r.key, r.values[0]!]);
    }
  }
  return out;
}

function requirementMatches(r: LabelRequirement, labels: Record<string, string> | undefined): boolean {
  const has = labels !== undefined && Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return has && r.valueSet.has(labels[r.key]!);
    case 'notin':
    case '!=':
      return !has || !r.valueSet.has(labels[r.key]!);
    case 'exists':
      return has;
    case '!':
      return !has;
    case 'gt':
    case 'lt': {
      if (!has) return false;
      const v = labels[r.key]!;
      if (!/^[-+]?\d+$/.test(v)) return false;
      const n = Number(v);
      return r.operator === 'gt' ? n > r.number! : n < r.number!;
    }
  }
}

export function matchesLabels(selector: LabelSelector, labels: Record<string, string> | undefined): boolean {
  const reqs = selector.requirements;
  for (let i = 0; i < reqs.length; i++) {
    if (!requirementMatches(reqs[i]!, labels)) return false;
  }
  return true;
}

// ---------------------------------------------------------------------------------------------------------------
// Field selectors

export interface FieldRequirement {
  readonly field: string;
  readonly operator: '=' | '==' | '!=';
  readonly value: string;
}

export interface FieldSelector {
  readonly requirements: readonly FieldRequirement[];
}

/** Splits on commas not escaped by a backslash (fields.splitTerms). */
function splitTerms(s: string): string[] {
  if (s === '') return [];
  const terms: string[] = [];
  let start = 0;
  let escaped = false;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (escaped) escaped = false;
    else if (c === '\\') escaped = true;
    else if (c === ',') {
      terms.push(s.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(s.slice(start));
  return terms;
}

function unescapeFieldValue(s: string): string {
  if (!/[\\,=]/.test(s)) return s;
  let out = '';
  let inSlash = false;
  for (const c of s) {
    if (inSlash) {
      if (c === '\\' || c === ',' || c === '=') out += c;
      else throw new ApiError(400, 'BadRequest', `invalid field selector: invalid escape sequence: \\${c}`);
      inSlash = false;
      continue;
    }
    if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') {
      throw new ApiError(400, 'BadRequest', `invalid field selector: unescaped character in value: ${c}`);
    } else out += c;
  }
  if (inSlash) throw new ApiError(400, 'BadRequest', 'invalid field selector: invalid escape sequence: \\');
  return out;
}

/** Escapes `\`, `,` and `=` in a value so it can sit in a field selector (fields.EscapeValue). */
export function escapeFieldValue(s: string): string {
  return s.replace(/[\\,=]/g, (c) => `\\${c}`);
}

/** Parses `metadata.name=x,status.phase!=Running`; throws ApiError 400. */
export function parseFieldSelector(text: string): FieldSelector {
  const requirements: FieldRequirement[] = [];
  for (const term of splitTerms(text).sort()) {
    if (term === '') continue;
    let found: FieldRequirement | undefined;
    for (let i = 0; i < term.length && found === undefined; i++) {
      for (const op of ['!=', '==', '='] as const) {
        if (term.startsWith(op, i)) {
          found = {
            field: term.slice(0, i),
            operator: op,
            value: unescapeFieldValue(term.slice(i + op.length)),
          };
          break;
        }
      }
    }
    if (found === undefined) {
      throw new ApiError(400, 'BadRequest', `invalid selector: '${text}'; can't understand '${term}'`);
    }
    requirements.push(found);
  }
  return { requirements };
}

/** The value a selector demands for a field with `=`/`==` (for index lookups), or undefined. */
export function fieldSelectorRequiredValue(selector: FieldSelector, field: string): string | undefined {
  for (const r of selector.requirements) {
    if (r.field === field && r.operator !== '!=') return r.value;
  }
  return undefined;
}

type FieldGetter = (o: KubeObject) => string;

function path(o: unknown, a: string, b?: string): Json | undefined {
  if (o === null || typeof o !== 'object' || Array.isArray(o)) return undefined;
  const x = (o as Record<string, Json | undefined>)[a];
  if (b === undefined) return x;
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return undefined;
  return x[b];
}
function str(v: Json | undefined): string {
  if (v === undefined || v === null) return '';
  return typeof v === 'string' ? v : typeof v === 'object' ? JSON.stringify(v) : String(v);
}
function bool(v: Json | undefined): string {
  return v === true ? 'true' : 'false';
}
function num(v: Json | undefined): string {
  return typeof v === 'number' ? String(v) : '0';
}
/** A getter for `o[a]` or `o[a][b]` as a string (written out rather than generic: it runs per object). */
function get(a: string, b?: string): FieldGetter {
  if (b === undefined) return (o) => str(o[a] as Json | undefined);
  return (o) => {
    const x = o[a];
    return x !== null && typeof x === 'object' && !Array.isArray(x)
      ? str((x as Record<string, Json>)[b])
      : '';
  };
}

const META_FIELDS: Record<string, FieldGetter> = {
  'metadata.name': (o) => o.metadata.name ?? '',
  'metadata.namespace': (o) => o.metadata.namespace ?? '',
};

function objectRefFields(prefix: string, ref: string): Record<string, FieldGetter> {
  const out: Record<string, FieldGetter> = {};
  for (const f of ['kind', 'namespace', 'name', 'uid', 'apiVersion', 'resourceVersion', 'fieldPath']) {
    out[`${prefix}.${f}`] = get(ref, f);
  }
  return out;
}

/** Selectable fields per resource id, beyond metadata.name and metadata.namespace (which every resource has). */
const RESOURCE_FIELDS: Record<string, Record<string, FieldGetter>> = {
  pods: {
    'spec.nodeName': get('spec', 'nodeName'),
    'spec.restartPolicy': get('spec', 'restartPolicy'),
    'spec.schedulerName': get('spec', 'schedulerName'),
    'spec.serviceAccountName': get('spec', 'serviceAccountName'),
    'spec.hostNetwork': (o) => bool(path(o, 'spec', 'hostNetwork')),
    'status.phase': get('status', 'phase'),
    'status.podIP': (o) => {
      const ips = path(o, 'status', 'podIPs');
      if (Array.isArray(ips) && ips.length > 0) return str(path(ips[0], 'ip'));
      return str(path(o, 'status', 'podIP'));
    },
    'status.nominatedNodeName': get('status', 'nominatedNodeName'),
  },
  events: {
    ...objectRefFields('involvedObject', 'involvedObject'),
    reason: get('reason'),
    reportingComponent: get('reportingComponent'),
    source: get('source', 'component'),
    type: get('type'),
  },
  'events.events.k8s.io': {
    ...objectRefFields('regarding', 'regarding'),
    reason: get('reason'),
    type: get('type'),
    reportingController: get('reportingController'),
  },
  namespaces: { 'status.phase': get('status', 'phase'), name: (o) => o.metadata.name ?? '' },
  secrets: { type: get('type') },
  nodes: { 'spec.unschedulable': (o) => bool(path(o, 'spec', 'unschedulable')) },
  replicationcontrollers: { 'status.replicas': (o) => num(path(o, 'status', 'replicas')) },
  'replicasets.apps': { 'status.replicas': (o) => num(path(o, 'status', 'replicas')) },
  'jobs.batch': { 'status.successful': (o) => num(path(o, 'status', 'succeeded')) },
  'certificatesigningrequests.certificates.k8s.io': { 'spec.signerName': get('spec', 'signerName') },
};

function gettersFor(resource: string): Record<string, FieldGetter> {
  const extra = RESOURCE_FIELDS[resource];
  return extra === undefined ? META_FIELDS : { ...META_FIELDS, ...extra };
}
const GETTER_CACHE = new Map<string, Record<string, FieldGetter>>();
const ENTRY_CACHE = new Map<string, [string, FieldGetter][]>();
function cachedGetters(resource: string): Record<string, FieldGetter> {
  let g = GETTER_CACHE.get(resource);
  if (g === undefined) {
    g = gettersFor(resource);
    GETTER_CACHE.set(resource, g);
  }
  return g;
}
function cachedEntries(resource: string): [string, FieldGetter][] {
  let e = ENTRY_CACHE.get(resource);
  if (e === undefined) {
    e = Object.entries(cachedGetters(resource));
    ENTRY_CACHE.set(resource, e);
  }
  return e;
}

/**
 * The selectable fields of an object of the given resource id (`pods`, `events`, `events.events.k8s.io`, ...).
 * Always metadata.name and metadata.namespace; resource-specific ones (pods: status.phase, spec.nodeName, ...).
 */
export function selectableFields(resource: string, object: KubeObject): Record<string, string> {
  const out: Record<string, string> = {};
  const entries = cachedEntries(resource);
  for (let i = 0; i < entries.length; i++) {
    const [name, getter] = entries[i]!;
    out[name] = getter(object);
  }
  return out;
}

/** Throws ApiError 400 `field label not supported: x` when the selector names a field the resource lacks. */
export function checkFieldSelectorSupported(resource: string, selector: FieldSelector): void {
  const getters = cachedGetters(resource);
  for (const r of selector.requirements) {
    if (!Object.hasOwn(getters, r.field)) {
      throw new ApiError(400, 'BadRequest', `field label not supported: ${r.field}`);
    }
  }
}

export function matchesFields(selector: FieldSelector, fields: Record<string, string>): boolean {
  for (const r of selector.requirements) {
    const v = Object.hasOwn(fields, r.field) ? fields[r.field]! : '';
    if (r.operator === '!=' ? v === r.value : v !== r.value) return false;
  }
  return true;
}

/**
 * Checks support (throws 400 like checkFieldSelectorSupported) and returns a matcher reading only the named
 * fields off each object — what list and watch should use per object.
 */
export function compileFieldSelector(
  resource: string,
  selector: FieldSelector,
): (object: KubeObject) => boolean {
  checkFieldSelectorSupported(resource, selector);
  const getters = cachedGetters(resource);
  const reqs = selector.requirements.map((r) => ({
    get: getters[r.field]!,
    negate: r.operator === '!=',
    value: r.value,
  }));
  if (reqs.length === 0) return () => true;
  return (object) => {
    for (let i = 0; i < reqs.length; i++) {
      const r = reqs[i]!;
      if ((r.get(object) === r.value) === r.negate) return false;
    }
    return true;
  };
}
