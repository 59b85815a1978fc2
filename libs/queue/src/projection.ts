// The projection: what a reconcile reads of a PodSet and its pods, folded from the watch events by the
// watcher and kept in Redis beside the queue (same hash tag), so that workers read one key's state in
// one round trip instead of a GET and a LIST against the API server.
//
// Per PodSet key `ns/name`:
//   <base>:ps:<key>    the PodSet as the planner reads it (JSON), with the epoch and RV it was folded at
//   <base>:pods:<key>  hash pod name → epoch, RV and the pod's fields the planner reads (projection-entry.ts)
//   <base>:exp:<key>   hash pod name → expiry (ms): creates and deletes a worker made and has not seen yet
//   <base>:req:<key>   hash pod name (or '@ps') → digest of the plan inputs last requested
// and <base>:ready, set once a complete relist has been folded (until then workers read the API).
//
// A fold answers whether the event changed anything a plan reads (phase, readiness, deletion, owner of
// a pod; uid, generation, deletion, finalizers, labels of a PodSet): an event that did not requests no
// reconcile. Folds are ordered by resourceVersion per object, so a replayed older event never
// overwrites a newer state. After a relist, entries the relist did not see (objects deleted while
// nobody watched) are swept by their epoch.
import type { RedisClient } from './connection.ts';
import { luaScript, runScript } from './lua.ts';
import {
  decodePod,
  encodePod,
  inputsDigest,
  podSetInputs,
  ENTRY_LUA,
  type ProjectedMeta,
  type ProjectedPod,
} from './projection-entry.ts';
import { RV_NEWER_LUA } from './resource-version.ts';

export type { ProjectedMeta, ProjectedPod } from './projection-entry.ts';
export { podSetInputs } from './projection-entry.ts';

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

/** Objects per FOLD_MANY call: short scripts (Redis runs nothing else meanwhile), few round trips. */
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

// A stored entry: epoch \t rv \t payload — a pod's fields (never a raw tab inside one) or a PodSet's JSON.
// A deleted object leaves a tombstone, epoch \t rv \n expiry (ms), for TOMBSTONE_TTL_MS: a late older event
// of it (one still on its way when a newer DELETED was folded) must not bring it back. Neither a pod's
// fields nor JSON ever hold a raw newline, so the newline marks a tombstone.
// KEYS[1] the hash (pods) or string (PodSet) key, KEYS[2] the expectations hash (pods; unused for PodSets),
// KEYS[3] the index of keys with entries (for the sweep), KEYS[4] the inputs last *requested* per object,
// KEYS[5] the other half of the key's state (a pod: the PodSet's entry; a PodSet: its pods hash): pod
// tombstones under a PodSet that is gone must not outlive it.
// ARGV: kind ('pod'|'podset'), type, field (pod name; '@ps' for the PodSet), epoch, rv, inputs digest,
// payload, the PodSet key, '1' when the fold's request is made anyway (a relist requests every key), now
// (ms) and the tombstone's ttl (ms).
// Returns 1 when a reconcile is owed: the inputs differ from those last requested (or the object went).
// The answer is against what was *requested*, not what was folded, because a fold and its request are
// two steps: when the request fails, the watch re-delivers the event, and its fold must ask again.
const FOLD_FN = `
${RV_NEWER_LUA}
${ENTRY_LUA}
-- Unexpired expectations left in the hash (expired ones are dropped).
local function awaiting(key, now)
  local all = redis.call('HGETALL', key)
  local n = 0
  for i = 1, #all, 2 do
    if tonumber(string.sub(all[i + 1], 2)) <= now then redis.call('HDEL', key, all[i]) else n = n + 1 end
  end
  return n
end
local function fold(K, A)
  local kind, typ, field, epoch, rv, inputs, payload = A[1], A[2], A[3], A[4], A[5], A[6], A[7]
  local requestedAnyway = A[9] == '1'
  local now, tombTtl = tonumber(A[10]), tonumber(A[11])
  local old
  if kind == 'pod' then old = redis.call('HGET', K[1], field) else old = redis.call('GET', K[1]) end
  local oldEpoch, oldRv
  if old then oldEpoch, oldRv = string.match(old, '^([^\\t]*)\\t([^\\t\\n]*)') end
  -- The entry keeps the newest epoch that saw the object: a relist that lists an older version than one
  -- already folded (a worker's own write, folded at once) still counts as having seen it.
  if oldEpoch and tonumber(oldEpoch) > tonumber(epoch) then epoch = oldEpoch end
  if oldRv and oldRv ~= '' and rv ~= '' and not rvNewer(rv, oldRv) and oldRv ~= rv then
    if epoch ~= oldEpoch then
      local rest = string.sub(old, #oldEpoch + 1)
      if kind == 'pod' then redis.call('HSET', K[1], field, epoch .. rest)
      else redis.call('SET', K[1], epoch .. rest, 'KEEPTTL') end
    end
    return 0
  end
  local requested = redis.call('HGET', K[4], field)
  if typ == 'DELETED' then
    local tombstone = epoch .. '\\t' .. rv .. '\\n' .. (now + tombTtl)
    if kind == 'pod' then
      redis.call('HSET', K[1], field, tombstone)
      redis.call('HDEL', K[2], field)
      -- Nothing reads or sweeps the pods of a PodSet that is gone (its state was forgotten): let them go.
      local ps = redis.call('GET', K[5])
      if not ps or isTombstone(ps) then redis.call('PEXPIRE', K[1], tombTtl) end
    else
      redis.call('SET', K[1], tombstone, 'PX', tombTtl)
      redis.call('SREM', K[3], A[8])
      redis.call('PEXPIRE', K[5], tombTtl)
      -- What a worker awaited was of this PodSet: one created again under its name must not wait for it.
      redis.call('DEL', K[2])
    end
    if requestedAnyway then redis.call('HDEL', K[4], field) return 0 end
    if requested then return 1 end
    return 0
  end
  local value = epoch .. '\\t' .. rv .. '\\t' .. payload
  redis.call('SADD', K[3], A[8])
  if kind == 'pod' then
    redis.call('HSET', K[1], field, value)
    redis.call('PERSIST', K[1])
    -- A create shows as the pod; a delete as its deletionTimestamp (or its DELETED event, above).
    local exp = redis.call('HGET', K[2], field)
    if exp then
      local what = string.sub(exp, 1, 1)
      if what == 'c' or podDeleting(value) then
        redis.call('HDEL', K[2], field)
        -- The worker plans again only once all its creates and deletes show, so one that shows while others
        -- are awaited requests nothing: the last one's request covers it (recorded as requested with it).
        if not requestedAnyway and awaiting(K[2], now) > 0 then
          redis.call('HSET', K[4], field, inputs)
          return 0
        end
      end
    end
  else
    redis.call('SET', K[1], value)
  end
  if requestedAnyway then redis.call('HSET', K[4], field, inputs) return 0 end
  if requested == inputs then return 0 end
  return 1
end
`;

const FOLD = luaScript(`${FOLD_FN}
return fold(KEYS, ARGV)
`);

// Many folds in one call (a relist page): ARGV[1] = n; then KEYS in fives and the rest of ARGV in elevens,
// per object as FOLD takes them. Returns each fold's answer, in order.
const FOLD_MANY = luaScript(`${FOLD_FN}
local n, out = tonumber(ARGV[1]), {}
for i = 0, n - 1 do
  local K, A = {}, {}
  for j = 1, 5 do K[j] = KEYS[i * 5 + j] end
  for j = 1, 11 do A[j] = ARGV[1 + i * 11 + j] end
  out[i + 1] = fold(K, A)
end
return out
`);

// Expectations: KEYS[1] pods hash, KEYS[2] expectations hash; ARGV: now, ttlMs, kind ('c'|'d'), names...
// A name already shown as the worker expects it (created: present or a tombstone; deleted: absent, a
// tombstone, or deleting) is not recorded: its event came first and will not come again.
const EXPECT = luaScript(`
${ENTRY_LUA}
local now, ttl, what = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local n = 0
for i = 4, #ARGV do
  local name = ARGV[i]
  local cur = redis.call('HGET', KEYS[1], name)
  local seen
  -- A create shows as any entry of the name, a tombstone too: the pod came (and went) before this call.
  if what == 'c' then seen = cur ~= false
  else seen = cur == false or isTombstone(cur) or podDeleting(cur) end
  if not seen then
    redis.call('HSET', KEYS[2], name, what .. (now + ttl))
    n = n + 1
  end
end
if n > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return n
`);

// Read: KEYS[1] PodSet, KEYS[2] pods, KEYS[3] expectations, KEYS[4] ready marker; ARGV[1] now.
// Expired expectations and tombstones are dropped; tombstones are not returned.
// Returns {ready, podset ('' when none), pod name, pod entry, ..., '', pending names...}.
const READ = luaScript(`
${ENTRY_LUA}
local now = tonumber(ARGV[1])
local podset = redis.call('GET', KEYS[1]) or ''
if isTombstone(podset) then podset = '' end
local out = { redis.call('EXISTS', KEYS[4]), podset }
local pods = redis.call('HGETALL', KEYS[2])
for i = 1, #pods, 2 do
  local v = pods[i + 1]
  local nl = string.find(v, '\\n', 1, true)
  if not nl then
    out[#out + 1] = pods[i]
    out[#out + 1] = v
  elseif tonumber(string.sub(v, nl + 1)) <= now then
    redis.call('HDEL', KEYS[2], pods[i])
  end
end
out[#out + 1] = ''
local exp = redis.call('HGETALL', KEYS[3])
for i = 1, #exp, 2 do
  if tonumber(string.sub(exp[i + 1], 2)) <= now then redis.call('HDEL', KEYS[3], exp[i])
  else out[#out + 1] = exp[i] end
end
return out
`);

// Sweep: KEYS[1] a pods hash or a PodSet key, KEYS[2] the requested inputs, KEYS[3] the expectations;
// ARGV[1] kind, ARGV[2] the
// epoch of the relist just done. Removes what that relist did not see (folded at an older epoch), and
// what was last requested of it. Returns how many went.
const SWEEP = luaScript(`
local kind, epoch = ARGV[1], tonumber(ARGV[2])
local function older(v) return tonumber(string.match(v, '^([^\\t]*)\\t') or '0') < epoch end
if kind == 'podset' then
  local v = redis.call('GET', KEYS[1])
  if v and older(v) then
    redis.call('DEL', KEYS[1])
    redis.call('HDEL', KEYS[2], '@ps')
    return 1
  end
  return 0
end
local all = redis.call('HGETALL', KEYS[1])
local n = 0
for i = 1, #all, 2 do
  if older(all[i + 1]) then
    redis.call('HDEL', KEYS[1], all[i])
    redis.call('HDEL', KEYS[2], all[i])
    -- Gone while nobody watched: whatever a worker awaited of it (its create, its delete) is over.
    redis.call('HDEL', KEYS[3], all[i])
    n = n + 1
  end
end
return n
`);

// KEYS[1] a stream's epoch counter; ARGV[1] a floor the new epoch must exceed.
const NEXT_EPOCH = luaScript(`
local n = redis.call('INCR', KEYS[1])
local floor = tonumber(ARGV[1])
if n <= floor then
  n = floor + 1
  redis.call('SET', KEYS[1], n)
end
return n
`);

export interface ProjectionOptions {
  client: RedisClient;
  /** The queue's prefix and name: the projection lives beside the queue (same Redis Cluster slot). */
  prefix: string;
  queueName: string;
  /** How long a deleted object's tombstone holds back older events of it (default 5 minutes). */
  tombstoneTtlMs?: number;
}

export class Projection {
  readonly #client: RedisClient;
  readonly #tombstoneTtlMs: number;
  readonly base: string;

  constructor(opts: ProjectionOptions) {
    this.#client = opts.client;
    this.#tombstoneTtlMs = opts.tombstoneTtlMs ?? TOMBSTONE_TTL_MS;
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

  get readyKey(): string {
    return `${this.base}:ready`;
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
   * Folds many objects in order, FOLD_BATCH per Redis call (a relist page: one call where each object
   * took one). Whether each owed a reconcile, in order.
   */
  async foldMany(items: readonly FoldItem[], epoch: number, opts: FoldOptions = {}): Promise<boolean[]> {
    const owed: boolean[] = [];
    for (let i = 0; i < items.length; i += FOLD_BATCH) {
      const calls = items.slice(i, i + FOLD_BATCH).map((item) => this.#foldCall(item, epoch, opts));
      const out = (await runScript(
        this.#client,
        FOLD_MANY,
        calls.flatMap((c) => c.keys),
        [String(calls.length), ...calls.flatMap((c) => c.argv)],
      )) as number[];
      for (const n of out) owed.push(n === 1);
    }
    return owed;
  }

  /** One object's fold: its script keys and arguments, and how to record its request. */
  #foldCall(item: FoldItem, epoch: number, opts: FoldOptions): FoldCall {
    const k = this.keys(item.key);
    let field: string;
    let payload: string;
    let inputs: string;
    if (item.kind === 'pod') {
      const pod = item.object as ProjectedPod;
      ({ fields: payload, inputs } = encodePod(pod));
      field = pod.metadata.name ?? '';
    } else {
      const trimmed = trimPodSet(item.object as ProjectedPodSet);
      payload = JSON.stringify(trimmed);
      inputs = podSetInputs(trimmed.metadata);
      field = '@ps';
    }
    const digest = inputsDigest(inputs);
    return {
      keys:
        item.kind === 'pod'
          ? [k.pods, k.expect, this.indexKey, k.requested, k.podset]
          : [k.podset, k.expect, this.indexKey, k.requested, k.pods],
      argv: [
        item.kind,
        item.type,
        field,
        String(epoch),
        item.object.metadata.resourceVersion ?? '',
        digest,
        payload,
        item.key,
        opts.requestedAnyway === true ? '1' : '0',
        String(Date.now()),
        String(this.#tombstoneTtlMs),
      ],
      requested: async () => {
        if (item.type === 'DELETED') await this.#client.hdel(k.requested, field);
        else await this.#client.hset(k.requested, field, digest);
      },
    };
  }

  async #fold(call: FoldCall): Promise<Fold> {
    const owed = (await runScript(this.#client, FOLD, call.keys, call.argv)) === 1;
    return { owed, requested: call.requested };
  }

  /**
   * A worker's own write of the PodSet (status, finalizer), folded at once: the next reconcile of the key
   * writes against this resourceVersion instead of meeting a 409 while the watch event is on its way.
   */
  async wrote(key: string, podset: ProjectedPodSet): Promise<void> {
    await this.foldPodSet(key, 'MODIFIED', podset, 0);
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
    return Number(
      await runScript(this.#client, NEXT_EPOCH, [`${this.base}:epoch:${stream}`], [String(after)]),
    );
  }

  /** The epoch folds of `stream` carry now (0 before its first relist). */
  async epoch(stream: string): Promise<number> {
    return Number((await this.#client.get(`${this.base}:epoch:${stream}`)) ?? 0);
  }

  /**
   * After a complete relist at `epoch`: removes the entries it did not see (in `namespace`, or all of
   * them) — objects deleted while nobody watched. Returns how many went.
   */
  async sweep(kind: 'pod' | 'podset', namespace: string | undefined, epoch: number): Promise<number> {
    let removed = 0;
    for (const key of await this.#client.smembers(this.indexKey)) {
      if (namespace !== undefined && !key.startsWith(`${namespace}/`)) continue;
      const k = this.keys(key);
      removed += Number(
        await runScript(
          this.#client,
          SWEEP,
          [kind === 'pod' ? k.pods : k.podset, k.requested, k.expect],
          [kind, String(epoch)],
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
    return Number(
      await runScript(
        this.#client,
        EXPECT,
        [k.pods, k.expect],
        [String(Date.now()), String(ttlMs), what === 'create' ? 'c' : 'd', ...names],
      ),
    );
  }

  /** The key's state in one round trip; undefined while the projection is not complete. */
  async read(key: string): Promise<ProjectedState | undefined> {
    const k = this.keys(key);
    const out = (await runScript(
      this.#client,
      READ,
      [k.podset, k.pods, k.expect, this.readyKey],
      [String(Date.now())],
    )) as [number, string, ...string[]];
    if (out[0] !== 1) return undefined;
    const rest = out.slice(2) as string[];
    const split = rest.indexOf('');
    const pods: ProjectedPod[] = [];
    for (let i = 0; i < split; i += 2) {
      const entry = rest[i + 1]!;
      const rvEnd = nthTab(entry, 2);
      pods.push(decodePod(rest[i]!, key, entry.slice(rvEnd + 1), entry.slice(nthTab(entry, 1) + 1, rvEnd)));
    }
    return {
      podset:
        out[1] === '' ? undefined : (JSON.parse(out[1].slice(nthTab(out[1], 2) + 1)) as ProjectedPodSet),
      pods,
      pending: rest.slice(split + 1),
    };
  }
}

function nthTab(s: string, n: number): number {
  let i = -1;
  for (let k = 0; k < n; k++) i = s.indexOf('\t', i + 1);
  return i;
}
