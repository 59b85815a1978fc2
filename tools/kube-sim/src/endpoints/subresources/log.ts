// pods/log (GET): one line saying the container is simulated (kube-sim runs no containers).
import type { ResourceType } from '../../apimachinery/types.ts';
import type { RequestScope } from '../request/request-scope.ts';
import type { Handlers } from './handler.ts';

function podLog(s: RequestScope): void {
  const { api } = s.deps;
  const ns = s.info.namespace ?? '';
  const name = s.info.name ?? '';
  const p = api.get(api.registry.lookup('', 'v1', 'pods') as ResourceType, ns, name);
  const spec = (p.spec ?? {}) as { containers?: { name?: string }[] };
  const container = s.query.get('container') ?? spec.containers?.[0]?.name ?? '';
  const text = `kube-sim: simulated container ${container} of pod ${ns}/${name} (no real logs)\n`;
  s.res.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
  s.res.end(text);
}

export const log: Handlers = { get: podLog };
