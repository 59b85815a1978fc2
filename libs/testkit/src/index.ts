export { freePort } from './ports.ts';
export { startRedis, ping, type RedisServer, type RedisOptions } from './redis.ts';
