// What every admission plugin is given and answers to (the chain is in chain.ts).
import type { KubeObject, ResourceType } from '../apimachinery/types.ts';

/**
 * What the authorizer is asked (RBAC's attributes but the user, which the caller knows). Declared here, where
 * it is asked, so admission needs nothing of the server's filters; the authorizer's attributes extend it.
 */
export interface AuthorizationRequest {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  namespace: string | undefined;
  name: string | undefined;
}
/** Throws 403 unless the requester may. */
export type Authorize = (request: AuthorizationRequest) => void;

/** Who writes over HTTP: the user, and the authorizer answering for them. */
export interface Requester {
  user: string;
  authorize: Authorize;
}

export interface AdmissionAttributes {
  operation: 'CREATE' | 'UPDATE';
  resource: ResourceType;
  /** The object as it would be stored (a create's generated name filled in). */
  object: KubeObject;
  /** For an update: the stored object it replaces. */
  oldObject: KubeObject | undefined;
  /** Undefined for kube-sim's own in-process writes (its controllers), which are trusted as system:masters. */
  requester: Requester | undefined;
  nowMs: number;
}

export interface AdmissionPlugin {
  readonly name: string;
  /** Throws the ApiError the write is refused with; returns to admit it. */
  validate(a: AdmissionAttributes): void;
}

/** The served kinds of a group version: what a plugin resolves a reference's kind with (the registry is one). */
export interface KindLookup {
  typesIn(group: string, version: string): ResourceType[];
}
