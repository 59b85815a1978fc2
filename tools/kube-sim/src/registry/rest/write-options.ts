// What a write carries besides its object: the request's query options and what the verbs pass down.
import type { Requester } from '../../admission/attributes.ts';
import type { Json } from '../../apimachinery/types.ts';

export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

export interface WriteOptions {
  dryRun?: boolean;
  fieldValidation?: FieldValidation;
  /** Filled with warnings for the `Warning` response header. */
  warnings?: string[];
  /** Set by pods/binding, the one write that may set a pod's spec.nodeName. */
  binding?: boolean;
  /** Who writes, for metadata.managedFields (in-process writes: `kube-sim`). */
  fieldManager?: string;
  /** The managedFields to store, when the write worked them out itself (an apply). */
  managedFields?: Json[];
  /** A write through the scale subresource (recorded as such in managedFields). */
  subresource?: 'scale';
  /** Set by a patch: how a refusal shows it (the result of a patch that does not decode is refused on the field `patch`). */
  patchShown?: () => string;
  /** Keys the request's JSON body repeats (their paths), refused or warned about as unknown fields are. */
  duplicateFields?: string[];
  /** Who writes, for admission (undefined: kube-sim's own in-process writes). */
  requester?: Requester;
}

/** Which part of the object an update writes: the status subresource changes only `.status`. */
export type WritePart = 'main' | 'status';
