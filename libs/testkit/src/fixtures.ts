// Test fixtures: one call in a test file (or a describe() body) starts what its tests share before they
// run and stops it after them, instead of each file writing its own before()/after() pair.
import { Redis } from 'ioredis';
import { afterTheRest, beforeHook, lateBound } from './late-bound.ts';
import { startRedis, type RedisOptions, type RedisServer } from './redis.ts';

export interface RedisFixture extends RedisServer {
  /**
   * Resolves once the server is up. At a file's top level node:test starts every before() hook the moment
   * it is registered, all at once: a hook of the file that uses the fixture awaits this first.
   */
  readonly ready: Promise<void>;
  /** A client to the server, connected on first use and disconnected after the tests. */
  readonly client: Redis;
}

/**
 * A real redis-server for the tests of this file (or describe() block): started in a before() hook,
 * stopped after the tests and after the file's own after() hooks. The handle can be kept at module level;
 * its fields are filled in before the tests run.
 */
export function useRedis(options: RedisOptions = {}): RedisFixture {
  const slot = redisSlot(
    beforeHook(async () => {
      const server = await startRedis(options);
      slot.fill(server);
    }),
  );
  afterTheRest(() => slot.close());
  return slot.handle;
}

/** A RedisFixture whose server a before() hook fills in; `close` disconnects its client and stops it. */
export function redisSlot(ready: Promise<void>): {
  handle: RedisFixture;
  fill(server: RedisServer): void;
  close(): Promise<void>;
} {
  let server: RedisServer | undefined;
  let client: Redis | undefined;
  const live = lateBound('the Redis fixture', () => server);
  const handle: RedisFixture = {
    ready,
    get port() {
      return live.port;
    },
    get url() {
      return live.url;
    },
    get password() {
      return live.password;
    },
    get process() {
      return live.process;
    },
    get pids() {
      return live.pids;
    },
    stop: (opts) => live.stop(opts),
    restart: (opts) => live.restart(opts),
    close: () => live.close(),
    client: lateBound('the Redis fixture client', () =>
      server === undefined ? undefined : (client ??= new Redis(server.url)),
    ),
  };
  return {
    handle,
    fill: (s) => void (server = s),
    close: async () => {
      client?.disconnect();
      await server?.close();
    },
  };
}
