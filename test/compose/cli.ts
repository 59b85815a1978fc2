// Which compose a machine has: `docker compose` (v2, the CLI plugin) if it answers, else the standalone
// `docker-compose` (1.29, Debian's). docker-compose.yml is kept to what both accept.
import { spawnSync } from 'node:child_process';

export interface ComposeCli {
  /** The command to run, e.g. ['docker', 'compose'] or ['docker-compose']. */
  argv: string[];
  /** What `version --short` printed, e.g. "2.29.1" or "1.29.2". */
  version: string;
}

function versionOf(argv: string[]): string | undefined {
  const [cmd = '', ...rest] = argv;
  const res = spawnSync(cmd, [...rest, 'version', '--short'], { encoding: 'utf8', timeout: 30_000 });
  return res.status === 0 ? res.stdout.trim().replace(/^v/, '') : undefined;
}

/** The compose this machine has, v2 first; undefined when neither is installed. */
export function findCompose(): ComposeCli | undefined {
  for (const argv of [['docker', 'compose'], ['docker-compose']]) {
    const version = versionOf(argv);
    if (version !== undefined) return { argv, version };
  }
  return undefined;
}

/** Why no Docker daemon answers (undefined when one does). */
export function dockerDaemonProblem(): string | undefined {
  const res = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  if (res.error) return `docker could not run: ${res.error.message}`;
  return res.status === 0 ? undefined : `docker info: exit ${res.status}: ${res.stderr.trim()}`;
}
