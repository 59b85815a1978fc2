// How the projection stores a pod and what it compares to decide whether a reconcile is owed. Compact on
// purpose: the projection holds every pod of the cluster, so each pod is one line of tab-separated fields
// (only what the planner reads), and the inputs last requested are kept as a 16-character digest.
// The Lua that reads a stored entry is entry.lua; one case table tests it against the TypeScript here.
import { hash } from 'node:crypto';
import {
  API_VERSION,
  DELETION_COST_ANNOTATION,
  KIND,
  NAME_LABEL,
  TEMPLATE_HASH_LABEL,
  parseKey,
  podSetControllerRef,
  readyCondition,
  type OwnerReference,
  type PodCondition,
} from '@podset/reconcile';
import { luaModule } from '@podset/redis';

/** The fields of an object's metadata the projection keeps. */
export interface ProjectedMeta {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  finalizers?: string[];
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
}

/** A pod as the planner reads it. */
export interface ProjectedPod {
  metadata: ProjectedMeta;
  spec?: { nodeName?: string };
  status?: {
    phase?: string;
    conditions?: PodCondition[];
  };
}

const timeText = (t: string | Date | undefined): string =>
  t === undefined ? '' : t instanceof Date ? t.toISOString() : t;

/** The uid of the pod's controller when that controller is a PodSet ('' otherwise). */
function podSetOwnerUid(pod: ProjectedPod): string {
  return podSetControllerRef(pod)?.uid ?? '';
}

// A field never holds a raw tab or newline (the separators); '%' is escaped too so that decoding is exact.
const ESCAPED = /[%\t\n]/;
const escapeField = (s: string): string =>
  // Tested first: nearly every field holds none of them, and a replace with a callback costs even then.
  s === '' || !ESCAPED.test(s) ? s : s.replace(/[%\t\n]/g, (c) => encodeURIComponent(c));
const unescapeField = (s: string): string =>
  s.includes('%') ? s.replace(/%(25|09|0A)/g, (m) => decodeURIComponent(m)) : s;

/**
 * What of a pod a plan reads, in two parts. `plan`: what can change what a reconcile does — the pod's uid,
 * its PodSet controller, its deletion, its template hash, its podset.io/name label (a pod relabelled out of
 * its PodSet is released and replaced), and whether it finished (Succeeded or Failed: it
 * no longer counts and is replaced). `status`: what moves only the PodSet's status and a rollout's pace —
 * the phase and the readiness: they change no count of pods and replace none; a rollout's step waits on
 * readiness (and an unready outdated pod may go), and reads it fresh whenever it runs, so a short delay only
 * slows the rollout.
 */
export interface PodInputs {
  plan: string;
  status: string;
}

/**
 * The pod's stored fields, in this order: phase, ready (1|0), deletionTimestamp, PodSet owner uid, uid,
 * creationTimestamp, nodeName, template hash label, when Ready became True, podset.io/name label,
 * pod-deletion-cost annotation. Plan inputs: see PodInputs (creation time, node and deletion cost only rank,
 * and the Ready time changes only with ready).
 * New fields go at the end, so entries written by an older version decode as pods without them.
 */
export function encodePod(pod: ProjectedPod): { fields: string; inputs: PodInputs } {
  // Built field by field into template strings, not through arrays and joins: the watcher encodes every pod
  // event (the hold's digest), and the arrays were most of what that allocated.
  const m = pod.metadata;
  const ready = readyCondition(pod);
  const rawPhase = pod.status?.phase ?? '';
  const status = `${escapeField(rawPhase)}\t${ready !== undefined ? '1' : '0'}`;
  const deletion = escapeField(m.deletionTimestamp ?? '');
  const owner = escapeField(podSetOwnerUid(pod));
  const uid = escapeField(m.uid ?? '');
  const hash = escapeField(m.labels?.[TEMPLATE_HASH_LABEL] ?? '');
  const nameLabel = escapeField(m.labels?.[NAME_LABEL] ?? '');
  const created = escapeField(m.creationTimestamp ?? '');
  const node = escapeField(pod.spec?.nodeName ?? '');
  const readySince = escapeField(timeText(ready?.lastTransitionTime));
  const cost = escapeField(m.annotations?.[DELETION_COST_ANNOTATION] ?? '');
  const finished = rawPhase === 'Succeeded' || rawPhase === 'Failed' ? '1' : '0';
  return {
    fields: `${status}\t${deletion}\t${owner}\t${uid}\t${created}\t${node}\t${hash}\t${readySince}\t${nameLabel}\t${cost}`,
    inputs: { plan: `${finished}\t${deletion}\t${owner}\t${uid}\t${hash}\t${nameLabel}`, status },
  };
}

/**
 * The pod back from its stored fields; `key` (namespace/name of its PodSet) gives namespace and owner,
 * `resourceVersion` the version the entry reflects (for a delete's precondition). An entry written before
 * the podset.io/name label was stored is of a pod the watch listed by that label under this key: it
 * decodes with the key's name as its label.
 */
export function decodePod(name: string, key: string, fields: string, resourceVersion = ''): ProjectedPod {
  const split = fields.split('\t').map(unescapeField);
  const [
    phase = '',
    ready = '0',
    deletion = '',
    ownerUid = '',
    uid = '',
    created = '',
    node = '',
    hash = '',
    readySince = '',
    nameLabel,
    cost = '',
  ] = split;
  const podset = parseKey(key);
  if (podset === undefined) throw new Error(`key ${JSON.stringify(key)} is not "namespace/name"`);
  const labels = {
    ...(hash !== '' ? { [TEMPLATE_HASH_LABEL]: hash } : {}),
    ...(nameLabel === undefined
      ? { [NAME_LABEL]: podset.name }
      : nameLabel !== ''
        ? { [NAME_LABEL]: nameLabel }
        : {}),
  };
  return {
    metadata: {
      name,
      namespace: podset.namespace,
      ...(uid !== '' ? { uid } : {}),
      ...(resourceVersion !== '' ? { resourceVersion } : {}),
      ...(created !== '' ? { creationTimestamp: created } : {}),
      ...(deletion !== '' ? { deletionTimestamp: deletion } : {}),
      ...(Object.keys(labels).length > 0 ? { labels } : {}),
      ...(cost !== '' ? { annotations: { [DELETION_COST_ANNOTATION]: cost } } : {}),
      ...(ownerUid !== ''
        ? {
            ownerReferences: [
              {
                apiVersion: API_VERSION,
                kind: KIND,
                name: podset.name,
                uid: ownerUid,
                controller: true,
              },
            ],
          }
        : {}),
    },
    ...(node !== '' ? { spec: { nodeName: node } } : {}),
    status: {
      ...(phase !== '' ? { phase } : {}),
      conditions: [
        {
          type: 'Ready',
          status: ready === '1' ? 'True' : 'False',
          ...(readySince !== '' ? { lastTransitionTime: readySince } : {}),
        },
      ],
    },
  };
}

/**
 * Lua, the one place the scripts read a stored entry (entry.lua): `isTombstone(entry)` — a deleted object's
 * tombstone; `podDeleting(entry)` — a pod entry whose deletionTimestamp is set, the Lua twin of the
 * planner's "terminating" (podLifecycle), tested against it on one case table.
 */
export const ENTRY_LUA = luaModule('entry', new URL('./lua/entry.lua', import.meta.url));

/** What of a PodSet besides its status can change a plan (a status-only change is the operator's own). */
export function podSetInputs(m: {
  uid?: string | undefined;
  generation?: number | undefined;
  deletionTimestamp?: unknown;
  finalizers?: string[] | undefined;
  labels?: Record<string, string> | undefined;
}): string {
  const labels = Object.entries(m.labels ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    m.uid ?? '',
    m.generation ?? null,
    m.deletionTimestamp ?? '',
    [...(m.finalizers ?? [])].sort(),
    labels,
  ]);
}

/** Characters of a digest: 96 bits of SHA-1, base64url (a collision is 2^-96 per change). */
export const DIGEST_LENGTH = 16;

/** The stored form of inputs last requested (a PodSet's: the plan half alone). */
export function inputsDigest(inputs: string): string {
  let digest = digests.get(inputs);
  if (digest === undefined) {
    digest = hash('sha1', inputs, 'base64url').slice(0, DIGEST_LENGTH);
    if (digests.size >= DIGESTS_KEPT) digests.clear();
    digests.set(inputs, digest);
  }
  return digest;
}

// Digests remembered by their inputs: a pod's plan half is the same on most of its events (its uid is in
// it) and the status half takes a handful of values (phase, readiness), so most pod events hash nothing.
// Bounded (forgotten all at once when full): a few hundred kB at most.
const DIGESTS_KEPT = 4096;
const digests = new Map<string, string>();

/** A pod's inputs as stored: the plan half's digest, then the status half's (inputsChange splits them). */
export function podInputsDigest(inputs: PodInputs): string {
  return inputsDigest(inputs.plan) + inputsDigest(inputs.status);
}

/** A pod as a fold sends it: its stored fields (encodePod) and its inputs digest (podInputsDigest). */
export interface EncodedPod {
  fields: string;
  digest: string;
}

/**
 * The pod as a fold sends it. Computed once per event: whoever needs the digest first (the watcher's hold)
 * hands this on to the fold (FoldItem.encoded), which then hashes nothing again.
 */
export function encodedPod(pod: ProjectedPod): EncodedPod {
  const { fields, inputs } = encodePod(pod);
  return { fields, digest: podInputsDigest(inputs) };
}

/** The pod's inputs digest, as a fold stores it once requested. */
export function podDigest(pod: ProjectedPod): string {
  return encodedPod(pod).digest;
}

/**
 * What an event changed of what a plan reads, from the digest last requested (undefined: none) and the
 * event's: `none`; `status` — only a pod's status half (its phase or readiness: the PodSet's status and a
 * rollout's pace move, no plan does), so its request may wait a little and collapse with its neighbours';
 * `plan` — anything else, a new object included. A digest without a status half (a PodSet's, or one an
 * earlier version stored) is all plan. Its Lua twin is entry.lua's inputsChange (one case table tests both).
 */
export type InputsChange = 'none' | 'status' | 'plan';

export function inputsChange(requested: string | undefined, digest: string): InputsChange {
  if (requested === digest) return 'none';
  const split = (d: string) => d.length > DIGEST_LENGTH;
  if (requested !== undefined && split(requested) && split(digest)) {
    if (requested.slice(0, DIGEST_LENGTH) === digest.slice(0, DIGEST_LENGTH)) return 'status';
  }
  return 'plan';
}
