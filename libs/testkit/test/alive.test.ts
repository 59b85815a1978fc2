import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { test } from 'node:test';
import { isAlive } from '../src/index.ts';

test('isAlive: true for a running process, false once it has exited and been reaped', async () => {
  assert.equal(isAlive(process.pid), true);
  const child = spawn(process.execPath, ['-e', '']);
  await once(child, 'exit');
  assert.equal(isAlive(child.pid!), false);
});
