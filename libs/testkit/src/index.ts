export { isAlive } from './alive.ts';
export { freePort } from './ports.ts';
export { startRedis, ping, removeWhenParentDies, type RedisServer, type RedisOptions } from './redis.ts';
export { waitFor, type WaitOptions } from './wait.ts';
export { kubectl, type KubectlOptions, type KubectlResult } from './kubectl.ts';
export { compileCacheEnv, Proc, type Exit, type ProcOptions } from './proc.ts';
export { FAKE_CLOCK_START, FakeClock } from './fake-clock.ts';
export { useRedis, type RedisFixture } from './fixtures.ts';
export { afterTheRest, lateBound } from './late-bound.ts';
