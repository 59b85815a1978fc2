export {
  queueBase,
  jobPrefixOf,
  bullKeys,
  BULLMQ_VERSION,
  JOB_KEY_PATTERNS,
  projectionKeyNames,
  eventLogKeyOf,
  watcherKeyspace,
  parkedPrefixOf,
  keyPatterns,
  KEYSPACE_LUA,
  type FinishedState,
  type ProjectionKeyNames,
} from './keyspace.ts';
export {
  luaScript,
  luaScriptOf,
  runScript,
  scriptsMade,
  notLoaded,
  type LuaScript,
  type RedisClient,
} from './script.ts';
export { luaModule, readLua, resolveLua, type LuaModule } from './lua-include.ts';
export { sendScriptsBySha, type ScriptsByShaOptions } from './script-sha.ts';
export { compareRv, rvNewer, rvMax, RV_NEWER_LUA } from './rules/resource-version.ts';
