// Label selectors, parsed the way k8s.io/apimachinery parses them (labels.Parse), with the same grammar,
// validation and error texts (near enough that kubectl users recognise them).
//
// Performance: parse once, then match with no allocation: a selector is an array of requirements whose value
// sets are JS Sets.
import { ApiError } from './types.ts';

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
