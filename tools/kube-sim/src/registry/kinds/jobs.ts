// Jobs: the workload defaults and validation, and a new Job's generated selector (its name and uid in it).
import { generateJobSelector } from '../rest/builtin-defaults.ts';
import { genericStrategy, type Strategy } from '../rest/strategy.ts';

export function jobStrategy(): Strategy {
  return {
    ...genericStrategy('jobs.batch'),
    defaultsOnCreate: (obj, uid) => generateJobSelector(obj, uid),
  };
}
