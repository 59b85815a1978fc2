// One kube-sim per test file, with a temporary directory, and the real kubectl bound to it: the set-up the
// kubectl-driven test files share.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import { kubectl as runKubectl, type KubectlResult } from '@podset/testkit';
import { startKubeSim, type KubeSim, type KubeSimOptions } from '../../src/index.ts';

export interface SimKubectl {
  /** The running kube-sim (throws before the file's `before` hook has started it). */
  readonly sim: KubeSim;
  /** The file's temporary directory (kubectl's cache, manifests). */
  readonly dir: string;
  /** kubectl with the exit code, stdout and stderr to assert on. */
  kubectl(args: string[], input?: string): Promise<KubectlResult>;
  /** kubectl that must exit 0 (the assertion names the command and its output); its stdout. */
  ok(args: string[], input?: string): Promise<string>;
  /** Writes `manifest` as a JSON file and runs `kubectl <verb...> -f <file>`. */
  withManifest(verb: string[], manifest: unknown): Promise<KubectlResult>;
}

/** Registers the file's before/after hooks: kube-sim started with `options`, then closed and cleaned up. */
export function useKubeSim(
  name: string,
  options: KubeSimOptions = {},
  kubectlTimeoutMs = 120_000,
): SimKubectl {
  let sim: KubeSim | undefined;
  let dir: string | undefined;
  let files = 0;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), `kube-sim-${name}-`));
    sim = await startKubeSim(options);
  });
  after(async () => {
    await sim?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  const started = (): { sim: KubeSim; dir: string } => {
    assert.ok(sim && dir, 'kube-sim is started by the before hook');
    return { sim, dir };
  };
  const kubectl = (args: string[], input?: string): Promise<KubectlResult> => {
    const s = started();
    return runKubectl(args, {
      kubeconfig: s.sim.kubeconfigPath,
      cacheDir: join(s.dir, 'cache'),
      allowFail: true,
      timeoutMs: kubectlTimeoutMs,
      ...(input === undefined ? {} : { input }),
    });
  };
  return {
    get sim() {
      return started().sim;
    },
    get dir() {
      return started().dir;
    },
    kubectl,
    async ok(args, input) {
      const r = await kubectl(args, input);
      assert.equal(r.code, 0, `kubectl ${args.join(' ')}\n${r.stdout}${r.stderr}`);
      return r.stdout;
    },
    async withManifest(verb, manifest) {
      const file = join(started().dir, `manifest-${files++}.json`);
      writeFileSync(file, JSON.stringify(manifest));
      return await kubectl([...verb, '-f', file]);
    },
  };
}
