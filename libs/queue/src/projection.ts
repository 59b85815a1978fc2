// The projection: what a reconcile reads of a PodSet and its pods, folded from the watch events by the
// watcher and kept in Redis beside the queue (same hash tag), so that workers read one key's state in
// one round trip instead of a GET and a LIST against the API server.
//
// Per PodSet key `ns/name`:
//   <base>:ps:<key>    the PodSet as the planner reads it (JSON), with the epoch and RV it was folded at
//   <base>:pods:<key>  hash pod name → epoch, RV, plan inputs and the pod as the planner reads it
//   <base>:exp:<key>   hash pod name → expiry (ms): creates and deletes a worker made and has not seen yet
// and <base>:ready, set once a complete relist has been folded (until then workers read the API).
//
// A fold answers whether the event changed anything a plan reads (phase, readiness, deletion, owner of
// a pod; uid, generation, deletion, finalizers, labels of a PodSet): an event that did not requests no
// reconcile. Folds are ordered by resourceVersion per object, so a replayed older event never
// overwrites a newer state. After a relist, entries the relist did not see (objects deleted while
// nobody watched) are swept by their epoch.
import type { RedisClient } from './connection.ts';
import { luaScript, runScript } from './lua.ts';
import { RV_NEWER_LUA } from './resource-version.ts';

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
  ownerReferences?: {
    apiVersion?: string;
    kind?: string;
    name?: string;
    uid?: string;
    controller?: boolean;
  }[];
}

/** A pod as the planner reads it. */
export interface ProjectedPod {
  metadata: ProjectedMeta;
  spec?: { nodeName?: string };
  status?: { phase?: string; conditions?: { type?: string; status?: string }[] };
}

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

const ready = (pod: ProjectedPod) =>
  pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** The controller owner's uid (the one ownership rule: the controller reference). */
function controllerUid(meta: ProjectedMeta): string {
  return meta.ownerReferences?.find((r) => r.controller === true)?.uid ?? '';
}

/** The pod as kept: only what the planner reads. */
function trimPod(pod: ProjectedPod): ProjectedPod {
  const m = pod.metadata;
  const owner = m.ownerReferences?.find((r) => r.controller === true);
  return {
    metadata: {
      ...(m.name !== undefined ? { name: m.name } : {}),
      ...(m.namespace !== undefined ? { namespace: m.namespace } : {}),
      ...(m.uid !== undefined ? { uid: m.uid } : {}),
      ...(m.creationTimestamp !== undefined ? { creationTimestamp: m.creationTimestamp } : {}),
      ...(m.deletionTimestamp !== undefined ? { deletionTimestamp: m.deletionTimestamp } : {}),
      ...(owner !== undefined ? { ownerReferences: [owner] } : {}),
    },
    ...(pod.spec?.nodeName ? { spec: { nodeName: pod.spec.nodeName } } : {}),
    status: {
      ...(pod.status?.phase !== undefined ? { phase: pod.status.phase } : {}),
      conditions: [{ type: 'Ready', status: ready(pod) ? 'True' : 'False' }],
    },
  };
}

/** What of a pod can change a plan: phase, readiness, deletion and owner (and which pod of that name). */
export function podInputs(pod: ProjectedPod): string {
  return JSON.stringify([
    pod.status?.phase ?? '',
    ready(pod),
    pod.metadata.deletionTimestamp ?? '',
    controllerUid(pod.metadata),
    pod.metadata.uid ?? '',
  ]);
}

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

/** The PodSet as kept: metadata the worker writes against (RV, finalizers), spec and status. */
function trimPodSet(podset: ProjectedPodSet): ProjectedPodSet {
  const { managedFields: _managed, ...metadata } = podset.metadata as ProjectedMeta & {
    managedFields?: unknown;
  };
  return { metadata, spec: podset.spec, ...(podset.status !== undefined ? { status: podset.status } : {}) };
}

// A stored entry: epoch \t rv \t inputs \t json. Inputs and JSON never hold a raw tab (JSON escapes it).
// KEYS[1] the hash (pods) or string (PodSet) key, KEYS[2] the expectations hash (pods; unused for PodSets),
// KEYS[3] the index of keys with entries (for the sweep), KEYS[4] the inputs last *requested* per object.
// ARGV: kind ('pod'|'podset'), type, field (pod name; '@ps' for the PodSet), epoch, rv, inputs, json, the
// PodSet key, and '1' when the fold's request is made anyway (a relist requests every key).
// Returns 1 when a reconcile is owed: the inputs differ from those last requested (or the object went).
// The answer is against what was *requested*, not what was folded, because a fold and its request are
// two steps: when the request fails, the watch re-delivers the event, and its fold must ask again.
const FOLD = luaScript(`
${RV_NEWER_LUA}
local kind, typ, field, epoch, rv, inputs, json = ARGV[1], ARGV[2], ARGV[3], ARGV[4], ARGV[5], ARGV[6], ARGV[7]
local requestedAnyway = ARGV[9] == '1'
local old
if kind == 'pod' then old = redis.call('HGET', KEYS[1], field) else old = redis.call('GET', KEYS[1]) end
local oldEpoch, oldRv
if old then oldEpoch, oldRv = string.match(old, '^([^\\t]*)\\t([^\\t]*)\\t') end
-- The entry keeps the newest epoch that saw the object: a relist that lists an older version than one
-- already folded (a worker's own write, folded at once) still counts as having seen it.
if oldEpoch and tonumber(oldEpoch) > tonumber(epoch) then epoch = oldEpoch end
if oldRv and oldRv ~= '' and rv ~= '' and not rvNewer(rv, oldRv) and oldRv ~= rv then
  if epoch ~= oldEpoch then
    local rest = string.sub(old, #oldEpoch + 1)
    if kind == 'pod' then redis.call('HSET', KEYS[1], field, epoch .. rest) else redis.call('SET', KEYS[1], epoch .. rest) end
  end
  return 0
end
local requested = redis.call('HGET', KEYS[4], field)
if typ == 'DELETED' then
  if kind == 'pod' then
    redis.call('HDEL', KEYS[1], field)
    redis.call('HDEL', KEYS[2], field)
  else
    redis.call('DEL', KEYS[1])
  end
  if requestedAnyway then redis.call('HDEL', KEYS[4], field) return 0 end
  if requested then return 1 end
  return 0
end
local value = epoch .. '\\t' .. rv .. '\\t' .. inputs .. '\\t' .. json
redis.call('SADD', KEYS[3], ARGV[8])
if kind == 'pod' then
  redis.call('HSET', KEYS[1], field, value)
  -- A create shows as the pod; a delete as its deletionTimestamp (or its DELETED event, above).
  local exp = redis.call('HGET', KEYS[2], field)
  if exp then
    local what = string.sub(exp, 1, 1)
    if what == 'c' or string.find(inputs, '^%["[^"]*",[a-z]+,"[^"]') then redis.call('HDEL', KEYS[2], field) end
  end
else
  redis.call('SET', KEYS[1], value)
end
if requestedAnyway then redis.call('HSET', KEYS[4], field, inputs) return 0 end
if requested == inputs then return 0 end
return 1
`);

// Expectations: KEYS[1] pods hash, KEYS[2] expectations hash; ARGV: now, ttlMs, kind ('c'|'d'), names...
// A name already shown as the worker expects it (created: present; deleted: absent or deleting) is not
// recorded: its event came first and will not come again.
const EXPECT = luaScript(`
local now, ttl, what = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local n = 0
for i = 4, #ARGV do
  local name = ARGV[i]
  local cur = redis.call('HGET', KEYS[1], name)
  local seen
  if what == 'c' then seen = cur ~= false
  else seen = (cur == false) or (string.find(cur, '^[^\\t]*\\t[^\\t]*\\t%["[^"]*",[a-z]+,"[^"]') ~= nil) end
  if not seen then
    redis.call('HSET', KEYS[2], name, what .. (now + ttl))
    n = n + 1
  end
end
if n > 0 then redis.call('PEXPIRE', KEYS[2], ttl) end
return n
`);

// Read: KEYS[1] PodSet, KEYS[2] pods, KEYS[3] expectations, KEYS[4] ready marker; ARGV[1] now.
// Expired expectations are dropped. Returns {ready, podset, pods..., '', pending names...}.
const READ = luaScript(`
local now = tonumber(ARGV[1])
local out = { redis.call('EXISTS', KEYS[4]), redis.call('GET', KEYS[1]) or '' }
local pods = redis.call('HVALS', KEYS[2])
for _, v in ipairs(pods) do out[#out + 1] = v end
out[#out + 1] = ''
local exp = redis.call('HGETALL', KEYS[3])
for i = 1, #exp, 2 do
  if tonumber(string.sub(exp[i + 1], 2)) <= now then redis.call('HDEL', KEYS[3], exp[i])
  else out[#out + 1] = exp[i] end
end
return out
`);

// Sweep: KEYS[1] a pods hash or a PodSet key, KEYS[2] the requested inputs; ARGV[1] kind, ARGV[2] the
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
    n = n + 1
  end
end
return n
`);

export interface ProjectionOptions {
  client: RedisClient;
  /** The queue's prefix and name: the projection lives beside the queue (same Redis Cluster slot). */
  prefix: string;
  queueName: string;
}

export class Projection {
  readonly #client: RedisClient;
  readonly base: string;

  constructor(opts: ProjectionOptions) {
    this.#client = opts.client;
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
    const trimmed = trimPod(pod);
    return this.#fold(
      key,
      'pod',
      pod.metadata.name ?? '',
      type,
      trimmed,
      podInputs(trimmed),
      epoch,
      pod,
      opts,
    );
  }

  /** Folds a PodSet event (a status-only change owes no reconcile). */
  async foldPodSet(
    key: string,
    type: FoldType,
    podset: ProjectedPodSet,
    epoch: number,
    opts: FoldOptions = {},
  ): Promise<Fold> {
    const trimmed = trimPodSet(podset);
    return this.#fold(
      key,
      'podset',
      '@ps',
      type,
      trimmed,
      podSetInputs(trimmed.metadata),
      epoch,
      podset,
      opts,
    );
  }

  async #fold(
    key: string,
    kind: 'pod' | 'podset',
    field: string,
    type: FoldType,
    trimmed: ProjectedPod | ProjectedPodSet,
    inputs: string,
    epoch: number,
    obj: ProjectedPod | ProjectedPodSet,
    opts: FoldOptions,
  ): Promise<Fold> {
    const k = this.keys(key);
    const owed =
      (await runScript(
        this.#client,
        FOLD,
        [kind === 'pod' ? k.pods : k.podset, k.expect, this.indexKey, k.requested],
        [
          kind,
          type,
          field,
          String(epoch),
          obj.metadata.resourceVersion ?? '',
          inputs,
          JSON.stringify(trimmed),
          key,
          opts.requestedAnyway === true ? '1' : '0',
        ],
      )) === 1;
    return {
      owed,
      requested: async () => {
        if (type === 'DELETED') await this.#client.hdel(k.requested, field);
        else await this.#client.hset(k.requested, field, inputs);
      },
    };
  }

  /**
   * A worker's own write of the PodSet (status, finalizer), folded at once: the next reconcile of the key
   * writes against this resourceVersion instead of meeting a 409 while the watch event is on its way.
   */
  async wrote(key: string, podset: ProjectedPodSet): Promise<void> {
    await this.foldPodSet(key, 'MODIFIED', podset, 0);
  }

  /**
   * A deleted PodSet's whole state, once its pods are gone (the worker's cleanup before the finalizer
   * goes): nothing of it outlives it, and the sweep no longer visits its key. Returns the keys removed.
   */
  async forget(key: string): Promise<number> {
    const k = this.keys(key);
    const [removed] = await Promise.all([
      this.#client.del(k.podset, k.pods, k.expect, k.requested),
      this.#client.srem(this.indexKey, key),
    ]);
    return removed;
  }

  /** A new epoch for a relist of `stream`: everything it folds carries it. */
  async nextEpoch(stream: string): Promise<number> {
    return await this.#client.incr(`${this.base}:epoch:${stream}`);
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
          [kind === 'pod' ? k.pods : k.podset, k.requested],
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
    const parse = <T>(v: string): T => JSON.parse(v.slice(nthTab(v, 3) + 1)) as T;
    return {
      podset: out[1] === '' ? undefined : parse<ProjectedPodSet>(out[1]),
      pods: rest.slice(0, split).map((v) => parse<ProjectedPod>(v)),
      pending: rest.slice(split + 1),
    };
  }
}

function nthTab(s: string, n: number): number {
  let i = -1;
  for (let k = 0; k < n; k++) i = s.indexOf('\t', i + 1);
  return i;
}
