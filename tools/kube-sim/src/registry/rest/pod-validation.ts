// What the API server checks of a pod's spec on create (pkg/apis/core/validation), worded as it words
// it: at least one container; each with a DNS-1123 label name, unique, and an image; container ports
// from 1 to 65535 with a known protocol; a known restartPolicy. A value of the wrong JSON type cannot
// even be decoded by a real server: that is a 400, not a 422.
import { duplicate, invalid, notSupported, required } from '../../apimachinery/field-errors.ts';
import { validateName } from '../../apimachinery/validation.ts';
import { ApiError, type FieldCause, type Json, type JsonObject } from '../../apimachinery/types.ts';

const RESTART_POLICIES = ['Always', 'OnFailure', 'Never'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];

const isObject = (v: Json | undefined): v is JsonObject =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The 400 a real server answers for a body it cannot decode into its kind. */
function undecodable(kind: string, goField: string, value: Json, goType: string): ApiError {
  const jsonType = Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value;
  return new ApiError(
    400,
    'BadRequest',
    `${kind} in version "v1" cannot be handled as a ${kind}: json: cannot unmarshal ${jsonType} into Go struct field ${goField} of type ${goType}`,
  );
}

function validateContainers(
  list: Json | undefined,
  path: string,
  names: Set<string>,
  kind: string,
): FieldCause[] {
  const causes: FieldCause[] = [];
  if (!Array.isArray(list)) return causes;
  list.forEach((c, i) => {
    const at = `${path}[${i}]`;
    if (!isObject(c)) return;
    const name = c.name;
    const nameCauses =
      typeof name === 'string' && name !== '' ? validateName(name, 'label', `${at}.name`) : [];
    if (typeof name !== 'string' || name === '') causes.push(required(`${at}.name`));
    else if (nameCauses.length > 0) causes.push(...nameCauses);
    else if (names.has(name)) causes.push(duplicate(`${at}.name`, name));
    if (typeof name === 'string') names.add(name);
    if (typeof c.image !== 'string' || c.image.trim() === '') causes.push(required(`${at}.image`));
    if (Array.isArray(c.ports)) {
      c.ports.forEach((p, j) => {
        if (!isObject(p)) return;
        const portAt = `${at}.ports[${j}]`;
        const port = p.containerPort;
        if (port !== undefined && typeof port !== 'number') {
          // Go names the field by its path without indices.
          const goPath = `${path.replace(/\[\d+\]/g, '')}.ports.containerPort`;
          throw undecodable(kind, `ContainerPort.${goPath}`, port, 'int32');
        }
        if (port === undefined || port === 0) causes.push(required(`${portAt}.containerPort`));
        else if (!Number.isInteger(port) || port < 1 || port > 65535) {
          causes.push(invalid(`${portAt}.containerPort`, port, 'must be between 1 and 65535, inclusive'));
        }
        if (p.protocol !== undefined && !PROTOCOLS.includes(String(p.protocol))) {
          causes.push(notSupported(`${portAt}.protocol`, p.protocol, PROTOCOLS));
        }
      });
    }
  });
  return causes;
}

/**
 * The field causes of a pod spec at `path` (`spec` of a pod, `spec.template.spec` of a workload of
 * `kind`), or a thrown 400 for a value no such object can hold.
 */
export function validatePodSpec(spec: Json | undefined, path = 'spec', kind = 'Pod'): FieldCause[] {
  if (!isObject(spec)) return [required(`${path}.containers`)];
  const causes: FieldCause[] = [];
  if (!Array.isArray(spec.containers) || spec.containers.length === 0)
    causes.push(required(`${path}.containers`));
  const names = new Set<string>();
  causes.push(...validateContainers(spec.initContainers, `${path}.initContainers`, names, kind));
  causes.push(...validateContainers(spec.containers, `${path}.containers`, names, kind));
  const policy = spec.restartPolicy;
  if (policy !== undefined && !RESTART_POLICIES.includes(String(policy))) {
    causes.push(notSupported(`${path}.restartPolicy`, policy, RESTART_POLICIES));
  }
  return causes;
}
