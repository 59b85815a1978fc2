// The kind override mounts a cluster-admin kubeconfig: it must never ask to make that file readable by
// every user of the machine. The containers that mount it run as its owner (PODSET_UID:PODSET_GID) instead.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parse } from 'yaml';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

test('docker-compose.kind.yml and its docs never widen the kubeconfig; its readers run as its owner', () => {
  for (const file of ['docker-compose.kind.yml', 'docs/deployment.md']) {
    assert.doesNotMatch(read(file).replace(/never\s+`chmod 644`/, ''), /chmod\s+6[0-7]4/, file);
    assert.match(read(file), /umask 077; kind get kubeconfig/, `${file}: the kubeconfig is written 0600`);
  }
  const kind = parse(read('docker-compose.kind.yml'), { logLevel: 'error' }) as {
    services: Record<string, { user?: string; volumes?: unknown[] }>;
  };
  for (const [name, s] of Object.entries(kind.services)) {
    const mountsKubeconfig = JSON.stringify(s.volumes ?? []).includes('KIND_KUBECONFIG');
    if (!mountsKubeconfig) continue;
    assert.equal(
      s.user,
      '${PODSET_UID:-1000}:${PODSET_GID:-1000}',
      `${name} reads the kubeconfig as its owner`,
    );
  }
});
