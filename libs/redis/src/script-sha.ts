// ioredis sends a defined script (BullMQ's commands, our merge) as EVAL with its whole text the first time
// on each connection, and again after a NOSCRIPT answer. The apps' Redis users may not EVAL: an arbitrary
// script could keep Redis busy for everyone or fill its memory. They run only what the script loader put
// in Redis's cache, by EVALSHA. So a client made here sends every defined script as EVALSHA; only a
// script Redis answered NOSCRIPT for is let through as EVAL on ioredis's resend: allowed to a user with
// every right (the single-password set-up heals itself as before), refused with NOPERM to the apps'
// users until the loader has loaded it again (after a Redis restart emptied the cache).
// Inside MULTI a NOSCRIPT comes only at EXEC, after the commands before it ran: a transaction would be
// half done. So a client that may EVAL (`evalInTransactions`: the `default` user) sends a transaction's
// scripts as ioredis does (the text on a connection's first use), all or nothing; one that may not relies
// on the loader having cached them.
import { Command } from 'ioredis';
import type { RedisClient } from './script.ts';

/** What ioredis's Command has that this needs (its fields are public but untyped in its API). */
interface SentCommand {
  name: string;
  args: unknown[];
  reject?: (err: Error) => void;
  /** Set by ioredis on a command queued between MULTI and EXEC. */
  inTransaction?: boolean;
  toWritable(socket: unknown): unknown;
}

export interface ScriptsByShaOptions {
  /** EVALSHA_RO/EVAL_RO: Redis refuses any write a script tries. */
  readOnly?: boolean;
  /** Scripts in a transaction go as ioredis sends them (EVAL first): for a user that may EVAL. */
  evalInTransactions?: boolean;
}

type Send = (command: SentCommand, ...rest: unknown[]) => unknown;

const READ_ONLY_OF: Record<string, string> = { eval: 'eval_ro', evalsha: 'evalsha_ro' };

/**
 * A plain command's serializer. A defined script's command class overrides it to send EVAL with the text on
 * a connection's first use; a command given this one as its own is written as it stands (EVALSHA <sha>).
 */
const writeAsMade = Command.prototype.toWritable as SentCommand['toWritable'];

/**
 * The read-only variant of whatever name the script's class writes (EVAL on a resend after NOSCRIPT). An
 * accessor on the command: only read-only clients pay for it, and only on such resends and transactions.
 */
function readOnlyName(command: SentCommand): void {
  let name = command.name;
  Object.defineProperty(command, 'name', {
    configurable: true,
    enumerable: true,
    get: () => READ_ONLY_OF[name] ?? name,
    set: (value: string) => {
      name = value;
    },
  });
}

/**
 * Makes `client` (and its duplicates, which BullMQ makes for its blocking connection) send scripts by
 * EVALSHA; with `readOnly`, as EVALSHA_RO/EVAL_RO: Redis then refuses any write a script tries, and a user
 * with read-only key permissions may run them.
 */
export function sendScriptsBySha<C extends RedisClient>(client: C, opts: ScriptsByShaOptions = {}): C {
  const readOnly = opts.readOnly === true;
  const evalInTransactions = opts.evalInTransactions === true;
  const send = client.sendCommand.bind(client) as unknown as Send;
  // Shas Redis answered NOSCRIPT for: ioredis's resend of each may go as EVAL, once.
  const mayEval = new Set<string>();
  (client as unknown as { sendCommand: Send }).sendCommand = (command, ...rest) => {
    // A defined script's command is made as EVALSHA <sha> of a class of its own, which may rename it when
    // it is written to a socket; a plain EVALSHA (runScript's) is sent as made, and left alone: the
    // watcher sends one per batch of events. Plain property writes only: an accessor or a defined index
    // on every command made each script call cost about twice the client CPU of plain ioredis.
    if (
      command.name === 'evalsha' &&
      command.constructor !== Command &&
      typeof command.args[0] === 'string'
    ) {
      const sha = command.args[0];
      if (mayEval.delete(sha)) {
        // ioredis's resend after NOSCRIPT: its class writes EVAL with the text on a connection it has not
        // sent the script on. Pinned commands never tell it what they sent, so it is shown a connection
        // of its own each time: the resend goes as EVAL.
        const classWrite = command.toWritable;
        command.toWritable = () => classWrite.call(command, {});
        if (readOnly) readOnlyName(command);
      } else if (evalInTransactions && command.inTransaction === true) {
        if (readOnly) readOnlyName(command);
      } else {
        // Its own serializer is the plain one: the class's switch to EVAL never runs, the sha stays.
        command.name = readOnly ? 'evalsha_ro' : 'evalsha';
        command.toWritable = writeAsMade;
        const reject = command.reject;
        if (reject !== undefined) {
          command.reject = (err: Error) => {
            if (err.message.includes('NOSCRIPT')) mayEval.add(sha);
            reject.call(command, err);
          };
        }
      }
    } else if (readOnly && (command.name === 'eval' || command.name === 'evalsha')) {
      command.name = READ_ONLY_OF[command.name]!;
    }
    return send(command, ...rest);
  };
  const duplicate = client.duplicate.bind(client) as (...args: unknown[]) => C;
  (client as unknown as { duplicate: (...args: unknown[]) => C }).duplicate = (...args) =>
    sendScriptsBySha(duplicate(...args), opts);
  return client;
}
