// The projection's writer, the watcher's side (projection.ts says what the projection is): folds of watch
// events and relist pages, each ordered by resourceVersion per object so that a replayed older event never
// overwrites a newer state; the epochs of relists, and after one the sweep of the entries it did not see
// (objects deleted while nobody watched); the ready marker.
//
// A fold answers whether the event changed anything a plan reads (phase, readiness, deletion, owner of
// a pod; uid, generation, deletion, finalizers, labels of a PodSet): an event that did not requests no
// reconcile; one that changed only a pod's phase or readiness is told apart (statusOnly), so the watcher
// may let its request wait a little and collapse with its neighbours'.
import { parseKey } from '@podset/reconcile';
import {
  KEYSPACE_LUA,
  luaModule,
  luaScriptOf,
  readLua,
  runScript,
  RV_NEWER_LUA,
  type LuaModule,
  type LuaScript,
} from '@podset/redis';
import {
  encodedPod,
  inputsDigest,
  podSetInputs,
  ENTRY_LUA,
  type EncodedPod,
  type ProjectedMeta,
  type ProjectedPod,
} from './entry.ts';
import type { EntryTags } from './integrity.ts';
import {
  ProjectionClient,
  type Fold,
  type FoldItem,
  type FoldOptions,
  type FoldType,
  type ProjectedPodSet,
  type ProjectionOptions,
} from './projection.ts';

interface FoldCall {
  keys: string[];
  argv: string[];
  requested(): Promise<void>;
}

/** Objects per FOLD_EACH or FOLD_LISTED call: short scripts (Redis runs nothing else meanwhile), few round trips. */
const FOLD_BATCH = 100;

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
  /** A pod's encoding when the caller has it already (FoldItem.encoded). */
  given?: EncodedPod,
): { field: string; payload: string; digest: string } {
  let field: string;
  let payload: string;
  let digest: string;
  if (kind === 'pod') {
    const pod = object as ProjectedPod;
    const { fields, digest: podDigest } = given ?? encodedPod(pod);
    field = pod.metadata.name ?? '';
    payload = fields;
    digest = podDigest;
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

// The scripts, each from its .lua files (read once, when this module loads): its body includes the rules
// and helpers it uses. What each takes (KEYS, ARGV) and answers is written at the top of its body's file.
const lua = (name: string) => new URL(`./lua/${name}.lua`, import.meta.url);
const STORED = luaModule('stored', lua('stored'), [RV_NEWER_LUA]);
/** The fold of one object. */
const FOLD_FN = luaModule('fold', lua('fold'), [ENTRY_LUA, STORED]);
/**
 * FOLD_EACH's body (it builds key names from KEYSPACE_LUA); the script itself is built per writer, with
 * the writer's owed-key hook and the event log's appendRecords.
 */
const FOLD_EACH_BODY = readLua(lua('fold-each'));
const FOLD = luaScriptOf(lua('fold-one'), [FOLD_FN]);
const FOLD_LISTED = luaScriptOf(lua('fold-listed'), [ENTRY_LUA, STORED]);
const SWEEP = luaScriptOf(lua('sweep'), [ENTRY_LUA]);
const NEXT_EPOCH = luaScriptOf(lua('next-epoch'));

export interface ProjectionWriterOptions extends ProjectionOptions {
  /** How long a deleted object's tombstone holds back older events of it (default 5 minutes). */
  tombstoneTtlMs?: number;
  /** Asked by foldEach of each key an event owes a request for (see OwedKeyHook). Without it: nothing settled. */
  owedKeyHook?: OwedKeyHook;
  /**
   * The watcher's event log, for foldEach to append a batch's records in its own call: Lua defining
   * `appendRecords(stream, args, at)` (@podset/event-log's APPEND_RECORDS_LUA) and the stream's key, which
   * must be in the projection's Redis Cluster slot. Without it, foldEach appends nothing.
   */
  eventLog?: { lua: LuaModule; key: string };
}

/**
 * Lua run by foldEach inside its call, atomically with the folds, for each key an event owes a request for
 * (once per key and kind of owed answer in a call): a module named `owed-key` that defines
 * `onOwedKey(arg1, arg2, key, statusOnly, now)` answering (settled, hint). Settled, false or a string that
 * says how (the hook's word, handed back as Fold.settled): the request need not be made — the fold records
 * it as requested there and answers `settled`, not owed. Hint: handed back on the
 * key's owed answers (Fold.hint), for the caller alone. `args`: its two arguments, the same for every key
 * (a foldEach may give its calls another second argument).
 * The script loader must know every hook a writer is built with (its script is composed from it).
 */
export interface OwedKeyHook {
  lua: LuaModule;
  args: readonly [string, string];
}

// The scripts' answers per event (fold.lua, fold-each.lua).
const OWED = 1;
const STATUS_ONLY = 3;
/** Added by fold-each.lua to an owed answer when the owed-key hook hinted for its key. */
const HINT = 4;

function answerOf(out: unknown, requested: () => Promise<void>): Fold {
  if (out === STATUS_ONLY) return { owed: true, statusOnly: true, requested };
  return { owed: out === OWED, requested };
}

const NO_OWED_KEY_HOOK = luaModule('owed-key', 'local function onOwedKey() return false, false end');
const NO_EVENT_LOG_LUA = luaModule('append-records', 'local function appendRecords() end');

/** The watcher's side of the projection: it folds, relists (epochs, sweep) and marks it ready. */
export class ProjectionWriter extends ProjectionClient {
  readonly #tombstoneTtlMs: number;
  readonly #foldEach: LuaScript;
  readonly #hookArgs: readonly [string, string];
  readonly #eventLogKey: string | undefined;

  constructor(opts: ProjectionWriterOptions) {
    super(opts);
    this.#tombstoneTtlMs = opts.tombstoneTtlMs ?? TOMBSTONE_TTL_MS;
    this.#foldEach = luaScriptOf(FOLD_EACH_BODY, [
      KEYSPACE_LUA,
      FOLD_FN,
      opts.owedKeyHook?.lua ?? NO_OWED_KEY_HOOK,
      opts.eventLog?.lua ?? NO_EVENT_LOG_LUA,
    ]);
    this.#eventLogKey = opts.eventLog?.key;
    this.#hookArgs = opts.owedKeyHook?.args ?? ['', ''];
  }

  /** Whether foldEach appends event-log records (it was given `eventLog`). */
  get appendsLog(): boolean {
    return this.#eventLogKey !== undefined;
  }

  /**
   * Removes the marker of the untagged layout: workers of a version before then read the API (not the
   * entries they would misread), and entries of that layout are replaced by the relist that a missing
   * readyKey starts. The watcher calls it before it looks at readyKey (an upgrade's first start relists).
   */
  async retireUntaggedLayout(): Promise<void> {
    await this.client.del(this.keyspace.untaggedReady);
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
   * one each. Each event's answer, in order (see Fold); with `owedKeyHook`, an owed request the hook settles
   * is recorded as requested in the same call and answered `settled`, not owed, and an owed one whose key
   * the hook hinted for carries `hint`.
   */
  async foldEach(
    items: readonly (FoldItem & { epoch: number })[],
    /**
     * With `eventLog`: records to append in the first call (the event log's appendArgs).
     */
    log?: readonly string[],
    /** The owed-key hook's second argument for these calls, instead of the hook's own (what it means is the hook's). */
    hookArg2?: string,
  ): Promise<Fold[]> {
    const encoded = items.map((item) =>
      encodeItem(item.kind, item.key, item.object, this.tags, item.encoded),
    );
    const answers: Promise<unknown>[] = [];
    const shared = [
      this.#hookArgs[0],
      this.base,
      String(this.clock.now()),
      String(this.#tombstoneTtlMs),
      hookArg2 ?? this.#hookArgs[1],
    ];
    if (log !== undefined && !this.appendsLog) throw new Error('foldEach: records given, no eventLog');
    // The cap, then the entries: none to append without a second argument.
    const logKey = log !== undefined && log.length > 1 ? this.#eventLogKey : undefined;
    // A batch of no events still makes one call when it has records to append.
    for (let i = 0; i < Math.max(items.length, logKey === undefined ? 0 : 1); i += FOLD_BATCH) {
      const argv = [String(Math.min(FOLD_BATCH, items.length - i)), ...shared];
      for (let j = i; j < Math.min(i + FOLD_BATCH, items.length); j++) {
        const item = items[j]!;
        const e = encoded[j]!;
        const rv = item.object.metadata.resourceVersion ?? '';
        argv.push(item.kind, item.type, e.field, String(item.epoch), rv, e.digest, e.payload, item.key);
      }
      const keys = [this.indexKey];
      if (i === 0 && logKey !== undefined) {
        keys.push(logKey);
        for (const arg of log!) argv.push(arg);
      }
      answers.push(runScript(this.client, this.#foldEach, keys, argv));
    }
    const out = ((await Promise.all(answers)) as (number | string)[][]).flat();
    return items.map((item, i) => {
      const requested = () => this.#recordRequested(item, encoded[i]!);
      const raw = out[i]!;
      const hint = typeof raw === 'number' && raw > HINT;
      const answer = hint ? (raw as number) - HINT : raw;
      if (typeof answer === 'string') return { owed: false, settled: answer, requested };
      if (answer !== OWED && answer !== STATUS_ONLY) return { owed: false, requested };
      // Added to answerOf's own new object, not spread into another: one object less per owed event.
      const fold = answerOf(answer, requested);
      fold.record = this.#requestRecord(item, encoded[i]!);
      if (hint) fold.hint = true;
      return fold;
    });
  }

  /** Records that the request a fold owed went through (see Fold). */
  /** What recording `item`'s request writes: its digest under its field, or the field gone with the object. */
  #requestRecord(item: FoldItem, e: { field: string; digest: string }): NonNullable<Fold['record']> {
    const value = item.type === 'DELETED' ? undefined : e.digest;
    return { key: this.keys(item.key).requested, field: e.field, value };
  }

  async #recordRequested(item: FoldItem, e: { field: string; digest: string }): Promise<void> {
    const { key, field, value } = this.#requestRecord(item, e);
    if (value === undefined) await this.client.hdel(key, field);
    else await this.client.hset(key, field, value);
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
    /** The relist's stream (`resource/namespace`): an entry stamped above its epoch counter is replaced. */
    stream?: string,
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
        const { field, payload, digest } = encodeItem(kind, item.key, item.object, this.tags);
        objects.push(String(group), field, item.object.metadata.resourceVersion ?? '', digest, payload);
      }
      if (stream !== undefined) keys.push(this.keyspace.epoch(stream));
      const argv = [kind, String(epoch), String(groups.size), ...groups.keys(), ...objects];
      sent.push(runScript(this.client, FOLD_LISTED, keys, argv));
    }
    for (const out of await Promise.allSettled(sent)) if (out.status === 'rejected') throw out.reason;
  }

  /** One object's fold: its script keys and arguments, and how to record its request. */
  #foldCall(item: FoldItem, epoch: number, opts: FoldOptions): FoldCall {
    const k = this.keys(item.key);
    const e = encodeItem(item.kind, item.key, item.object, this.tags);
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
        String(this.clock.now()),
        String(this.#tombstoneTtlMs),
      ],
      requested: () => this.#recordRequested(item, e),
    };
  }

  async #fold(call: FoldCall): Promise<Fold> {
    return answerOf(await runScript(this.client, FOLD, call.keys, call.argv), call.requested);
  }

  /**
   * A new epoch for a relist of `stream`: everything it folds carries it. Above `after` (the epoch this
   * watcher folded at so far) even when Redis lost the counter: folds of events from before the loss may
   * still land in the new Redis, and the relist's sweep must see them as older than itself.
   */
  async nextEpoch(stream: string, after = 0): Promise<number> {
    return Number(await runScript(this.client, NEXT_EPOCH, [this.keyspace.epoch(stream)], [String(after)]));
  }

  /** The epoch folds of `stream` carry now (0 before its first relist). */
  async epoch(stream: string): Promise<number> {
    return Number((await this.client.get(this.keyspace.epoch(stream))) ?? 0);
  }

  /**
   * After a complete relist at `epoch`: removes the entries it did not see (in `namespace`, or all of
   * them) — objects deleted while nobody watched — and ends the wait for creates recorded before the relist
   * began whose pods it did not list (created and deleted while nobody watched). Returns how many went.
   */
  async sweep(kind: 'pod' | 'podset', namespace: string | undefined, epoch: number): Promise<number> {
    const counterKey = this.keyspace.epoch(`${kind === 'pod' ? 'pods' : 'podsets'}/${namespace ?? '*'}`);
    // Expectations carry the pods stream's epoch as Redis had it when they were recorded. A counter below
    // this relist's epoch was lost (a Redis restart dropped its last writes): an expectation recorded since
    // then, after this relist's list, carries an older epoch it does not deserve, and ending its wait would
    // let a worker create its pod again. So then no wait ends here (they expire), and the counter is put back.
    let trustEpochs = true;
    if (kind === 'pod') {
      if (Number((await this.client.get(counterKey)) ?? 0) < epoch) {
        trustEpochs = false;
        await this.client.set(counterKey, String(epoch));
      }
    }
    let removed = 0;
    for (const key of await this.client.smembers(this.indexKey)) {
      if (namespace !== undefined && parseKey(key)?.namespace !== namespace) continue;
      const k = this.keys(key);
      removed += Number(
        await runScript(
          this.client,
          SWEEP,
          [kind === 'pod' ? k.pods : k.podset, k.requested, k.expect, counterKey],
          [kind, String(epoch), trustEpochs ? '1' : '0'],
        ),
      );
    }
    return removed;
  }

  /** Marks the projection complete (every stream relisted or resumed on it): workers may read it. */
  async markReady(): Promise<void> {
    await this.client.set(this.readyKey, new Date(this.clock.now()).toISOString());
  }
}
