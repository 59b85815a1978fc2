// @podset/reconcile: the PodSet API (schema, CRD, types) and the pure planner.
export * from './api.ts';
export * from './conditions.ts';
export * from './crd.ts';
export * from './ownership.ts';
export * from './plan.ts';
export * from './pod-state.ts';
export * from './pod-template.ts';
export * from './podset-schema.ts';
export * from './ranking.ts';
export * from './settle.ts';
export * from './slow-start.ts';
export * from './spec-check.ts';
export * from './status.ts';
export * from './time.ts';
export type * from './schema-types.ts';
export type * from './types.ts';
