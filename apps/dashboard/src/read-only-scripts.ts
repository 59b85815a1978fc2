// A read-only dashboard sends its scripts (BullMQ's counts and job lists, run by EVALSHA) as EVALSHA_RO
// and EVAL_RO: Redis then refuses any write a script tries, and a Redis user with read-only key
// permissions (`%R~`, SECURITY.md) may run them — plain EVALSHA needs write permission on every key it
// declares, even for a script that only reads.
import type { RedisClient } from '@podset/queue';

const READ_ONLY_OF: Record<string, string> = { eval: 'eval_ro', evalsha: 'evalsha_ro' };

interface NamedCommand {
  name: string;
}

/**
 * Makes `client` send every script read-only. ioredis names a script's command when it writes it to a
 * socket (EVAL the first time on a connection, EVALSHA after), so the name is mapped at that moment.
 */
export function readOnlyScripts(client: RedisClient): RedisClient {
  const send = client.sendCommand.bind(client) as (command: unknown, ...rest: unknown[]) => unknown;
  (client as { sendCommand: unknown }).sendCommand = (command: NamedCommand, ...rest: unknown[]) => {
    let name = command.name;
    Object.defineProperty(command, 'name', {
      configurable: true,
      enumerable: true,
      get: () => READ_ONLY_OF[name] ?? name,
      set: (value: string) => {
        name = value;
      },
    });
    return send(command, ...rest);
  };
  return client;
}
