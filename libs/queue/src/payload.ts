// The job payload: a versioned, validated record of "reconcile this key", merged across requests.
import { parseKey } from '@podset/reconcile';
import { rvNewer } from '@podset/redis';

/** Where a request came from: a live watch event, or a relist/resync (bulk). */
export type RequestSource = 'live' | 'bulk';

/** Payload schema version 1. Unknown versions and malformed payloads are rejected by the worker. */
export interface ReconcileRequest {
  readonly v: 1;
  /** "namespace/name" of the PodSet. */
  readonly key: string;
  /** 'live' if any merged request was live. */
  readonly source: RequestSource;
  /** Short human reasons of the merged requests (most recent last, at most MAX_REASONS). */
  readonly reasons?: readonly string[];
  /** Largest resourceVersion seen in the merged requests (for a NotOlderThan read). */
  readonly rv?: string;
  /** Epoch ms of the earliest merged request (event → reconcile-start latency). */
  readonly firstRequestedAt: number;
  /** Epoch ms at which the earliest merged request wanted the reconcile to run (request time + delay). */
  readonly dueAt: number;
  /**
   * W3C traceparents of the watch events the merged requests came from (tracing on only): the earliest
   * first, at most MAX_TRACEPARENTS. The reconcile's span is a child of the first and links to each.
   */
  readonly traceparents?: readonly string[];
}

export const MAX_REASONS = 10;
export const MAX_REASON_LENGTH = 200;
/** Longest resourceVersion accepted (etcd's are decimal uint64: 20 digits; opaque ones stay far below). */
export const MAX_RV_LENGTH = 256;

/** Events a reconcile links to at most; later ones of the same merged job are not linked. */
export const MAX_TRACEPARENTS = 16;
const TRACEPARENT = /^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

/**
 * The well-formed traceparents of an untrusted value, at most MAX_TRACEPARENTS, duplicates dropped;
 * undefined when none. Lenient on purpose: a bad trace context never fails a reconcile, it is ignored.
 */
export function cleanTraceparents(x: unknown): string[] | undefined {
  if (!Array.isArray(x)) return undefined;
  const out: string[] = [];
  for (const t of x) {
    if (out.length >= MAX_TRACEPARENTS) break;
    if (typeof t === 'string' && TRACEPARENT.test(t) && !out.includes(t)) out.push(t);
  }
  return out.length > 0 ? out : undefined;
}

const NAMESPACE = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const NAME = /^[a-z0-9]([-.a-z0-9]*[a-z0-9])?$/;

/** Why a key is not a valid "namespace/name", or undefined when it is. */
export function keyProblem(key: unknown): string | undefined {
  if (typeof key !== 'string') return 'key must be a string "namespace/name"';
  const parsed = parseKey(key);
  if (parsed === undefined) return `key ${JSON.stringify(key)} must be "namespace/name"`;
  const { namespace: ns, name } = parsed;
  if (ns.length > 63 || !NAMESPACE.test(ns)) return `key ${JSON.stringify(key)}: invalid namespace`;
  if (name.length > 253 || !NAME.test(name)) return `key ${JSON.stringify(key)}: invalid name`;
  return undefined;
}

/** Thrown by parseReconcileRequest; the worker turns it into an UnrecoverableError. */
export class MalformedRequestError extends Error {
  override name = 'MalformedRequestError';
}

function isRecord(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

function isEpochMs(x: unknown): x is number {
  return typeof x === 'number' && Number.isSafeInteger(x) && x >= 0;
}

/** Validate an untrusted job payload. Throws MalformedRequestError with the reason. */
export function parseReconcileRequest(data: unknown): ReconcileRequest {
  const bad = (why: string): never => {
    throw new MalformedRequestError(`malformed reconcile request: ${why}`);
  };
  if (!isRecord(data)) return bad('payload is not an object');
  if (data.v !== 1) return bad(`unsupported version v=${JSON.stringify(data.v)} (expected 1)`);
  const problem = keyProblem(data.key);
  if (problem !== undefined) return bad(problem);
  if (data.source !== 'live' && data.source !== 'bulk') return bad('source must be "live" or "bulk"');
  if (!isEpochMs(data.firstRequestedAt)) return bad('firstRequestedAt must be epoch milliseconds');
  if (!isEpochMs(data.dueAt)) return bad('dueAt must be epoch milliseconds');
  let reasons: string[] | undefined;
  // Redis's cjson encodes an empty array as {}: accept that as "no reasons".
  if (data.reasons !== undefined && !(isRecord(data.reasons) && Object.keys(data.reasons).length === 0)) {
    if (!Array.isArray(data.reasons) || !data.reasons.every((r) => typeof r === 'string')) {
      return bad('reasons must be an array of strings');
    }
    // Producers keep at most MAX_REASONS reasons of at most MAX_REASON_LENGTH characters: anything
    // bigger did not come from them (an oversized payload is refused, not carried into every merge).
    if (data.reasons.length > MAX_REASONS) {
      return bad(`reasons has ${data.reasons.length} entries (oversized: at most ${MAX_REASONS})`);
    }
    const long = (data.reasons as string[]).findIndex((r) => r.length > MAX_REASON_LENGTH);
    if (long >= 0) {
      return bad(`reasons[${long}] is too long (oversized: at most ${MAX_REASON_LENGTH} characters)`);
    }
    reasons = data.reasons as string[];
  }
  if (data.rv !== undefined && (typeof data.rv !== 'string' || data.rv === '')) {
    return bad('rv must be a non-empty string');
  }
  if (typeof data.rv === 'string' && data.rv.length > MAX_RV_LENGTH) {
    return bad(`rv is ${data.rv.length} characters (oversized: at most ${MAX_RV_LENGTH})`);
  }
  const traceparents = data.traceparents === undefined ? undefined : cleanTraceparents(data.traceparents);
  const out: ReconcileRequest = {
    v: 1,
    key: data.key as string,
    source: data.source,
    firstRequestedAt: data.firstRequestedAt,
    dueAt: data.dueAt,
    ...(reasons !== undefined && reasons.length > 0 ? { reasons } : {}),
    ...(typeof data.rv === 'string' ? { rv: data.rv } : {}),
    ...(traceparents !== undefined ? { traceparents } : {}),
  };
  return out;
}

/**
 * Merge a new request into an existing payload (the same rules the Lua merge script applies in Redis;
 * this copy documents them and is what the unit tests pin down).
 */
export function mergeRequests(existing: ReconcileRequest, incoming: ReconcileRequest): ReconcileRequest {
  const reasons = [...(existing.reasons ?? [])];
  for (const r of incoming.reasons ?? []) if (!reasons.includes(r)) reasons.push(r);
  const trimmed = reasons.slice(-MAX_REASONS);
  let rv = existing.rv;
  if (incoming.rv !== undefined && rvNewer(incoming.rv, rv)) rv = incoming.rv;
  // The earliest kept: the first event is the reconcile's parent.
  const traceparents = cleanTraceparents([
    ...(existing.traceparents ?? []),
    ...(incoming.traceparents ?? []),
  ]);
  return {
    v: 1,
    key: existing.key,
    source: existing.source === 'live' || incoming.source === 'live' ? 'live' : 'bulk',
    firstRequestedAt: Math.min(existing.firstRequestedAt, incoming.firstRequestedAt),
    dueAt: Math.min(existing.dueAt, incoming.dueAt),
    ...(trimmed.length > 0 ? { reasons: trimmed } : {}),
    ...(rv !== undefined ? { rv } : {}),
    ...(traceparents !== undefined ? { traceparents } : {}),
  };
}
