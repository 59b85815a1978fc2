// The namespace an app runs in: the downward API's POD_NAMESPACE where a manifest sets it, else the
// service account's namespace file every pod gets (the dashboard and the init Job set no POD_NAMESPACE).
import { readFileSync } from 'node:fs';

export const SERVICE_ACCOUNT_NAMESPACE_FILE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** POD_NAMESPACE, else the content of `file`; undefined outside a pod. */
export function ownNamespace(
  env: Record<string, string | undefined>,
  file = SERVICE_ACCOUNT_NAMESPACE_FILE,
): string | undefined {
  const fromEnv = env['POD_NAMESPACE']?.trim();
  if (fromEnv !== undefined && fromEnv !== '') return fromEnv;
  try {
    const fromFile = readFileSync(file, 'utf8').trim();
    return fromFile === '' ? undefined : fromFile;
  } catch {
    return undefined;
  }
}
