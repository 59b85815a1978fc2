// The client a request's transaction (before-add, BullMQ's add, after-add) is built on. ioredis copies every
// script a client defines onto each pipeline or transaction it makes (three property writes a script), and
// BullMQ's connection defines all of its ~64 scripts: making one transaction there cost ~25 µs, more than a
// twentieth of the watcher's CPU when every event is a request (1,000 label changes a second). The
// transaction needs only BullMQ's add scripts and the merge script, so it is built on the queue's own client
// (the same Redis user) with just those defined on it. BullMQ's add scripts are copied from its connection:
// the same text, so the same sha the script loader cached. A BullMQ that no longer names them as this expects
// keeps the transaction on its own connection, as before.
import { createIORedisClient, type RedisClient as BullClient } from 'bullmq';
import type { RedisClient } from '@podset/redis';
import { MERGE_COMMAND } from './merge-script.ts';

/** The scripts BullMQ's add picks from (by delay, priority, parent); each defined with its version suffix. */
const ADD_SCRIPTS = new Set(['addStandardJob', 'addDelayedJob', 'addPrioritizedJob', 'addParentJob']);
/** Those a request's add may use: without any of them the transaction stays on BullMQ's connection. */
const REQUEST_ADDS = ['addStandardJob', 'addDelayedJob', 'addPrioritizedJob'] as const;

/** The merge script's command name on the client a transaction is built on. */
export const MERGE_COMMAND_NAME = 'podsetMerge';

/** A script as a client defined it (ioredis keeps these fields on its Script, untyped in its API). */
export interface DefinedScript {
  lua: string;
  numberOfKeys: number | null;
}

function definedScript(value: unknown): DefinedScript | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { lua, numberOfKeys } = value as { lua?: unknown; numberOfKeys?: unknown };
  if (typeof lua !== 'string') return undefined;
  if (numberOfKeys !== null && typeof numberOfKeys !== 'number') return undefined;
  return { lua, numberOfKeys };
}

/**
 * BullMQ's add scripts among a client's defined scripts (`scriptsSet`: name with BullMQ's version suffix →
 * script), by their full names; undefined unless each add a request may use is there exactly once.
 */
export function addScriptsOf(defined: unknown): Map<string, DefinedScript> | undefined {
  if (typeof defined !== 'object' || defined === null) return undefined;
  const found = new Map<string, DefinedScript>();
  const bases = new Map<string, number>();
  for (const [name, value] of Object.entries(defined)) {
    const base = name.split(':', 1)[0]!;
    if (!ADD_SCRIPTS.has(base) || !name.startsWith(`${base}:`)) continue;
    const script = definedScript(value);
    if (script === undefined) return undefined;
    found.set(name, script);
    bases.set(base, (bases.get(base) ?? 0) + 1);
  }
  return REQUEST_ADDS.every((b) => bases.get(b) === 1) ? found : undefined;
}

/**
 * The client to build request transactions on, with the merge script defined there: `own` (the queue's own
 * client) with BullMQ's add scripts copied from `bull` (its connection), or `bull` itself when they cannot be
 * found there.
 */
export function transactionClient(own: RedisClient, bull: BullClient): BullClient {
  const adds = addScriptsOf((bull as unknown as { scriptsSet?: unknown }).scriptsSet);
  if (adds === undefined) {
    defineMerge(bull);
    return bull;
  }
  for (const [name, script] of adds) {
    if (name in own) continue;
    own.defineCommand(name, {
      lua: script.lua,
      ...(script.numberOfKeys !== null ? { numberOfKeys: script.numberOfKeys } : {}),
    });
  }
  const client = createIORedisClient(own) as unknown as BullClient;
  defineMerge(client);
  return client;
}

function defineMerge(client: BullClient): void {
  if (MERGE_COMMAND_NAME in client) return;
  // Without numberOfKeys ioredis takes the number of keys as the first argument (mergeCommandArgs); BullMQ's
  // typing of defineCommand asks for it all the same.
  client.defineCommand(MERGE_COMMAND_NAME, MERGE_COMMAND as Parameters<BullClient['defineCommand']>[1]);
}
