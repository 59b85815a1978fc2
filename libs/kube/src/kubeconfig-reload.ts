// A kubeconfig file can change under a running app: a cluster whose CA or tokens were replaced (kube-sim
// restarted without its data dir writes its kubeconfigs again with a new CA and new tokens) leaves every
// request failing TLS verification or with 401 for ever. So on such a failure the client reads the file
// again; when it changed, the KubeConfig object (shared by every client built from it) takes the new
// clusters, users and contexts, its generation goes up, and each client rebuilds its connection pool.
// Re-reads back off (1 s, doubling to 30 s while the file stays the same) so a CA that is wrong for good
// costs a file read now and then, not a spin.
import { readFileSync } from 'node:fs';
import type { KubeConfig } from '@kubernetes/client-node';

const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;

/** What a listener hears once per change of the file that was applied. */
export interface KubeConfigReload {
  path: string;
  /** The failure that made the client look at the file again. */
  reason: string;
  /** How many times this KubeConfig was reloaded so far (1 on the first reload). */
  generation: number;
}

interface Tracked {
  path: string;
  /** Loads the file as at start (same rules: plain http allowed, the chosen context). */
  load: () => KubeConfig;
  /** The text the KubeConfig was last loaded from. */
  text: string;
  generation: number;
  nextCheckAt: number;
  delayMs: number;
  listeners: Set<(reload: KubeConfigReload) => void>;
}

const tracked = new WeakMap<KubeConfig, Tracked>();

/**
 * Remembers that `kc` was loaded from `path`, whose text was `text`, so that failures may reload it with
 * `load` (which reads `path` again as the first load did).
 */
export function trackKubeConfigFile(
  kc: KubeConfig,
  file: { path: string; text: string; load: () => KubeConfig },
): void {
  tracked.set(kc, {
    ...file,
    generation: 0,
    nextCheckAt: 0,
    delayMs: FIRST_DELAY_MS,
    listeners: new Set(),
  });
}

/** How many times `kc` was reloaded from its file (0: never, or not loaded from a file). */
export function kubeConfigGeneration(kc: KubeConfig): number {
  return tracked.get(kc)?.generation ?? 0;
}

/** Calls `listener` after each reload of `kc` from its file. Returns the unsubscribe. */
export function onKubeConfigReload(kc: KubeConfig, listener: (reload: KubeConfigReload) => void): () => void {
  const t = tracked.get(kc);
  if (t === undefined) return () => undefined;
  t.listeners.add(listener);
  return () => t.listeners.delete(listener);
}

/** A request got through: the next failure may look at the file at once again. */
export function kubeConfigWorked(kc: KubeConfig): void {
  const t = tracked.get(kc);
  if (t !== undefined && t.delayMs !== FIRST_DELAY_MS) {
    t.delayMs = FIRST_DELAY_MS;
    t.nextCheckAt = 0;
  }
}

/**
 * After a failure the current kubeconfig may explain (`reason`): reads the file again, unless it was read
 * too recently (`now` is the caller's clock), and when its text changed and it loads, puts the new content
 * into `kc`. True when it did.
 */
export function reloadKubeConfigIfChanged(kc: KubeConfig, reason: string, now: number): boolean {
  const t = tracked.get(kc);
  if (t === undefined || now < t.nextCheckAt) return false;
  let text: string | undefined;
  let fresh: KubeConfig | undefined;
  try {
    text = readFileSync(t.path, 'utf8');
    if (text !== t.text) {
      fresh = t.load();
      if (fresh.getCurrentCluster() === null) fresh = undefined;
    }
  } catch {
    // Missing or half-written (a writer without an atomic rename): look again after the backoff.
    fresh = undefined;
  }
  if (fresh === undefined || text === undefined) {
    t.nextCheckAt = now + t.delayMs;
    t.delayMs = Math.min(t.delayMs * 2, MAX_DELAY_MS);
    return false;
  }
  kc.loadFromOptions({
    clusters: fresh.clusters,
    contexts: fresh.contexts,
    users: fresh.users,
    currentContext: fresh.currentContext,
  });
  t.text = text;
  t.generation++;
  t.delayMs = FIRST_DELAY_MS;
  t.nextCheckAt = now + FIRST_DELAY_MS;
  const reload = { path: t.path, reason, generation: t.generation };
  if (t.listeners.size === 0) {
    process.stderr.write(`kubeconfig ${t.path} changed: reloaded it (after: ${reason})\n`);
  }
  for (const l of t.listeners) l(reload);
  return true;
}

/** OpenSSL's codes for a certificate the CA bundle does not verify (Node puts them on the socket error). */
const TLS_VERIFY_CODES = new Set([
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The TLS verification code of `err` or of an error in its `cause` chain, else undefined. */
export function tlsVerificationCode(err: unknown): string | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && TLS_VERIFY_CODES.has(code)) return code;
  }
  return undefined;
}
