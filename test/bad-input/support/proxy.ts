// A misbehaving API server in front of kube-sim: an HTTP proxy whose rules can answer for the server
// (403, HTML error pages), corrupt a JSON body, cut a watch in the middle of an object, or slip
// unexpected lines into a watch. Everything else is passed through untouched.
import http from 'node:http';
import type { Socket } from 'node:net';

export interface Seen {
  method: string;
  path: string;
  query: URLSearchParams;
  watch: boolean;
  user: string | undefined;
}

export type Action =
  | { kind: 'respond'; status: number; body: string; contentType?: string }
  | { kind: 'truncate-body' }
  | { kind: 'cut-watch-mid-object'; afterEvents: number }
  /** Lines first; then the real stream, or (`end`) a clean end right after them. */
  | { kind: 'inject-watch-lines'; lines: string[]; end?: boolean };

/** Returns an action for a request it wants to spoil, or undefined to pass it through. */
export type Rule = (req: Seen) => Action | undefined;

export interface Proxy {
  url: string;
  rules: Rule[];
  /** Actions taken so far, by kind. */
  fired: Record<string, number>;
  close(): Promise<void>;
}

/** A rule that fires `times` times for requests matching `match`. */
export function times(n: number, match: (r: Seen) => boolean, action: Action): Rule {
  let left = n;
  return (r) => {
    if (left <= 0 || !match(r)) return undefined;
    left--;
    return action;
  };
}

export async function startProxy(target: string, tokens: Record<string, string>): Promise<Proxy> {
  const upstream = new URL(target);
  const byToken = new Map(Object.entries(tokens).map(([id, t]) => [t, id]));
  const fired: Record<string, number> = {};
  const rules: Rule[] = [];
  const sockets = new Set<Socket>();

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const auth = /^Bearer\s+(\S+)/i.exec(req.headers.authorization ?? '');
    const seen: Seen = {
      method: req.method ?? 'GET',
      path: url.pathname,
      query: url.searchParams,
      watch: url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1',
      user: auth ? byToken.get(auth[1] as string) : undefined,
    };
    let action: Action | undefined;
    for (const rule of rules) {
      action = rule(seen);
      if (action !== undefined) break;
    }
    if (action !== undefined) fired[action.kind] = (fired[action.kind] ?? 0) + 1;
    if (action?.kind === 'respond') {
      req.resume();
      res.writeHead(action.status, { 'Content-Type': action.contentType ?? 'application/json' });
      res.end(action.body);
      return;
    }
    const up = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: req.headers,
      },
      (upRes) => {
        if (action?.kind === 'truncate-body') {
          const chunks: Buffer[] = [];
          upRes.on('data', (c: Buffer) => chunks.push(c));
          upRes.on('end', () => {
            const body = Buffer.concat(chunks);
            const cut = body.subarray(0, Math.max(1, Math.floor(body.length / 2)));
            const headers = { ...upRes.headers, 'content-length': String(cut.length) };
            delete headers['transfer-encoding'];
            res.writeHead(upRes.statusCode ?? 502, headers);
            res.end(cut);
          });
          return;
        }
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        if (action?.kind === 'inject-watch-lines') {
          res.write(action.lines.map((l) => `${l}\n`).join(''));
          if (action.end === true) {
            res.end();
            upRes.destroy();
          } else {
            upRes.pipe(res);
          }
          return;
        }
        if (action?.kind === 'cut-watch-mid-object') {
          let events = 0;
          let buffered = '';
          const limit = action.afterEvents;
          upRes.on('data', (c: Buffer) => {
            if (res.writableEnded) return;
            buffered += c.toString();
            let nl: number;
            while ((nl = buffered.indexOf('\n')) >= 0) {
              const line = buffered.slice(0, nl + 1);
              buffered = buffered.slice(nl + 1);
              if (events >= limit) {
                // Half of the next event, then a clean end of the response: the object is cut.
                res.end(line.slice(0, Math.floor(line.length / 2)));
                upRes.destroy();
                return;
              }
              res.write(line);
              events++;
            }
          });
          upRes.on('end', () => {
            if (!res.writableEnded) res.end(buffered);
          });
          return;
        }
        upRes.pipe(res);
      },
    );
    up.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    res.on('close', () => up.destroy());
    req.pipe(up);
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    rules,
    fired,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
