// What a chaos run writes beside the apps' logs, so that a failed run can be explained afterwards: every
// committed change to a PodSet or a labelled pod as kube-sim's store made it (one JSON line each), the
// run's own notes (faults, user changes), and at the end its report. kube-sim's audit log (every request,
// who made it, how it was answered) goes to the same directory through its `auditLog` option.
import { createWriteStream, writeFileSync, type WriteStream } from 'node:fs';
import path from 'node:path';
import type { KubeObject, StoreEvent } from '@podset/kube-sim';
import { NAME_LABEL, PODS, PODSETS } from '../../e2e/support/check.ts';

/** The file names in the logs directory, for the report's hint. */
export const RECORD_FILES = {
  store: 'store-events.jsonl',
  audit: 'kube-sim-audit.jsonl',
  notes: 'chaos-notes.log',
  report: 'chaos-report.txt',
} as const;

export class RunRecord {
  readonly #store: WriteStream;
  readonly #notes: WriteStream;
  readonly #dir: string;
  readonly #t0: number;

  constructor(logDir: string, t0: number) {
    this.#dir = logDir;
    this.#t0 = t0;
    this.#store = createWriteStream(path.join(logDir, RECORD_FILES.store));
    this.#notes = createWriteStream(path.join(logDir, RECORD_FILES.notes));
  }

  /** A store event of a PodSet or a pod of one (others are not what the verdict is about). */
  onStoreEvent(ev: StoreEvent): void {
    const o = ev.object;
    if (ev.resource !== PODSETS && (ev.resource !== PODS || o.metadata.labels?.[NAME_LABEL] === undefined)) {
      return;
    }
    this.#store.write(
      `${JSON.stringify({ ms: Date.now() - this.#t0, type: ev.type, ...summary(ev.resource, o) })}\n`,
    );
  }

  /** kube-sim restored from a backup: what it holds now, as one line (no store events tell it). */
  onReplaced(podsets: readonly KubeObject[], pods: readonly KubeObject[]): void {
    this.#store.write(
      `${JSON.stringify({
        ms: Date.now() - this.#t0,
        type: 'RESTORED',
        podsets: podsets.map((o) => summary(PODSETS, o)),
        pods: pods.filter((o) => o.metadata.labels?.[NAME_LABEL] !== undefined).map((o) => summary(PODS, o)),
      })}\n`,
    );
  }

  note(line: string): void {
    this.#notes.write(`${line}\n`);
  }

  /** Writes the report and closes the files (the report is written whole, after the streams end). */
  async finish(report: string): Promise<void> {
    await Promise.all([end(this.#store), end(this.#notes)]);
    writeFileSync(path.join(this.#dir, RECORD_FILES.report), `${report}\n`);
  }
}

function summary(resource: string, o: KubeObject): Record<string, unknown> {
  const m = o.metadata;
  const base = {
    kind: resource === PODS ? 'pod' : 'podset',
    ns: m.namespace,
    name: m.name,
    uid: m.uid,
    rv: m.resourceVersion,
  };
  if (resource !== PODS) {
    const spec = (o as { spec?: { replicas?: unknown } }).spec;
    return {
      ...base,
      generation: m.generation,
      replicas: spec?.replicas,
      deleting: m.deletionTimestamp !== undefined,
    };
  }
  const status = (o as { status?: { phase?: unknown } }).status;
  return {
    ...base,
    owner: (m.ownerReferences ?? []).find((r) => r.controller === true)?.uid,
    created: m.creationTimestamp,
    phase: status?.phase,
    deleting: m.deletionTimestamp !== undefined,
  };
}

function end(s: WriteStream): Promise<void> {
  return new Promise((resolve) => s.end(resolve));
}
