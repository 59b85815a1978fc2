// EXPERIMENT, bench only (`npm run bench -- <scenario> --keepalive-patch`): preloaded into the worker and
// watcher processes (node --import). client-node 2.0.1's KubeConfig.applySecurityAuthentication builds a new
// undici Agent for every request; this keeps the first Agent a KubeConfig made and hands it to every later
// request (auth headers are still applied per request). Result (docs/PERFORMANCE.md, F1): no measurable change —
// connections were already being reused, so the worker's connection set-up cost comes from elsewhere.
import { KubeConfig } from '@kubernetes/client-node';

type Ctx = Parameters<KubeConfig['applySecurityAuthentication']>[0];
type Dispatcher = ReturnType<Ctx['getDispatcher']>;

const original = KubeConfig.prototype.applySecurityAuthentication;
const kept = new WeakMap<KubeConfig, NonNullable<Dispatcher>>();

KubeConfig.prototype.applySecurityAuthentication = async function (this: KubeConfig, ctx: Ctx) {
  await original.call(this, ctx);
  const fresh = ctx.getDispatcher();
  if (fresh === undefined) return;
  const keep = kept.get(this);
  if (keep === undefined) {
    kept.set(this, fresh);
  } else if (fresh !== keep) {
    ctx.setDispatcher(keep);
    void (fresh as { close?: () => Promise<void> }).close?.();
  }
};
