// Shared pieces of the bad-input catalog: an operator environment (the e2e harness) with a healthy
// PodSet beside every bad input, raw API calls that show the exact status and message, and waits.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { KubeObject } from '@podset/kube-sim';
import { podSetProblems, PODS, PODSETS } from '../../e2e/support/check.ts';
import {
  applyCrd,
  podSetManifest,
  startEnv,
  type EnvOptions,
  type OperatorEnv,
} from '../../e2e/support/harness.ts';

export const HEALTHY = 'healthy';

export interface ApiResult {
  status: number;
  body: {
    message?: string;
    reason?: string;
    details?: { causes?: { field?: string; message?: string }[] };
  } & Record<string, unknown>;
  text: string;
}

/** A raw request to kube-sim as `identity` (plain HTTP), with the response parsed when it is JSON. */
export async function api(
  env: OperatorEnv,
  method: string,
  urlPath: string,
  body?: unknown,
  opts: { identity?: string; contentType?: string; raw?: string } = {},
): Promise<ApiResult> {
  const res = await fetch(`${env.sim.url}${urlPath}`, {
    method,
    headers: {
      Authorization: `Bearer ${env.sim.tokens[opts.identity ?? 'admin']}`,
      ...(body !== undefined || opts.raw !== undefined
        ? { 'Content-Type': opts.contentType ?? 'application/json' }
        : {}),
    },
    ...(opts.raw !== undefined
      ? { body: opts.raw }
      : body !== undefined
        ? { body: JSON.stringify(body) }
        : {}),
  });
  const text = await res.text();
  let parsed: ApiResult['body'] = {};
  try {
    parsed = JSON.parse(text) as ApiResult['body'];
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, body: parsed, text };
}

export const podSetsPath = (ns = 'default') => `/apis/podset.io/v1/namespaces/${ns}/podsets`;

/** Starts kube-sim + Redis, applies the CRD and creates the healthy PodSet (apps are started by the caller). */
export async function startCatalog(options: EnvOptions, crd = true): Promise<OperatorEnv> {
  const env = await startEnv(options);
  try {
    if (crd) {
      await applyCrd(env);
      env.sim.cluster.create(PODSETS, podSetManifest(HEALTHY, 2) as unknown as KubeObject);
    }
  } catch (err) {
    await env.close();
    throw err;
  }
  return env;
}

let healthyReplicas = 2;

/**
 * Nothing else harmed: the healthy PodSet takes a new replica count and converges (spec, pods, status,
 * observedGeneration), within `timeoutMs`.
 */
export async function healthyStillConverges(env: OperatorEnv, timeoutMs = 60_000): Promise<void> {
  healthyReplicas = healthyReplicas === 3 ? 2 : 3;
  const ps = env.podSet(HEALTHY);
  if (ps === undefined) throw new Error('the healthy PodSet is gone');
  const copy = structuredClone(ps) as KubeObject & { spec: { replicas: number } };
  copy.spec.replicas = healthyReplicas;
  env.sim.cluster.update(PODSETS, copy);
  await env.waitFor(
    `the healthy PodSet beside it to converge at ${healthyReplicas} replicas`,
    () => podSetProblems(env.podSet(HEALTHY), env.sim.cluster.list(PODS, 'default'), HEALTHY),
    { timeoutMs, intervalMs: 200 },
  );
}

/** The PodSet's problems (empty: converged). */
export function problemsOf(env: OperatorEnv, name: string, ns = 'default'): string[] {
  return podSetProblems(env.podSet(name, ns), env.sim.cluster.list(PODS, ns), name);
}

/** Writes a kubeconfig pointing at `server` with `token` (for proxies and wrong configs). */
export function writeKubeconfig(env: OperatorEnv, file: string, server: string, token: string): string {
  const p = path.join(env.dir, file);
  writeFileSync(
    p,
    [
      'apiVersion: v1',
      'kind: Config',
      'clusters:',
      `- name: c\n  cluster:\n    server: ${server}`,
      'users:',
      `- name: u\n  user:\n    token: ${token}`,
      'contexts:',
      '- name: x\n  context:\n    cluster: c\n    user: u',
      'current-context: x',
      '',
    ].join('\n'),
  );
  return p;
}

/** Lines of a process's output that match. */
export function linesMatching(lines: readonly string[], re: RegExp): string[] {
  return lines.filter((l) => re.test(l));
}
