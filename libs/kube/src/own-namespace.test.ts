import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { ownNamespace } from './own-namespace.ts';

test("POD_NAMESPACE wins; else the service account's namespace file; else undefined", () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'own-ns-'));
  try {
    const file = path.join(dir, 'namespace');
    writeFileSync(file, 'from-file\n');
    assert.equal(ownNamespace({ POD_NAMESPACE: 'from-env' }, file), 'from-env');
    assert.equal(ownNamespace({ POD_NAMESPACE: '' }, file), 'from-file');
    assert.equal(ownNamespace({}, file), 'from-file');
    assert.equal(ownNamespace({}, path.join(dir, 'missing')), undefined);
    writeFileSync(file, '\n');
    assert.equal(ownNamespace({}, file), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
