// `rollout history` and the choice `rollout undo` makes, from a PodSet's own ControllerRevisions.
import {
  annotatedRevision,
  CHANGE_CAUSE_ANNOTATION,
  hashTemplate,
  ownRevisions,
  revisionTemplate,
  templateHash,
  type PodSet,
  type PodTemplateSpec,
  type RevisionObject,
} from '@podset/reconcile';

/** The table kubectl prints for a Deployment's history. */
export function historyTable(ps: PodSet, all: readonly RevisionObject[]): string {
  const rows = ownRevisions(ps, all).map((r) => [
    String(r.revision),
    r.metadata.annotations?.[CHANGE_CAUSE_ANNOTATION] ?? '<none>',
  ]);
  const width = Math.max('REVISION'.length, ...rows.map(([n]) => n!.length)) + 2;
  const lines = [['REVISION', 'CHANGE-CAUSE'], ...rows].map(([n, c]) => `${n!.padEnd(width)}${c!}`);
  return `podset.podset.io/${ps.metadata.name ?? ''}\n${lines.join('\n')}\n`;
}

export type UndoChoice =
  | { kind: 'rollback'; revision: number; template: PodTemplateSpec }
  | { kind: 'skip'; revision: number }
  | { kind: 'error'; message: string };

/** The revision to go back to: `to`, or the newest one before the current revision. */
export function undoChoice(ps: PodSet, all: readonly RevisionObject[], to: number | undefined): UndoChoice {
  const own = ownRevisions(ps, all);
  const current = annotatedRevision(ps) ?? own.at(-1)?.revision;
  const target =
    to !== undefined
      ? own.find((r) => r.revision === to)
      : own.filter((r) => current === undefined || r.revision < current).at(-1);
  if (target === undefined) {
    return {
      kind: 'error',
      message:
        to !== undefined
          ? `unable to find the specified revision ${to}`
          : 'no rollout history found: no revision before the current one',
    };
  }
  const template = revisionTemplate(target);
  if (template === undefined)
    return { kind: 'error', message: `revision ${target.revision} holds no template` };
  if (hashTemplate(template) === templateHash(ps)) return { kind: 'skip', revision: target.revision };
  return { kind: 'rollback', revision: target.revision, template };
}
