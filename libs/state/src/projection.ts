// The projection: what a reconcile reads of a PodSet and its pods, folded from the watch events by the
// watcher and kept in Redis beside the queue (same hash tag), so that workers read one key's state in
// one round trip instead of a GET and a LIST against the API server.
//
// Per PodSet key `ns/name`:
//   <base>:ps:<key>    the PodSet as the planner reads it (JSON), with the epoch and RV it was folded at
//   <base>:pods:<key>  hash pod name → epoch, RV and the pod's fields the planner reads (entry.ts)
// Each entry is `epoch \t rv \t tag \t payload`: the tag (integrity.ts) is made here, before the fold
// script stores the entry verbatim, and read() checks it: Redis is not trusted to hand back what was folded.
//   <base>:exp:<key>   hash pod name → expiry (ms): creates and deletes a worker made and has not seen yet
//   <base>:req:<key>   hash pod name (or '@ps') → digest of the plan inputs last requested
// and <base>:ready:v2, set once a complete relist has been folded (until then workers read the API).
//
// A fold answers whether the event changed anything a plan reads (phase, readiness, deletion, owner of
// a pod; uid, generation, deletion, finalizers, labels of a PodSet): an event that did not requests no
// reconcile. Folds are ordered by resourceVersion per object, so a replayed older event never
// overwrites a newer state. After a relist, entries the relist did not see (objects deleted while
// nobody watched) are swept by their epoch.
import { parseKey } from '@podset/reconcile';
import { luaScriptOf, readLua, runScript, type LuaScript, type RedisClient } from './lua/script.ts';
import {
  decodePod,
  encodePod,
  inputsDigest,
  podSetInputs,
  ENTRY_LUA,
  type ProjectedMeta,
  type ProjectedPod,
} from './entry.ts';
import { RV_NEWER_LUA } from './rules/resource-version.ts';
import type { EntryTags } from './integrity.ts';

export type { ProjectedMeta, ProjectedPod } from './entry.ts';
export { podSetInputs } from './entry.ts';

/** A PodSet as the planner and the status writer read it. */
export interface ProjectedPodSet {
  metadata: ProjectedMeta;
  spec?: unknown;
  status?: unknown;
}

export type FoldType = 'ADDED' | 'MODIFIED' | 'DELETED';

/**
 * A fold's answer. `owed`: a reconcile is owed — what a plan reads differs from what was last requested.
 * Call `requested()` once that request went through; until then a fold of the same event (re-delivered
 * after a failed request) owes it again.
 */
export interface Fold {
  owed: boolean;
  /** foldEach only: a request was owed, and the key's job already waiting in the queue covers it. */
  covered?: boolean;
  requested(): Promise<void>;
}

/** One object to fold into PodSet `key`'s state. */
export interface FoldItem {
  key: string;
  kind: 'pod' | 'podset';
  type: FoldType;
  object: ProjectedPod | ProjectedPodSet;
}

interface FoldCall {
  keys: string[];
  argv: string[];
  requested(): Promise<void>;
}

/** Objects per FOLD_EACH or FOLD_LISTED call: short scripts (Redis runs nothing else meanwhile), few round trips. */
const FOLD_BATCH = 100;

export interface FoldOptions {
  /** The caller requests the key anyway (a relist requests every key): record it as requested now. */
  requestedAnyway?: boolean;
}

export interface ProjectedState {
  podset: ProjectedPodSet | undefined;
  pods: ProjectedPod[];
  /** Pod names a worker created or deleted and the projection has not shown yet (unexpired). */
  pending: string[];
  /**
   * Entries read() refused (only with `tags`): a tag that does not check, or a PodSet whose
   * namespace/name is not its key's. They are left out of `podset` and `pods`; never plan from the rest.
   */
  refused: Refusal[];
}

export interface Refusal {
  kind: 'pod' | 'podset';
  /** The pod's name; '@ps' for the PodSet. */
  field: string;
  reason: 'tag' | 'key';
}

/** How long an expectation holds at most (the ReplicaSet controller's 5 minutes). */
const EXPECTATION_TTL_MS = 5 * 60_000;

/**
 * How long a deleted object's tombstone holds back older events of it: far longer than an event can be
 * on its way (a watch settles every event it handed on before it re-watches or relists).
 */
const TOMBSTONE_TTL_MS = 5 * 60_000;

/** The PodSet as kept: metadata the worker writes against (RV, finalizers), spec and status. */
function trimPodSet(podset: ProjectedPodSet): ProjectedPodSet {
  const { managedFields: _managed, ...metadata } = podset.metadata as ProjectedMeta & {
    managedFields?: unknown;
  };
  return { metadata, spec: podset.spec, ...(podset.status !== undefined ? { status: podset.status } : {}) };
}

/**
 * What a fold stores of an object: its field in the key's state, the stored payload (`tag \t` the
 * object's fields or JSON; the tag is empty without `tags`), its inputs' digest.
 */
function encodeItem(
  kind: 'pod' | 'podset',
  key: string,
  object: ProjectedPod | ProjectedPodSet,
  tags: EntryTags | undefined,
): { field: string; payload: string; digest: string } {
  let field: string;
  let payload: string;
  let digest: string;
  if (kind === 'pod') {
    const pod = object as ProjectedPod;
    const { fields, inputs } = encodePod(pod);
    field = pod.metadata.name ?? '';
    payload = fields;
    digest = inputsDigest(inputs);
  } else {
    const trimmed = trimPodSet(object as ProjectedPodSet);
    field = '@ps';
    payload = JSON.stringify(trimmed);
    digest = inputsDigest(podSetInputs(trimmed.metadata));
  }
  const rv = object.metadata.resourceVersion ?? '';
  const tag = tags?.tag({ kind, key, field, rv, payload }) ?? '';
  return { field, payload: `${tag}\t${payload}`, digest };
}

// The scripts, each from its .lua files (read once, when this module loads): the rules and helpers it uses,
// then its body. What each takes (KEYS, ARGV) and answers is written at the top of its body's file.
const lua = (name: string) => new URL(`./lua/${name}.lua`, import.meta.url);
const RULES = [RV_NEWER_LUA, ENTRY_LUA];
const STORED = readLua(lua('stored'));
/** The fold of one object, with what it uses beyond RULES. */
const FOLD_FN = [STORED, readLua(lua('fold'))].join('\n');
/** FOLD_EACH's body; the script itself is built per Projection, around the queue's liveRequestCovered. */
const FOLD_EACH_BODY = readLua(lua('fold-each'));
const FOLD = luaScriptOf(...RULES, FOLD_FN, lua('fold-one'));
const FOLD_LISTED = luaScriptOf(...RULES, STORED, lua('fold-listed'));
const EXPECT = luaScriptOf(...RULES, lua('expect'));
const READ = luaScriptOf(...RULES, lua('read'));
const SWEEP = luaScriptOf(lua('sweep'));
const NEXT_EPOCH = luaScriptOf(lua('next-epoch'));

export interface ProjectionOptions {
  client: RedisClient;
  /** The queue's prefix and name: the projection lives beside the queue (same Redis Cluster slot). */
  prefix: string;
  queueName: string;
  /** How long a deleted object's tombstone holds back older events of it (default 5 minutes). */
  tombstoneTtlMs?: number;
  /**
   * The reconcile queue beside the projection, for foldEach: Lua defining `liveRequestCovered(jobPrefix,
   * key)` (the queue's LIVE_COVER_LUA) and the queue's job prefix. Without it, foldEach covers nothing.
   */
  liveCover?: { lua: string; jobPrefix: string };
  /**
   * The integrity key(s) (PROJECTION_HMAC_KEY): every entry written is tagged, and read() refuses an
   * entry whose tag does not check. Without it entries carry no tag and read() checks nothing: a worker
   * never plans from such a projection (it reads the API instead).
   */
  tags?: EntryTags;
}

const NOTHING_COVERED_LUA = 'local function liveRequestCovered() return false end';

export class Projection {
  readonly #client: RedisClient;
  readonly #tombstoneTtlMs: number;
  readonly #foldEach: LuaScript;
  readonly #jobPrefix: string;
  readonly #tags: EntryTags | undefined;
  readonly base: string;

  constructor(opts: ProjectionOptions) {
    this.#client = opts.client;
    this.#tombstoneTtlMs = opts.tombstoneTtlMs ?? TOMBSTONE_TTL_MS;
    this.#foldEach = luaScriptOf(
      ...RULES,
      FOLD_FN,
      opts.liveCover?.lua ?? NOTHING_COVERED_LUA,
      FOLD_EACH_BODY,
    );
    this.#jobPrefix = opts.liveCover?.jobPrefix ?? '';
    this.#tags = opts.tags;
    this.base = `${opts.prefix}:${opts.queueName}:proj`;
  }

  keys(key: string): { podset: string; pods: string; expect: string; requested: string } {
    return {
      podset: `${this.base}:ps:${key}`,
      pods: `${this.base}:pods:${key}`,
      expect: `${this.base}:exp:${key}`,
      requested: `${this.base}:req:${key}`,
    };
  }

  /** The PodSet keys that have (or had) entries. */
  get indexKey(): string {
    return `${this.base}:keys`;
  }

  /**
   * Set once a complete relist has been folded. `:v2`: entries carry an integrity tag since; a worker of a
   * version before reads the unversioned marker and would misread them (a tag where a pod's phase was).
   */
  get readyKey(): string {
    return `${this.base}:ready:v2`;
  }

  /**
   * Removes the marker of the untagged layout: workers of a version before then read the API (not the
   * entries they would misread), and entries of that layout are replaced by the relist that a missing
   * readyKey starts. The watcher calls it before it looks at readyKey (an upgrade's first start relists).
   */
  async retireUntaggedLayout(): Promise<void> {
    await this.#client.del(`${this.base}:ready`);
  }

  /** Folds a pod event of PodSet `key`: whether a reconcile is owed (see Fold). */
  async foldPod(
    key: string,
    type: FoldType,
    pod: ProjectedPod,
    epoch: number,
    opts: FoldOptions = {},
  ): Promise<Fold> {
    return await this.#fold(this.#foldCall({ key, kind: 'pod', type, object: pod }, epoch, opts));
  }

  /** Folds a PodSet event (a status-only change owes no reconcile). */
  async foldPodSet(
    key: string,
    type: FoldType,
    podset: ProjectedPodSet,
    epoch: number,
    opts: FoldOptions = {},
  ): Promise<Fold> {
    return await this.#fold(this.#foldCall({ key, kind: 'podset', type, object: podset }, epoch, opts));
  }

  /**
   * Folds watch events in order, each at its own stream's epoch, FOLD_BATCH per Redis call: the calls are
   * issued together (one connection keeps their order), so a burst of events costs a few round trips, not
   * one each. Each event's answer, in order (see Fold); with `liveCover`, an owed request that the key's
   * waiting job covers is recorded as requested in the same call and answered `covered`, not owed.
   */
  async foldEach(items: readonly (FoldItem & { epoch: number })[]): Promise<Fold[]> {
    const encoded = items.map((item) => encodeItem(item.kind, item.key, item.object, this.#tags));
    const answers: Promise<unknown>[] = [];
    const shared = [this.#jobPrefix, this.base, String(Date.now()), String(this.#tombstoneTtlMs)];
    for (let i = 0; i < items.length; i += FOLD_BATCH) {
      const argv = [String(Math.min(FOLD_BATCH, items.length - i)), ...shared];
      for (let j = i; j < Math.min(i + FOLD_BATCH, items.length); j++) {
        const item = items[j]!;
        const e = encoded[j]!;
        const rv = item.object.metadata.resourceVersion ?? '';
        argv.push(item.kind, item.type, e.field, String(item.epoch), rv, e.digest, e.payload, item.key);
      }
      answers.push(runScript(this.#client, this.#foldEach, [this.indexKey], argv));
    }
    const out = ((await Promise.all(answers)) as number[][]).flat();
    return items.map((item, i) => {
      const requested = () => this.#recordRequested(item, encoded[i]!);
      return out[i] === 2 ? { owed: false, covered: true, requested } : { owed: out[i] === 1, requested };
    });
  }

  /** Records that the request a fold owed went through (see Fold). */
  async #recordRequested(item: FoldItem, e: { field: string; digest: string }): Promise<void> {
    const key = this.keys(item.key).requested;
    if (item.type === 'DELETED') await this.#client.hdel(key, e.field);
    else await this.#client.hset(key, e.field, e.digest);
  }

  /**
   * Folds a relist page: objects of one kind, each as an ADDED event whose request the caller makes
   * anyway (a relist requests every key), as one fold per object with { requestedAnyway: true } would, with fewer
   * Redis calls and arguments per object. FOLD_BATCH per call, all sent at once and run in the order
   * sent (one connection); settles once every call has, failing if any did (the page is listed again).
   */
  async foldListed(
    kind: 'pod' | 'podset',
    items: readonly { key: string; object: ProjectedPod | ProjectedPodSet }[],
    epoch: number,
  ): Promise<void> {
    const sent: Promise<unknown>[] = [];
    for (let i = 0; i < items.length; i += FOLD_BATCH) {
      const groups = new Map<string, number>();
      const keys = [this.indexKey];
      const objects: string[] = [];
      for (const item of items.slice(i, i + FOLD_BATCH)) {
        let group = groups.get(item.key);
        if (group === undefined) {
          group = groups.size;
          groups.set(item.key, group);
          const k = this.keys(item.key);
          keys.push(kind === 'pod' ? k.pods : k.podset, k.expect, k.requested);
        }
        const { field, payload, digest } = encodeItem(kind, item.key, item.object, this.#tags);
        objects.push(String(group), field, item.object.metadata.resourceVersion ?? '', digest, payload);
      }
      const argv = [kind, String(epoch), String(groups.size), ...groups.keys(), ...objects];
      sent.push(runScript(this.#client, FOLD_LISTED, keys, argv));
    }
    for (const out of await Promise.allSettled(sent)) if (out.status === 'rejected') throw out.reason;
  }

  /** One object's fold: its script keys and arguments, and how to record its request. */
  #foldCall(item: FoldItem, epoch: number, opts: FoldOptions): FoldCall {
    const k = this.keys(item.key);
    const e = encodeItem(item.kind, item.key, item.object, this.#tags);
    return {
      keys:
        item.kind === 'pod'
          ? [k.pods, k.expect, this.indexKey, k.requested, k.podset]
          : [k.podset, k.expect, this.indexKey, k.requested, k.pods],
      argv: [
        item.kind,
        item.type,
        e.field,
        String(epoch),
        item.object.metadata.resourceVersion ?? '',
        e.digest,
        e.payload,
        item.key,
        opts.requestedAnyway === true ? '1' : '0',
        String(Date.now()),
        String(this.#tombstoneTtlMs),
      ],
      requested: () => this.#recordRequested(item, e),
    };
  }

  async #fold(call: FoldCall): Promise<Fold> {
    const owed = (await runScript(this.#client, FOLD, call.keys, call.argv)) === 1;
    return { owed, requested: call.requested };
  }

  /**
   * A deleted PodSet's pods, expectations and requests, once its pods are gone (the worker's cleanup
   * before its finalizer goes). The PodSet's own entry stays: if removing the finalizer fails, the retry
   * must still find the PodSet being deleted, not "gone". Its DELETED event turns it into a tombstone that
   * expires, and takes its name out of the sweep's index. Returns the keys removed.
   */
  async forget(key: string): Promise<number> {
    const k = this.keys(key);
    return await this.#client.del(k.pods, k.expect, k.requested);
  }

  /**
   * A new epoch for a relist of `stream`: everything it folds carries it. Above `after` (the epoch this
   * watcher folded at so far) even when Redis lost the counter: folds of events from before the loss may
   * still land in the new Redis, and the relist's sweep must see them as older than itself.
   */
  async nextEpoch(stream: string, after = 0): Promise<number> {
    return Number(await runScript(this.#client, NEXT_EPOCH, [this.#epochKey(stream)], [String(after)]));
  }

  /** The epoch folds of `stream` carry now (0 before its first relist). */
  async epoch(stream: string): Promise<number> {
    return Number((await this.#client.get(this.#epochKey(stream))) ?? 0);
  }

  /** A stream's epoch counter; streams are the watcher's `resource/namespace` (`*`: all namespaces). */
  #epochKey(stream: string): string {
    return `${this.base}:epoch:${stream}`;
  }

  /**
   * After a complete relist at `epoch`: removes the entries it did not see (in `namespace`, or all of
   * them) — objects deleted while nobody watched — and ends the wait for creates recorded before the relist
   * began whose pods it did not list (created and deleted while nobody watched). Returns how many went.
   */
  async sweep(kind: 'pod' | 'podset', namespace: string | undefined, epoch: number): Promise<number> {
    // Expectations carry the pods stream's epoch as Redis had it when they were recorded. A counter below
    // this relist's epoch was lost (a Redis restart dropped its last writes): an expectation recorded since
    // then, after this relist's list, carries an older epoch it does not deserve, and ending its wait would
    // let a worker create its pod again. So then no wait ends here (they expire), and the counter is put back.
    let trustEpochs = true;
    if (kind === 'pod') {
      const counter = this.#epochKey(`pods/${namespace ?? '*'}`);
      if (Number((await this.#client.get(counter)) ?? 0) < epoch) {
        trustEpochs = false;
        await this.#client.set(counter, String(epoch));
      }
    }
    let removed = 0;
    for (const key of await this.#client.smembers(this.indexKey)) {
      if (namespace !== undefined && parseKey(key)?.namespace !== namespace) continue;
      const k = this.keys(key);
      removed += Number(
        await runScript(
          this.#client,
          SWEEP,
          [kind === 'pod' ? k.pods : k.podset, k.requested, k.expect],
          [kind, String(epoch), trustEpochs ? '1' : '0'],
        ),
      );
    }
    return removed;
  }

  /** Marks the projection complete (every stream relisted or resumed on it): workers may read it. */
  async markReady(): Promise<void> {
    await this.#client.set(this.readyKey, new Date().toISOString());
  }

  async isReady(): Promise<boolean> {
    return (await this.#client.exists(this.readyKey)) === 1;
  }

  /** Records pods a worker created ('create') or deleted ('delete') until the projection shows them. */
  async expect(
    key: string,
    what: 'create' | 'delete',
    names: readonly string[],
    ttlMs = EXPECTATION_TTL_MS,
  ): Promise<number> {
    if (names.length === 0) return 0;
    const k = this.keys(key);
    // The pods stream's epoch now (the watcher's stream of all namespaces, or of the key's one): a relist
    // begun after this and not listing a created pod ends the wait (see sweep).
    const ns = parseKey(key)?.namespace ?? '';
    return Number(
      await runScript(
        this.#client,
        EXPECT,
        [k.pods, k.expect],
        [
          String(Date.now()),
          String(ttlMs),
          what === 'create' ? 'c' : 'd',
          this.#epochKey('pods/*'),
          this.#epochKey(`pods/${ns}`),
          ...names,
        ],
      ),
    );
  }

  /** The key's state in one round trip; undefined while the projection is not complete. */
  async read(key: string): Promise<ProjectedState | undefined> {
    const k = this.keys(key);
    const out = (await runScript(
      this.#client,
      READ,
      [k.pods, k.expect],
      [String(Date.now()), k.podset, this.readyKey],
    )) as [number, string, ...string[]];
    if (out[0] !== 1) return undefined;
    const rest = out.slice(2) as string[];
    const split = rest.indexOf('');
    const refused: Refusal[] = [];
    const pods: ProjectedPod[] = [];
    for (let i = 0; i < split; i += 2) {
      const name = rest[i]!;
      const e = this.#checked('pod', key, name, rest[i + 1]!);
      if (e === undefined) refused.push({ kind: 'pod', field: name, reason: 'tag' });
      else pods.push(decodePod(name, key, e.payload, e.rv));
    }
    let podset: ProjectedPodSet | undefined;
    if (out[1] !== '') {
      const e = this.#checked('podset', key, '@ps', out[1]);
      if (e === undefined) refused.push({ kind: 'podset', field: '@ps', reason: 'tag' });
      else {
        podset = JSON.parse(e.payload) as ProjectedPodSet;
        // A tag binds the entry to its key, but a PodSet is planned by its own metadata: check they agree.
        const ref = parseKey(key);
        if (podset.metadata.namespace !== ref?.namespace || podset.metadata.name !== ref?.name) {
          refused.push({ kind: 'podset', field: '@ps', reason: 'key' });
          podset = undefined;
        }
      }
    }
    return { podset, pods, pending: rest.slice(split + 1), refused };
  }

  /** A stored entry's rv and payload; undefined when `tags` are set and its tag does not check. */
  #checked(
    kind: 'pod' | 'podset',
    key: string,
    field: string,
    entry: string,
  ): { rv: string; payload: string } | undefined {
    const rvStart = entry.indexOf('\t') + 1;
    const tagStart = entry.indexOf('\t', rvStart) + 1;
    const payloadStart = entry.indexOf('\t', tagStart) + 1;
    if (rvStart === 0 || tagStart === 0 || payloadStart === 0) return undefined;
    const rv = entry.slice(rvStart, tagStart - 1);
    const payload = entry.slice(payloadStart);
    if (this.#tags === undefined) return { rv, payload };
    const tag = entry.slice(tagStart, payloadStart - 1);
    return this.#tags.verify({ kind, key, field, rv, payload }, tag) ? { rv, payload } : undefined;
  }
}
