// The projection's reader, the worker's side (projection.ts says what the projection is): a key's state in
// one round trip, every entry's integrity tag checked; the creates and deletes the worker made and waits
// to see (expectations); and a deleted PodSet's state forgotten.
import { parseKey } from '@podset/reconcile';
import { luaScriptOf, runScript } from '@podset/redis';
import { decodePod, ENTRY_LUA, inputsDigest, podSetInputs, type ProjectedPod } from './entry.ts';
import { VerifiedEntries } from './verified-entries.ts';
import { ProjectionClient, type ProjectedPodSet, type ProjectedState, type Refusal } from './projection.ts';

/**
 * How long an expectation holds at most (the ReplicaSet controller's 5 minutes). Its Lua twin (entry.lua)
 * takes one that expires further ahead than this plus EXPECTATION_CLOCK_SKEW_MS as out of bounds.
 */
export const EXPECTATION_TTL_MS = 5 * 60_000;
/** How far the workers' clocks may differ (the twin of entry.lua's). */
export const EXPECTATION_CLOCK_SKEW_MS = 60_000;

// The scripts (read once, when this module loads): the rules they use, then their body. What each takes
// (KEYS, ARGV) and answers is written at the top of its body's file.
const lua = (name: string) => new URL(`./lua/${name}.lua`, import.meta.url);
const EXPECT = luaScriptOf(lua('expect'), [ENTRY_LUA]);
const READ = luaScriptOf(lua('read'), [ENTRY_LUA]);
const DROP = luaScriptOf(lua('drop'));

/** A pass's creates that need no follow-up: its first record ('start'), or a later one ('keep'). */
export type QuietNote = 'start' | 'keep';

/** Pending units at most (above any pass's creates: the planner caps them); more was not a worker's. */
export const PENDING_CREATES_MAX = 1_000_000;
/**
 * How long units hold after the reservation, or after a record that leaves some (the twin of entry.lua's
 * PENDING_TTL_MS): they are needed only while a pass sends its creates, and units a dead worker left hold
 * back its key's requests for this long at most.
 */
export const PENDING_CREATES_TTL_MS = 60_000;

/**
 * The units a stored pending-creates value holds at `now`: `n<expiry>\t<count>`, unexpired, expiring no
 * further ahead than a worker writes, at most PENDING_CREATES_MAX; else 0. The twin of entry.lua's
 * pendingCount (one case table tests both).
 */
export function pendingCreates(value: string | undefined, now: number): number {
  if (value === undefined || value.length > 40) return 0;
  const m = /^n(\d+)\t(\d+)$/.exec(value);
  if (m === null) return 0;
  const expiry = Number(m[1]);
  const count = Number(m[2]);
  if (expiry <= now || expiry > now + EXPECTATION_TTL_MS + EXPECTATION_CLOCK_SKEW_MS) return 0;
  return count > PENDING_CREATES_MAX ? 0 : count;
}

/** The worker's side of the projection: it reads, records expectations and forgets a deleted PodSet. */
export class ProjectionReader extends ProjectionClient {
  /** Entries already checked, so that an unchanged one is not checked (nor decoded) at every read. */
  readonly #verified = new VerifiedEntries<object>();

  /**
   * A deleted PodSet's pods, expectations and requests, once its pods are gone (the worker's cleanup
   * before its finalizer goes). The PodSet's own entry stays: if removing the finalizer fails, the retry
   * must still find the PodSet being deleted, not "gone". Its DELETED event turns it into a tombstone that
   * expires, and takes its name out of the sweep's index. Returns the keys removed.
   */
  async forget(key: string): Promise<number> {
    const k = this.keys(key);
    this.#verified.forget(key);
    return await this.client.del(k.pods, k.expect, k.requested);
  }

  /**
   * A worker's own write of its PodSet's plan inputs (its finalizer) about to be sent, planned from in the
   * pass that makes it: recorded as requested, so that its watch event requests no pass of its own. Any
   * other change of them still differs and requests (one folded before this is requested already; a failed
   * request is re-delivered and compared again); a write that fails leaves the pass to plan again or be
   * retried.
   */
  async ownInputs(key: string, metadata: Parameters<typeof podSetInputs>[0]): Promise<void> {
    await this.client.hset(this.keys(key).requested, '@ps', inputsDigest(podSetInputs(metadata)));
  }

  /**
   * Drops the key's expectations: the API no longer has the PodSet they were made for (404, or another
   * UID), so nothing must wait for them. Returns the keys removed.
   */
  async forgetExpectations(key: string): Promise<number> {
    return await this.client.del(this.keys(key).expect);
  }

  /**
   * Removes refused pod entries (their tag does not check), each only while it still holds the text that
   * was refused: the fold never replaces an entry whose resourceVersion looks newer, so a forged one with
   * a huge resourceVersion would otherwise stay, and keep its key off the projection, for good. Once it is
   * gone the pod's next event is folded afresh. Returns how many were removed.
   */
  async dropRefused(key: string, entries: readonly { field: string; stored: string }[]): Promise<number> {
    if (entries.length === 0) return 0;
    const args = entries.flatMap((e) => [e.field, e.stored]);
    return Number(await runScript(this.client, DROP, [this.keys(key).pods], args));
  }

  /**
   * Records pods a worker created ('create') or deleted ('delete') until the projection shows them. `quiet`
   * (creates only): the pass that made them needs no follow-up once they all show as made, so the event that
   * meets the last of them requests nothing — 'start' notes it (the pass's first record), 'keep' (a later
   * batch of the same pass) keeps the note only if no fold dropped it since; any other record drops it.
   */
  async expect(
    key: string,
    what: 'create' | 'delete',
    names: readonly string[],
    opts: { ttlMs?: number; quiet?: QuietNote } = {},
  ): Promise<number> {
    const { ttlMs = EXPECTATION_TTL_MS, quiet } = opts;
    if (names.length === 0) return 0;
    const out = await this.#expect(key, what, names, { ttlMs, quiet, reserve: 0, unmade: undefined });
    return out.recorded;
  }

  /**
   * Before a pass's creates are sent: `count` units of pending creates for the key, so that a create's
   * ADDED folded before its name is recorded is met as awaited (entry.lua). `quiet`: the pass may need no
   * follow-up (noted as a first record's 'start'; its records then 'keep' it, or drop it). Its records
   * release the units (recordCreates). Units never hold a read (only names do): units left by a worker
   * that died before releasing them only take ADDEDs' requests until they expire, a relist drops them, and
   * the queue retries its job.
   */
  async reserveCreates(
    key: string,
    count: number,
    opts: { ttlMs?: number; quiet?: boolean } = {},
  ): Promise<void> {
    if (count <= 0) return;
    await this.#expect(key, 'create', [], {
      ttlMs: opts.ttlMs ?? EXPECTATION_TTL_MS,
      quiet: opts.quiet === true ? 'start' : undefined,
      reserve: Math.trunc(count),
      unmade: undefined,
    });
  }

  /**
   * A reserving pass's record of creates (expect's, `quiet` as there): it releases, in the same call, the
   * units of the names it records (a name already shown took its own) and of `unmade` creates (not made:
   * failed, cancelled, left to the next pass). `overReleased`: fewer units were left than released — an ADDED
   * not of this pass took one (or they expired, or a relist dropped them): the note is dropped, and a pass
   * whose events all came already must ask for its next pass itself.
   */
  async recordCreates(
    key: string,
    names: readonly string[],
    opts: { ttlMs?: number; quiet?: QuietNote; unmade: number },
  ): Promise<{ recorded: number; overReleased: boolean }> {
    const { ttlMs = EXPECTATION_TTL_MS, quiet, unmade } = opts;
    return await this.#expect(key, 'create', names, {
      ttlMs,
      quiet,
      reserve: 0,
      unmade: Math.max(0, Math.trunc(unmade)),
    });
  }

  async #expect(
    key: string,
    what: 'create' | 'delete',
    names: readonly string[],
    opts: { ttlMs: number; quiet: QuietNote | undefined; reserve: number; unmade: number | undefined },
  ): Promise<{ recorded: number; overReleased: boolean }> {
    const { ttlMs, quiet, reserve, unmade } = opts;
    const k = this.keys(key);
    // The pods stream's epoch now (the watcher's stream of all namespaces, or of the key's one): a relist
    // begun after this and not listing a created pod ends the wait (see sweep).
    const ns = parseKey(key)?.namespace ?? '';
    const [recorded, unboundedEpochs, over] = (await runScript(
      this.client,
      EXPECT,
      [k.pods, k.expect],
      [
        String(this.clock.now()),
        String(Math.min(ttlMs, EXPECTATION_TTL_MS)),
        what === 'create' ? 'c' : 'd',
        this.keyspace.epoch('pods/*'),
        this.keyspace.epoch(`pods/${ns}`),
        what !== 'create' || quiet === undefined ? '0' : quiet === 'start' ? '1' : '2',
        String(reserve),
        unmade === undefined ? '' : String(unmade),
        ...names,
      ],
    )) as [number, number, number];
    if (unboundedEpochs > 0) this.outOfBounds?.({ what: 'epoch', key, count: unboundedEpochs });
    return { recorded, overReleased: over === 1 };
  }

  /** The key's state in one round trip; undefined while the projection is not complete. */
  async read(key: string): Promise<ProjectedState | undefined> {
    const k = this.keys(key);
    const out = (await runScript(
      this.client,
      READ,
      [k.pods, k.expect],
      [String(this.clock.now()), k.podset, this.readyKey],
    )) as [number, string, number, ...string[]];
    if (out[0] !== 1) return undefined;
    if (out[2] > 0) this.outOfBounds?.({ what: 'expectation', key, count: out[2] });
    const rest = out.slice(3) as string[];
    const split = rest.indexOf('');
    const refused: Refusal[] = [];
    const pods: ProjectedPod[] = [];
    const known = this.#verified.read(key);
    for (let i = 0; i < split; i += 2) {
      const name = rest[i]!;
      const pod = this.#entry('pod', key, name, rest[i + 1]!, known, (e) =>
        decodePod(name, key, e.payload, e.rv),
      );
      if (pod === undefined) refused.push({ kind: 'pod', field: name, reason: 'tag', stored: rest[i + 1]! });
      else pods.push(pod as ProjectedPod);
    }
    let podset: ProjectedPodSet | undefined;
    if (out[1] !== '') {
      const parsed = this.#entry('podset', key, '@ps', out[1], known, (e) => JSON.parse(e.payload) as object);
      if (parsed === undefined) refused.push({ kind: 'podset', field: '@ps', reason: 'tag' });
      else {
        podset = parsed as ProjectedPodSet;
        // A tag binds the entry to its key, but a PodSet is planned by its own metadata: check they agree.
        const ref = parseKey(key);
        if (podset.metadata.namespace !== ref?.namespace || podset.metadata.name !== ref?.name) {
          refused.push({ kind: 'podset', field: '@ps', reason: 'key' });
          podset = undefined;
        }
      }
    }
    known.done();
    return { podset, pods, pending: rest.slice(split + 1), refused };
  }

  /**
   * A stored entry, checked and decoded — or, when this reader checked this very entry (same key, field
   * and text from its resourceVersion on) at its key's last read, what it decoded then. Undefined when
   * `tags` are set and its tag does not check (a refused entry is never remembered).
   */
  #entry(
    kind: 'pod' | 'podset',
    key: string,
    field: string,
    entry: string,
    known: ReturnType<VerifiedEntries<object>['read']>,
    decode: (e: { rv: string; payload: string }) => object,
  ): object | undefined {
    const text = entry.slice(entry.indexOf('\t') + 1);
    const slot = `${kind}\0${field}`;
    const seen = known.lookup(slot, text);
    if (seen !== undefined) return seen;
    const e = this.#checked(kind, key, field, entry);
    return e === undefined ? undefined : known.keep(slot, text, decode(e));
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
    if (this.tags === undefined) return { rv, payload };
    const tag = entry.slice(tagStart, payloadStart - 1);
    return this.tags.verify({ kind, key, field, rv, payload }, tag) ? { rv, payload } : undefined;
  }
}
