/** Where the generated core/v1 PodSpec schema lives, relative to the repository root. */
export const POD_SPEC_SCHEMA_PATH = 'libs/reconcile/src/generated/pod-spec-schema.json';
