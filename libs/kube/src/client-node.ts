// @kubernetes/client-node is loaded when first used, not when this library is imported: loading it
// resolves about 900 modules (~0.9 s of CPU), and most importers never build a client (the unit tests'
// processes, the dashboard's and the worker's pure modules), so each of them would pay it for nothing.
import { createRequire } from 'node:module';
import type * as ClientNodeModule from '@kubernetes/client-node';

type ClientNode = typeof ClientNodeModule;

const requireFromHere = createRequire(import.meta.url);
let loaded: ClientNode | undefined;

/** The @kubernetes/client-node module, loaded on the first call (a synchronous require of its ESM build). */
export function clientNode(): ClientNode {
  loaded ??= requireFromHere('@kubernetes/client-node') as ClientNode;
  return loaded;
}
