import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FlagError, parseFlags } from './flags.ts';

const lifecycleOf = (args: string[]) => {
  const o = parseFlags(args);
  assert.notEqual(o, 'help');
  return o === 'help' ? undefined : o.controllerOptions?.podLifecycle;
};

test("the pod lifecycle: the controllers' default (kubelet) unless --lifecycle names one; --no-lifecycle is off", () => {
  assert.equal(lifecycleOf([]), undefined);
  assert.equal(lifecycleOf(['--lifecycle', 'fast']), 'fast');
  assert.equal(lifecycleOf(['--no-lifecycle']), 'off');
  assert.equal(lifecycleOf(['--no-lifecycle', '--lifecycle', 'off']), 'off');
  assert.throws(() => parseFlags(['--no-lifecycle', '--lifecycle', 'fast']), FlagError);
});
