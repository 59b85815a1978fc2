// What the acceptance tests of the real kubectl (v1.32, on PATH) against kube-sim share: a kube-sim per file
// with fast pod lifecycles, kubectl bound to its kubeconfig and a cache directory of the file's own, the
// Widget CRD of test/fixtures (a generic one, not the project's, so the files double as an example for anyone
// testing their controllers on kube-sim), and the stored Widgets to assert on.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startKubeSim, type KubeObject, type KubeSim } from '../../src/index.ts';
import { kubectl as runKubectl, type KubectlResult } from '@podset/testkit';

export const FIXTURES = join(import.meta.dirname, '../fixtures');
export const WIDGETS = 'widgets.example.com';

export type Spec = { replicas?: number; size?: string; color?: string; tags?: string[] };
export const spec = (o: KubeObject | undefined): Spec => (o?.spec ?? {}) as Spec;

export interface KubectlOptions {
  input?: string;
  timeoutMs?: number;
  env?: Record<string, string>;
}

export interface KubectlSim {
  /** The running kube-sim (throws before the file's `before` hook has started it). */
  readonly sim: KubeSim;
  /** kubectl's cache directory, for a kubectl a test spawns itself. */
  readonly cacheDir: string;
  /** Processes a test spawned; killed after the file's tests if still running. */
  readonly children: Set<ChildProcess>;
  /** Runs kubectl; never throws on a non-zero exit (the test asserts on code/stdout/stderr). */
  kubectl(args: string[], opts?: KubectlOptions): Promise<KubectlResult>;
  /** Runs kubectl and fails the test (showing stderr) unless it exits 0; its stdout. */
  ok(args: string[], input?: string): Promise<string>;
  /** The stored Widget of that name in the default namespace. */
  widget(name: string): KubeObject | undefined;
}

/** Registers the file's before/after hooks: kube-sim started, then closed with its children and cache. */
export function useKubectlSim(): KubectlSim {
  let sim: KubeSim | undefined;
  let cacheDir: string | undefined;
  const children = new Set<ChildProcess>();
  before(async () => {
    cacheDir = mkdtempSync(join(tmpdir(), 'kubectl-cache-'));
    sim = await startKubeSim({
      controllerOptions: {
        podLifecycle: 'fast',
        startupDelayMs: 0,
        startupJitterMs: 50,
        containerExitMs: 50,
      },
    });
  });
  after(async () => {
    for (const c of children) c.kill('SIGKILL');
    await sim?.close();
    if (cacheDir) rmSync(cacheDir, { recursive: true, force: true });
  });
  const started = (): { sim: KubeSim; cacheDir: string } => {
    assert.ok(sim && cacheDir, 'kube-sim is started by the before hook');
    return { sim, cacheDir };
  };
  const kubectl = (args: string[], opts: KubectlOptions = {}): Promise<KubectlResult> => {
    const s = started();
    return runKubectl(args, {
      kubeconfig: s.sim.kubeconfigPath,
      cacheDir: s.cacheDir,
      allowFail: true,
      timeoutMs: opts.timeoutMs ?? 30_000,
      ...(opts.input === undefined ? {} : { input: opts.input }),
      ...(opts.env === undefined ? {} : { env: opts.env }),
    });
  };
  return {
    get sim() {
      return started().sim;
    },
    get cacheDir() {
      return started().cacheDir;
    },
    children,
    kubectl,
    async ok(args: string[], input?: string): Promise<string> {
      const r = await kubectl(args, input === undefined ? {} : { input });
      assert.equal(r.code, 0, `kubectl ${args.join(' ')} exited ${r.code}:\n${r.stderr}${r.stdout}`);
      return r.stdout;
    },
    widget: (name: string) => started().sim.cluster.get(WIDGETS, 'default', name),
  };
}

/** The Widget CRD applied and Established, and the Widget `alpha` of widget.yaml applied. */
export async function applyWidgets(k: KubectlSim): Promise<void> {
  await k.ok(['apply', '-f', join(FIXTURES, 'widget-crd.yaml')]);
  await k.ok(['wait', '--for=condition=Established', '--timeout=20s', `crd/${WIDGETS}`]);
  await k.ok(['apply', '-f', join(FIXTURES, 'widget.yaml')]);
}
