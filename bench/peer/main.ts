// The peer as a process, started like the operator's apps: KUBECONFIG, NAMESPACE (empty: all),
// PEER_CONCURRENCY, CREATE_BURST, KUBE_QPS / KUBE_BURST (the worker's defaults). SIGTERM/SIGINT stop
// it; on the way out it prints one line `peer-stats {"reconciles":…,"failures":…}` for the bench.
import { KubeConfig } from '@kubernetes/client-node';
import { createKube } from '@podset/kube';
import { pino } from 'pino';
import { createEventRecorder } from '../../apps/worker/src/events.ts';
import { createPeer } from './controller.ts';

const env = (name: string, fallback: number): number => {
  const v = process.env[name];
  const n = v === undefined || v === '' ? fallback : Number(v);
  if (!Number.isFinite(n) || n < 0) throw new Error(`${name} must be a number >= 0, got ${v}`);
  return n;
};

const kubeConfig = new KubeConfig();
kubeConfig.loadFromDefault();
const kube = createKube(kubeConfig, {
  qps: env('KUBE_QPS', 50),
  burst: Math.max(1, env('KUBE_BURST', 100)),
  userAgent: 'podset-peer',
});
const namespace = process.env.NAMESPACE;
const peer = createPeer({
  kubeConfig,
  kube,
  ...(namespace !== undefined && namespace !== '' ? { namespace } : {}),
  concurrency: Math.max(1, env('PEER_CONCURRENCY', 16)),
  createBurst: Math.max(1, env('CREATE_BURST', 64)),
  // The worker's recorder with the worker's default (every Event): the same writes as the operator's.
  events: createEventRecorder({ kube, log: pino({ level: 'warn' }), instance: 'peer' }),
  onError: (key, err) => console.error(`peer: ${key}: ${err instanceof Error ? err.message : String(err)}`),
});

let stopping = false;
async function shutdown(): Promise<void> {
  if (stopping) return;
  stopping = true;
  await peer.stop();
  console.log(`peer-stats ${JSON.stringify(peer.stats())}`);
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown());
process.on('SIGINT', () => void shutdown());
await peer.start();
console.log('peer: started');
