// The keys a JSON document repeats within one object, which JSON.parse silently resolves to the last: the
// API server's strict decoder reports each as `duplicate field "spec.replicas"` (fieldValidation Strict and
// Warn), with the path written as it writes an unknown field's (`spec.containers[0].name`).

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** Paths of the repeated keys of `text`, which must be valid JSON (parse it first). */
export function duplicateFields(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  const skipWs = (): void => {
    while (WS.has(text.charCodeAt(i))) i++;
  };
  /** The string starting at i (a quote); i moves past it. */
  const readString = (): string => {
    const start = i;
    let escaped = false;
    for (i++; ; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x5c) {
        escaped = true;
        i++;
      } else if (c === 0x22) break;
    }
    i++;
    return escaped ? (JSON.parse(text.slice(start, i)) as string) : text.slice(start + 1, i - 1);
  };
  const value = (path: string): void => {
    skipWs();
    const c = text[i];
    if (c === '{') object(path);
    else if (c === '[') array(path);
    else if (c === '"') readString();
    else while (i < text.length && !',}]'.includes(text[i] as string) && !WS.has(text.charCodeAt(i))) i++;
  };
  const object = (path: string): void => {
    i++;
    const seen = new Set<string>();
    skipWs();
    if (text[i] === '}') {
      i++;
      return;
    }
    for (;;) {
      skipWs();
      const key = readString();
      const p = path ? `${path}.${key}` : key;
      if (seen.has(key)) out.push(p);
      else seen.add(key);
      skipWs();
      i++; // the colon
      value(p);
      skipWs();
      if (text[i++] === '}') return;
    }
  };
  const array = (path: string): void => {
    i++;
    skipWs();
    if (text[i] === ']') {
      i++;
      return;
    }
    for (let n = 0; ; n++) {
      value(`${path}[${n}]`);
      skipWs();
      if (text[i++] === ']') return;
    }
  };
  value('');
  return out;
}
