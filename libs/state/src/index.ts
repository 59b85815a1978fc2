export {
  Projection,
  type Fold,
  type FoldItem,
  type FoldOptions,
  type FoldType,
  type ProjectedPodSet,
  type ProjectedState,
  type ProjectionOptions,
  type Refusal,
} from './projection.ts';
export { podSetInputs, type ProjectedMeta, type ProjectedPod } from './entry.ts';
export { compareRv, rvNewer, rvMax, RV_NEWER_LUA } from './rules/resource-version.ts';
// The Lua runner is the queue's too (its scripts are .lua files of its own, read the same way).
export { luaScript, luaScriptOf, readLua, runScript, type RedisClient } from './lua/script.ts';
export { projectionKeys, stateSourceEnv } from './env.ts';
export { EntryTags, MIN_KEY_LENGTH, type TagKeys, type TaggedEntry } from './integrity.ts';
