export {
  ProjectionClient,
  type Fold,
  type FoldItem,
  type FoldOptions,
  type FoldType,
  type OutOfBoundsValue,
  type ProjectedPodSet,
  type ProjectedState,
  type ProjectionOptions,
  type Refusal,
} from './projection.ts';
export { ProjectionWriter, type OwedKeyHook, type ProjectionWriterOptions } from './projection-writer.ts';
export {
  EXPECTATION_CLOCK_SKEW_MS,
  EXPECTATION_TTL_MS,
  PENDING_CREATES_TTL_MS,
  ProjectionReader,
  type QuietNote,
} from './projection-reader.ts';
export {
  DIGEST_LENGTH,
  encodedPod,
  inputsChange,
  inputsDigest,
  podDigest,
  podSetInputs,
  type EncodedPod,
  type InputsChange,
  type ProjectedMeta,
  type ProjectedPod,
} from './entry.ts';
export { projectionHmacKeys, stateSourceEnv } from './env.ts';
export { EntryTags, MIN_KEY_LENGTH, type TagKeys, type TaggedEntry } from './integrity.ts';
