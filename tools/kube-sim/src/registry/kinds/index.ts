// The kinds with rules of their own, by resource id; every other kind has the generic strategy.
import type { Strategy } from '../rest/strategy.ts';
import { controllerRevisionStrategy } from './controllerrevisions.ts';
import { CRD_ID, crdStrategy } from './crds.ts';
import { jobStrategy } from './jobs.ts';
import { namespaceStrategy } from './namespaces.ts';
import { nodeStrategy } from './nodes.ts';
import { podStrategy } from './pods.ts';
import { resourceQuotaStrategy } from './resourcequotas.ts';
import { secretStrategy } from './secrets.ts';
import { serviceStrategy } from './services.ts';

/** A fresh set (a Service strategy holds its API's allocations). */
export function kindStrategies(): Map<string, Strategy> {
  return new Map<string, Strategy>([
    ['pods', podStrategy()],
    ['services', serviceStrategy()],
    ['secrets', secretStrategy()],
    ['namespaces', namespaceStrategy()],
    ['nodes', nodeStrategy()],
    ['resourcequotas', resourceQuotaStrategy()],
    ['jobs.batch', jobStrategy()],
    ['controllerrevisions.apps', controllerRevisionStrategy()],
    [CRD_ID, crdStrategy()],
  ]);
}
