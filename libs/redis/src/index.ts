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
export {
  redisEnv,
  redisConnector,
  urlConnector,
  singleNodeConfig,
  isRedisConnector,
  hashTag,
  type RedisConfig,
  type RedisConnector,
  type ClientTuning,
} from './connection.ts';
export {
  aclFile,
  aclRules,
  aclSetUserArgs,
  aclUsername,
  HEALTH_USERNAME,
  HEALTH_RULES,
  SCRIPTS_USERNAME,
  SCRIPTS_RULES,
  OPS_USERNAME,
  OPS_RULES,
  APP_USERS,
  type AclScope,
  type AppUser,
  type ServiceUserPasswords,
} from './acl.ts';
export {
  checkEvictionPolicy,
  requireNoEviction,
  type PolicyCheckOptions,
  type PolicyVerdict,
} from './policy.ts';
export { logRedisUser, userProbe, type ProbedApp, type UserProbe } from './user.ts';
