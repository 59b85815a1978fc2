// A second `kubectl apply` of a manifest set must change nothing: kubectl reports every object
// "unchanged" and no object's resourceVersion moves. A manifest that leaves out a field the API server
// fills in (a StatefulSet's claim templates: apiVersion, kind, volumeMode, status) makes kubectl's
// client-side three-way patch re-send it on every apply, and kubectl report the object "configured".

/** kubectl against one cluster: exit code, stdout and stderr. */
export type RunKubectl = (args: string[]) => Promise<{ code: number; stdout: string; stderr: string }>;

/**
 * Kinds kubectl reports "configured" on every client-side apply whatever the manifest says, with why.
 * The server writes nothing for them (no resourceVersion moves; checked all the same).
 */
export const ALWAYS_CONFIGURED: ReadonlyMap<string, string> = new Map([
  [
    'poddisruptionbudget.policy',
    'PodDisruptionBudgetSpec.selector has patchStrategy=replace, and kubectl puts a field of that strategy ' +
      'in its three-way patch whether or not it changed (against any API server)',
  ],
]);

/** The resourceVersion of each object of the set, by `kind namespace/name`. */
async function resourceVersions(kubectl: RunKubectl, source: string[]): Promise<Map<string, string>> {
  const r = await kubectl(['get', ...source, '-o', 'json']);
  if (r.code !== 0) throw new Error(`kubectl get ${source.join(' ')}: ${r.stderr}`);
  const parsed = JSON.parse(r.stdout) as {
    items?: { kind: string; metadata: { name: string; namespace?: string; resourceVersion: string } }[];
  };
  return new Map(
    (parsed.items ?? []).map((o) => [
      `${o.kind} ${o.metadata.namespace ?? '-'}/${o.metadata.name}`,
      o.metadata.resourceVersion,
    ]),
  );
}

/**
 * Applies the set (`['-k', DIR]` or `['-f', FILE]`) twice with strict field validation and returns what the
 * second apply changed: objects kubectl did not report "unchanged" (but for ALWAYS_CONFIGURED kinds) and
 * objects whose resourceVersion moved. Empty: nothing. Throws if an apply fails.
 */
export async function secondApplyChanges(
  kubectl: RunKubectl,
  source: string[],
): Promise<{ changes: string[]; objects: number }> {
  const apply = ['apply', '--validate=strict', ...source];
  const first = await kubectl(apply);
  if (first.code !== 0) throw new Error(`first kubectl ${apply.join(' ')}: ${first.stdout}${first.stderr}`);
  const before = await resourceVersions(kubectl, source);
  const second = await kubectl(apply);
  if (second.code !== 0)
    throw new Error(`second kubectl ${apply.join(' ')}: ${second.stdout}${second.stderr}`);
  const after = await resourceVersions(kubectl, source);
  const changes: string[] = [];
  const reported = second.stdout.trim().split('\n');
  for (const line of reported) {
    const m = /^(\S+?)\/(\S+) (\S+)$/.exec(line);
    if (m === null) changes.push(`kubectl said: ${line}`);
    else if (m[3] !== 'unchanged' && !(m[3] === 'configured' && ALWAYS_CONFIGURED.has(m[1] ?? '')))
      changes.push(`${m[1]}/${m[2]} ${m[3]}`);
  }
  if (reported.length !== before.size)
    changes.push(`kubectl reported ${reported.length} objects of the ${before.size} applied`);
  for (const [key, rv] of before) {
    const now = after.get(key);
    if (now !== rv) changes.push(`${key}: resourceVersion ${rv} → ${now ?? '(gone)'}`);
  }
  return { changes, objects: before.size };
}
