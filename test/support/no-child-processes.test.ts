// The unit tier's guard works: with it preloaded, starting a program throws, naming the call.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';

const GUARD = path.join(import.meta.dirname, 'no-child-processes.ts');

for (const call of ["spawn('true')", "execFileSync('true')", "exec('true')"]) {
  test(`under the unit-tier guard, child_process.${call.split('(')[0]} throws`, async () => {
    const script = `import { ${call.split('(')[0]} } from 'node:child_process'; ${call};`;
    const r = await new Promise<{ code: number; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        ['--import', GUARD, '--input-type=module', '-e', script],
        (err, _o, stderr) =>
          resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : 1, stderr }),
      ),
    );
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /test:unit runs no child processes/);
  });
}
