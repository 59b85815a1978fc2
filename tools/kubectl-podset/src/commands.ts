// The six rollout actions against the API, each as kubectl does it for a Deployment. Every write is
// guarded by the resourceVersion read, so a PodSet changed meanwhile is refused (409), never overwritten.
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { NAME_LABEL, RESTARTED_AT_ANNOTATION, type PodSet } from '@podset/reconcile';
import type { Kube } from '@podset/kube';
import type { Args } from './args.ts';
import { historyTable, undoChoice } from './history.ts';
import { statusView } from './status-view.ts';
import { ownRevisions, revisionTemplate } from '@podset/reconcile';

export interface Io {
  out(line: string): void;
  err(line: string): void;
}

/** How often `rollout status` reads the PodSet. */
const STATUS_POLL_MS = 500;

const ref = (name: string) => `podset.podset.io/${name}`;

export async function run(kube: Kube, ns: string, args: Args, io: Io): Promise<number> {
  const ps = await kube.podSets.get(ns, args.name);
  switch (args.action) {
    case 'status':
      return status(kube, ns, args, io);
    case 'history':
      return history(kube, ps, args, io);
    case 'undo':
      return undo(kube, ps, args, io);
    case 'restart':
      return restart(kube, ps, io);
    case 'pause':
    case 'resume':
      return setPaused(kube, ps, args.action === 'pause', io);
  }
}

async function status(kube: Kube, ns: string, args: Args, io: Io): Promise<number> {
  const deadline = args.timeoutMs > 0 ? Date.now() + args.timeoutMs : Infinity;
  let last = '';
  for (;;) {
    const view = statusView(await kube.podSets.get(ns, args.name));
    if (view.kind === 'failed') {
      io.err(`error: ${view.message}`);
      return 1;
    }
    if (view.message !== last) io.out(view.message);
    last = view.message;
    if (view.kind === 'done') return 0;
    if (Date.now() >= deadline) {
      io.err('error: timed out waiting for the condition');
      return 1;
    }
    await sleep(STATUS_POLL_MS);
  }
}

function listRevisions(kube: Kube, ps: PodSet) {
  return kube.controllerRevisions.listAll(ps.metadata.namespace, {
    labelSelector: `${NAME_LABEL}=${ps.metadata.name ?? ''}`,
  });
}

async function history(kube: Kube, ps: PodSet, args: Args, io: Io): Promise<number> {
  const all = (await listRevisions(kube, ps)).items;
  if (args.revision === undefined) {
    io.out(historyTable(ps, all).trimEnd());
    return 0;
  }
  const one = ownRevisions(ps, all).find((r) => r.revision === args.revision);
  const template = one === undefined ? undefined : revisionTemplate(one);
  if (template === undefined) {
    io.err(`error: unable to find the specified revision ${args.revision}`);
    return 1;
  }
  io.out(`${ref(ps.metadata.name ?? '')} with revision #${args.revision}\nPod Template:`);
  io.out(stringify(template).replace(/^/gm, '  ').trimEnd());
  return 0;
}

async function undo(kube: Kube, ps: PodSet, args: Args, io: Io): Promise<number> {
  const name = ps.metadata.name ?? '';
  if (ps.spec?.paused === true) {
    io.err(
      `error: you cannot roll back a paused PodSet; resume it first with 'kubectl podset rollout resume ${name}' and try again`,
    );
    return 1;
  }
  const choice = undoChoice(ps, (await listRevisions(kube, ps)).items, args.toRevision);
  if (choice.kind === 'error') {
    io.err(`error: ${choice.message}`);
    return 1;
  }
  if (choice.kind === 'skip') {
    io.out(`${ref(name)} skipped rollback (current template already matches revision ${choice.revision})`);
    return 0;
  }
  await kube.podSets.patch(
    ps.metadata.namespace,
    name,
    [
      { op: 'test', path: '/metadata/resourceVersion', value: ps.metadata.resourceVersion },
      { op: 'replace', path: '/spec/template', value: choice.template },
    ],
    { type: 'json' },
  );
  io.out(`${ref(name)} rolled back`);
  return 0;
}

async function restart(kube: Kube, ps: PodSet, io: Io): Promise<number> {
  const name = ps.metadata.name ?? '';
  if (ps.spec?.paused === true) {
    io.err(`error: can't restart paused podset (run 'kubectl podset rollout resume ${name}' first)`);
    return 1;
  }
  await kube.podSets.patch(ps.metadata.namespace, name, {
    metadata: { resourceVersion: ps.metadata.resourceVersion },
    spec: {
      template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: new Date().toISOString() } } },
    },
  });
  io.out(`${ref(name)} restarted`);
  return 0;
}

async function setPaused(kube: Kube, ps: PodSet, paused: boolean, io: Io): Promise<number> {
  const name = ps.metadata.name ?? '';
  if ((ps.spec?.paused === true) === paused) {
    io.err(`error: podsets.podset.io "${name}" is ${paused ? 'already paused' : 'not paused'}`);
    return 1;
  }
  await kube.podSets.patch(ps.metadata.namespace, name, {
    metadata: { resourceVersion: ps.metadata.resourceVersion },
    spec: { paused },
  });
  io.out(`${ref(name)} ${paused ? 'paused' : 'resumed'}`);
  return 0;
}
