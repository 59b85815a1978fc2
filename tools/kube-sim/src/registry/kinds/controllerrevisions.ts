// ControllerRevisions (apps/v1), as the API server validates them: `data` is required and may not change,
// `revision` is a number of at least 0 (a controller renumbers a revision whose template comes back).
import { invalid, required } from '../../apimachinery/field-errors.ts';
import type { FieldCause, Json, KubeObject } from '../../apimachinery/types.ts';
import { genericStrategy, type Strategy } from '../rest/strategy.ts';

function validate(obj: KubeObject): FieldCause[] {
  const causes: FieldCause[] = [];
  if (obj.data === undefined || obj.data === null) causes.push(required('data'));
  const revision = obj.revision as Json | undefined;
  if (revision === undefined || revision === null) causes.push(required('revision'));
  else if (typeof revision !== 'number' || !Number.isSafeInteger(revision)) {
    causes.push(invalid('revision', revision, 'must be an integer'));
  } else if (revision < 0) {
    causes.push(invalid('revision', revision, 'must be greater than or equal to 0'));
  }
  return causes;
}

export function controllerRevisionStrategy(): Strategy {
  return {
    ...genericStrategy('controllerrevisions.apps'),
    validateCreate: validate,
    validateUpdate: (old, next) => [
      ...validate(next),
      ...(JSON.stringify(old.data) === JSON.stringify(next.data)
        ? []
        : [invalid('data', next.data as Json, 'field is immutable')]),
    ],
  };
}
