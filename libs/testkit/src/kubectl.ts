import { execFile } from 'node:child_process';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface KubectlOptions {
  kubeconfig: string;
  /** kubectl's discovery/OpenAPI cache; one per test dir, so tests don't share or pollute ~/.kube. */
  cacheDir: string;
  /** Resolve with the non-zero exit instead of rejecting (the test asserts on code/stderr). */
  allowFail?: boolean;
  /** Kill kubectl after this long. Default 60 s. */
  timeoutMs?: number;
  /** Written to kubectl's stdin (for `-f -`). */
  input?: string;
  cwd?: string;
  /** Extra environment (e.g. EDITOR). The rest is only PATH and HOME (= cacheDir), never the user's KUBECONFIG. */
  env?: Record<string, string>;
  /** The kubectl to run (default `kubectl` on PATH), e.g. the path of an older client. */
  binary?: string;
}

/**
 * Runs the real kubectl against `kubeconfig`. Rejects on a non-zero exit (with the command, stdout and
 * stderr in the message) unless `allowFail`; a kubectl that could not start always rejects.
 */
export function kubectl(args: readonly string[], options: KubectlOptions): Promise<KubectlResult> {
  const full = ['--kubeconfig', options.kubeconfig, '--cache-dir', options.cacheDir, ...args];
  return new Promise((resolve, reject) => {
    const child = execFile(
      options.binary ?? 'kubectl',
      full,
      {
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 64 << 20,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        env: { PATH: process.env.PATH ?? '', HOME: options.cacheDir, ...options.env },
      },
      (err, stdout, stderr) => {
        if (err !== null && typeof err.code !== 'number' && err.killed !== true) {
          reject(new Error(`kubectl ${args.join(' ')} could not run: ${err.message}`));
          return;
        }
        const code = err === null ? 0 : typeof err.code === 'number' ? err.code : 1;
        const result = { code, stdout, stderr: err !== null && stderr === '' ? err.message : stderr };
        if (code !== 0 && options.allowFail !== true) {
          reject(
            new Error(
              `kubectl ${args.join(' ')}: exit ${code}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
            ),
          );
          return;
        }
        resolve(result);
      },
    );
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.input);
  });
}
