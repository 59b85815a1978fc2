// The kube-sim benchmark's server (the real CLI in a child process, pod lifecycle off, so its RSS and CPU are
// its own) and the keep-alive HTTP client the load goes through.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Proc } from '@podset/testkit';

const ROOT = join(import.meta.dirname, '..', '..');
const MAIN = join(ROOT, 'tools', 'kube-sim', 'src', 'cmd', 'main.ts');

export interface Server {
  proc: Proc;
  url: URL;
  token: string;
  dir: string;
  stop(): Promise<void>;
}

/** `profile`: a directory the server writes a --cpu-prof profile to on exit. */
export async function startServer(profile: string | undefined): Promise<Server> {
  const dir = mkdtempSync(join(tmpdir(), 'kube-sim-bench-'));
  const kubeconfig = join(dir, 'kubeconfig');
  const nodeArgs = profile ? ['--cpu-prof', '--cpu-prof-dir', profile] : [];
  const proc = new Proc({
    name: 'kube-sim',
    command: process.execPath,
    args: [...nodeArgs, MAIN, '--port', '0', '--kubeconfig', kubeconfig, '--no-lifecycle', '--no-pod-events'],
    env: process.env,
  });
  const url = new URL((await proc.waitForLine(/listening on (http:\/\/[^\s]+)/))[1]!);
  const token = /token: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'))?.[1];
  if (!token) throw new Error('no token in the kubeconfig');
  return {
    proc,
    url,
    token,
    dir,
    async stop() {
      await proc.stop(10_000);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Resets the high-water mark (VmHWM) so that the next rssOf().peak is the peak of the next phase. */
export function resetPeak(pid: number): void {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
  } catch {
    // not Linux, or not allowed: the peak then covers the whole run so far
  }
}

export interface Reply {
  status: number;
  body: Buffer;
}

export function makeClient(server: Server, maxSockets: number) {
  const agent = new Agent({ keepAlive: true, maxSockets });
  const headers = { authorization: `Bearer ${server.token}`, accept: 'application/json' };
  function call(
    method: string,
    path: string,
    body?: unknown,
    contentType = 'application/json',
  ): Promise<Reply> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body));
    return new Promise((resolve, reject) => {
      const req = request(
        {
          agent,
          host: server.url.hostname,
          port: server.url.port,
          method,
          path,
          headers: payload
            ? { ...headers, 'content-type': contentType, 'content-length': payload.length }
            : headers,
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(payload);
    });
  }
  return { call, agent, headers };
}

export async function expectOk(p: Promise<Reply>, what: string): Promise<Reply> {
  const r = await p;
  if (r.status < 200 || r.status > 299)
    throw new Error(`${what}: HTTP ${r.status} ${r.body.toString().slice(0, 300)}`);
  return r;
}

export type Client = ReturnType<typeof makeClient>;
