// resource.Quantity as apimachinery has it: parsing (suffixes n u m k M G T P E, Ki … Ei, e-notation),
// exact arithmetic and the canonical text the API server prints. Values are kept as a bigint count of
// nano-units: apimachinery rounds anything finer up to 1n, so nothing is lost and no float is involved.

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** The value × 10⁹. */
  readonly nanos: bigint;
  /** The suffix family the value was written in, reused when it is printed. */
  readonly format: QuantityFormat;
}

/** The messages of apimachinery's ErrFormatWrong, ErrNumeric and ErrSuffix. */
export const QUANTITY_FORMAT_ERROR =
  "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

export class QuantityError extends Error {}

export const ZERO: Quantity = { nanos: 0n, format: 'DecimalSI' };

const NANO = 1_000_000_000n;
const MAX_INT64 = 2n ** 63n - 1n;
const DECIMAL_SUFFIXES: Record<string, number> = {
  n: -9,
  u: -6,
  m: -3,
  '': 0,
  k: 3,
  M: 6,
  G: 9,
  T: 12,
  P: 15,
  E: 18,
};
const BINARY_SUFFIXES: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL_BY_EXPONENT = new Map(Object.entries(DECIMAL_SUFFIXES).map(([s, e]) => [e, s]));
const BINARY_BY_POWER = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];
const SUFFIX_CHARS = 'eEinumkKMGTP';

const isDigit = (c: string | undefined): boolean => c !== undefined && c >= '0' && c <= '9';

/** Splits as apimachinery's scanner does: sign, integer digits, fraction digits, suffix. */
function scan(s: string): { negative: boolean; num: string; frac: string; suffix: string } {
  let i = 0;
  let negative = false;
  if (s[0] === '-' || s[0] === '+') {
    negative = s[0] === '-';
    i++;
  }
  const numStart = i;
  while (isDigit(s[i])) i++;
  const num = s.slice(numStart, i);
  let frac = '';
  if (s[i] === '.') {
    const fracStart = ++i;
    while (isDigit(s[i])) i++;
    frac = s.slice(fracStart, i);
  }
  const suffixStart = i;
  while (i < s.length && SUFFIX_CHARS.includes(s[i] as string)) i++;
  if (s[i] === '-' || s[i] === '+') i++;
  while (isDigit(s[i])) i++;
  if (i < s.length) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  return { negative, num, frac, suffix: s.slice(suffixStart) };
}

/** ceil(|n| / d) with n's sign: apimachinery rounds away from zero to the nearest nano. */
function divideAwayFromZero(n: bigint, d: bigint): bigint {
  const q = n / d;
  return q * d === n ? q : q + (n < 0n ? -1n : 1n);
}

/** Parses a quantity as resource.ParseQuantity does; throws QuantityError with its message. */
export function parseQuantity(text: string): Quantity {
  if (text.length === 0) throw new QuantityError(QUANTITY_FORMAT_ERROR);
  if (text === '0') return ZERO;
  const { negative, num, frac, suffix } = scan(text);
  let format: QuantityFormat;
  let exponent: number;
  if (suffix in DECIMAL_SUFFIXES) {
    format = 'DecimalSI';
    exponent = DECIMAL_SUFFIXES[suffix] as number;
  } else if (suffix in BINARY_SUFFIXES) {
    format = 'BinarySI';
    exponent = BINARY_SUFFIXES[suffix] as number;
  } else if (
    suffix.length > 1 &&
    (suffix[0] === 'e' || suffix[0] === 'E') &&
    /^[-+]?\d+$/.test(suffix.slice(1))
  ) {
    format = 'DecimalExponent';
    exponent = Number(suffix.slice(1));
  } else {
    throw new QuantityError("unable to parse quantity's suffix");
  }
  const digits = `${num}${frac}` || '0';
  let mantissa = BigInt(digits);
  if (negative) mantissa = -mantissa;
  // value = mantissa × 10^-len(frac) × base^exponent, in nanos
  let nanos: bigint;
  if (format === 'BinarySI') {
    mantissa *= 2n ** BigInt(exponent);
    const scale = 9 - frac.length;
    nanos =
      scale >= 0 ? mantissa * 10n ** BigInt(scale) : divideAwayFromZero(mantissa, 10n ** BigInt(-scale));
    const cap = MAX_INT64 * NANO;
    if (nanos > cap) nanos = cap;
    if (nanos < -cap) nanos = -cap;
    // A binary value strictly between -1 and 1 is printed in decimal (1/1024 Ki would round).
    const abs = nanos < 0n ? -nanos : nanos;
    if (abs > 0n && abs < NANO) format = 'DecimalSI';
  } else {
    const scale = exponent - frac.length + 9;
    nanos =
      scale >= 0 ? mantissa * 10n ** BigInt(scale) : divideAwayFromZero(mantissa, 10n ** BigInt(-scale));
  }
  return { nanos, format };
}

/** Parses, or undefined for text that isn't a quantity. */
export function tryParseQuantity(v: unknown): Quantity | undefined {
  if (typeof v !== 'string' && typeof v !== 'number') return undefined;
  try {
    return parseQuantity(String(v).trim());
  } catch {
    return undefined;
  }
}

/** The canonical text (Quantity.String()): no fraction, the largest suffix that keeps the value exact. */
export function formatQuantity(q: Quantity): string {
  if (q.nanos === 0n) return '0';
  const sign = q.nanos < 0n ? '-' : '';
  const abs = q.nanos < 0n ? -q.nanos : q.nanos;
  if (q.format === 'BinarySI' && abs >= 1024n * NANO && abs % NANO === 0n) {
    let units = abs / NANO;
    let power = 0;
    while (units % 1024n === 0n && power < BINARY_BY_POWER.length - 1) {
      units /= 1024n;
      power++;
    }
    return `${sign}${units}${BINARY_BY_POWER[power]}`;
  }
  // Decimal: strip trailing zeros, then step the exponent down to a multiple of 3.
  let mantissa = abs;
  let exponent = -9;
  while (mantissa % 10n === 0n) {
    mantissa /= 10n;
    exponent++;
  }
  const down = ((exponent % 3) + 3) % 3;
  mantissa *= 10n ** BigInt(down);
  exponent -= down;
  if (q.format === 'DecimalExponent') return `${sign}${mantissa}${exponent === 0 ? '' : `e${exponent}`}`;
  if (exponent > 18) {
    mantissa *= 10n ** BigInt(exponent - 18);
    exponent = 18;
  }
  return `${sign}${mantissa}${DECIMAL_BY_EXPONENT.get(exponent) ?? ''}`;
}

/** The canonical text of a quantity's text (what the API server stores for it). */
export function canonicalQuantity(text: string): string {
  return formatQuantity(parseQuantity(text));
}

/** a + b; the result keeps a's format unless a is zero (Quantity.Add). */
export function addQuantity(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos + b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

/** a - b; the result keeps a's format unless a is zero (Quantity.Sub). */
export function subtractQuantity(a: Quantity, b: Quantity): Quantity {
  return { nanos: a.nanos - b.nanos, format: a.nanos === 0n ? b.format : a.format };
}

export function compareQuantity(a: Quantity, b: Quantity): number {
  return a.nanos < b.nanos ? -1 : a.nanos > b.nanos ? 1 : 0;
}

export function quantityOfInt(n: number): Quantity {
  return { nanos: BigInt(n) * NANO, format: 'DecimalSI' };
}
