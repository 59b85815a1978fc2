// String formats kube-openapi's default registry checks (the ones CRDs commonly use), and Go (RE2)
// patterns of `pattern` compiled as JavaScript regular expressions.

export const formatCheckers: Record<string, (s: string) => boolean> = {
  'date-time': (s) =>
    /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(s) &&
    !Number.isNaN(Date.parse(s.replace(' ', 'T'))),
  date: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
  uuid: (s) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(s),
  byte: (s) => /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(s),
  ipv4: (s) => /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/.test(s),
  hostname: (s) =>
    s.length <= 255 &&
    /^[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?(\.[a-zA-Z0-9]([-a-zA-Z0-9]{0,61}[a-zA-Z0-9])?)*$/.test(s),
  email: (s) => /^[^\s@]+@[^\s@]+$/.test(s),
};

const POSIX_CLASSES: Record<string, string> = {
  alnum: 'a-zA-Z0-9',
  alpha: 'a-zA-Z',
  ascii: '\\x00-\\x7F',
  blank: ' \\t',
  digit: '0-9',
  lower: 'a-z',
  space: '\\s',
  upper: 'A-Z',
  word: '\\w',
  xdigit: '0-9A-Fa-f',
  punct: '!-\\/:-@\\[-`{-~',
};

/**
 * Go (RE2) pattern → JS RegExp: inline flags such as `^(?i)(a|b)$` become RegExp flags, `\A`/`\z` become
 * anchors, POSIX classes (`[[:alpha:]]`) are expanded. Undefined when JS cannot compile it.
 */
export function goRegExp(pattern: string): RegExp | undefined {
  let flags = '';
  let src = pattern.replace(/\(\?([imsU]+)\)/g, (_m, f: string) => {
    for (const c of f) if (c !== 'U' && !flags.includes(c)) flags += c;
    return '';
  });
  src = src.replace(/\\A/g, '^').replace(/\\z/g, '$');
  src = src.replace(/\[:(\^?)([a-z]+):\]/g, (m, neg: string, name: string) => {
    const cls = Object.hasOwn(POSIX_CLASSES, name) ? POSIX_CLASSES[name] : undefined;
    return cls === undefined || neg ? m : cls;
  });
  for (const f of [`${flags}u`, flags]) {
    try {
      return new RegExp(src, f);
    } catch {
      // try without the unicode flag (JS is stricter about escapes with it)
    }
  }
  return undefined;
}

const regexCache = new Map<string, RegExp | null>();
export function compilePattern(pattern: string): RegExp | null {
  let re = regexCache.get(pattern);
  if (re !== undefined) return re;
  re = goRegExp(pattern) ?? null;
  regexCache.set(pattern, re);
  return re;
}
