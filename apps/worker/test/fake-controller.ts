// The controller as its unit tests run it: on the in-memory API (fake-kube.ts), the real planner, a silent
// log and warnings-only Events, with the state source and key-ended hook the test gives.
import * as planner from '@podset/reconcile';
import { silentLogger } from '@podset/log';
import { createController, type Controller, type KeyEndReason } from '../src/controller.ts';
import { createEventRecorder } from '../src/events.ts';
import type { StateSource } from '../src/state-source.ts';
import type { FakeKube } from './fake-kube.ts';

const log = silentLogger;

export function fakeController(
  f: FakeKube,
  state: StateSource,
  onKeyEnded?: (reason: KeyEndReason) => void,
  reconcile: { maxCreatesPerPass?: number } = {},
): Controller {
  return createController({
    kube: f.kube,
    planner,
    events: createEventRecorder({ kube: f.kube, log, instance: 'test', types: 'warnings' }),
    log,
    state,
    ...(onKeyEnded !== undefined ? { onKeyEnded } : {}),
    options: { createBurst: 8, reconcile: { notReadyRequeueMs: 1000, ...reconcile } },
  });
}
