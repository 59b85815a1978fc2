import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { missingPlatformEntries, withPlatformEntries } from './lockfile-platforms.ts';

test('the committed lockfile lists every platform package npm ci expects', () => {
  const lock = JSON.parse(readFileSync(new URL('../package-lock.json', import.meta.url), 'utf8'));
  assert.deepEqual([...missingPlatformEntries(lock).keys()], []);
});

test('missing platform packages get stub entries with os and cpu from their names', () => {
  const lock = {
    packages: {
      '': { name: 'x' },
      'node_modules/native': {
        version: '1.0.0',
        optionalDependencies: {
          'native-linux-x64': '1.0.0',
          'native-darwin-arm64': '1.0.0',
          helper: '2.0.0',
        },
      },
      'node_modules/native-linux-x64': { version: '1.0.0', os: ['linux'], cpu: ['x64'] },
    },
  };
  const fixed = withPlatformEntries(lock);
  assert.deepEqual(fixed.packages['node_modules/native-darwin-arm64'], {
    version: '1.0.0',
    cpu: ['arm64'],
    optional: true,
    os: ['darwin'],
  });
  // Only platform-suffixed names: a missing ordinary package is a real problem npm itself reports.
  assert.equal(fixed.packages['node_modules/helper'], undefined);
  assert.deepEqual(Object.keys(fixed.packages)[0], '');
  assert.equal(missingPlatformEntries(fixed).size, 0);
});
