// npm run uninstall -- --remove-finalizers [--yes] [--context NAME]
//
// For a cluster whose operator was removed before its PodSets: every PodSet keeps the finalizer
// podset.io/cleanup and a deleted one stays Terminating, because nothing is left to run the cleanup.
// This removes that finalizer (and only it) from every PodSet of the current kubeconfig context. Dry run
// unless --yes. The pods go with their PodSet through the garbage collector (ownerReferences).
import { parseArgs } from 'node:util';
import { createKube, isKubeApiError, loadKubeConfig, type Kube, type PodSet } from '@podset/kube';
import { CLEANUP_FINALIZER, RESOURCE } from '@podset/reconcile';

const USAGE = `usage: npm run uninstall -- --remove-finalizers [--yes] [--context NAME]

Removes the finalizer ${CLEANUP_FINALIZER} from every PodSet in the cluster of the current kubeconfig
context (KUBECONFIG, else ~/.kube/config), for when the operator was removed before its PodSets.
Without --yes it only lists what it would do. Other finalizers are never touched.

The ordinary uninstall needs no script (docs/uninstall.md):
  kubectl delete ps --all --all-namespaces
  kubectl wait --for=delete ps --all --all-namespaces --timeout=5m
  kubectl delete -k k8s/
  kubectl delete crd ${RESOURCE}`;

/** Attempts per PodSet when its finalizers change between our read and our patch. */
const ATTEMPTS = 5;

export interface Planned {
  namespace: string;
  name: string;
  terminating: boolean;
  /** The other finalizers the PodSet keeps. */
  others: string[];
}

/**
 * A JSON patch that removes our finalizer at the index it had when read, guarded by a `test` of that
 * entry: if the list changed since (another controller added or removed one), the server refuses the
 * whole patch (422) instead of removing whatever now sits at that index.
 */
export function removalPatch(podSet: PodSet): object[] | undefined {
  const index = (podSet.metadata.finalizers ?? []).indexOf(CLEANUP_FINALIZER);
  if (index < 0) return undefined;
  const at = `/metadata/finalizers/${index}`;
  return [
    { op: 'test', path: at, value: CLEANUP_FINALIZER },
    { op: 'remove', path: at },
  ];
}

function describe(ps: PodSet): Planned {
  return {
    namespace: ps.metadata.namespace ?? '',
    name: ps.metadata.name ?? '',
    terminating: ps.metadata.deletionTimestamp !== undefined,
    others: (ps.metadata.finalizers ?? []).filter((f) => f !== CLEANUP_FINALIZER),
  };
}

/** The PodSets that carry our finalizer; undefined when the cluster has no PodSet API (CRD not installed). */
export async function podSetsWithFinalizer(kube: Kube): Promise<PodSet[] | undefined> {
  try {
    const list = await kube.podSets.listAll(undefined);
    return list.items.filter((ps) => removalPatch(ps) !== undefined);
  } catch (err) {
    if (isKubeApiError(err) && err.code === 404) return undefined;
    throw err;
  }
}

/**
 * Removes our finalizer from one PodSet; re-reads and tries again when the patch's test fails or the
 * object changed. Returns false when the PodSet is gone or no longer has the finalizer.
 */
export async function removeFinalizer(kube: Kube, podSet: PodSet): Promise<boolean> {
  const namespace = podSet.metadata.namespace;
  const name = podSet.metadata.name ?? '';
  let current = podSet;
  for (let attempt = 1; ; attempt++) {
    const patch = removalPatch(current);
    if (patch === undefined) return false;
    try {
      await kube.podSets.patch(namespace, name, patch, { type: 'json' });
      return true;
    } catch (err) {
      if (!isKubeApiError(err)) throw err;
      if (err.code === 404) return false;
      // 422: the test op failed (the finalizers moved); 409: a concurrent write. Read again.
      if ((err.code !== 422 && err.code !== 409) || attempt >= ATTEMPTS) throw err;
      try {
        current = await kube.podSets.get(namespace, name);
      } catch (readErr) {
        if (isKubeApiError(readErr) && readErr.code === 404) return false;
        throw readErr;
      }
    }
  }
}

function explain(err: unknown, server: string): string {
  if (isKubeApiError(err)) {
    if (err.code === 401) return `the API server at ${server} refused the credentials of this context (401)`;
    if (err.code === 403) {
      return `forbidden (403): this identity needs list, get and patch on ${RESOURCE}: ${err.statusMessage}`;
    }
    return err.message;
  }
  const cause = err instanceof Error && err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `cannot reach the API server at ${server}: ${err instanceof Error ? err.message : String(err)}${cause}`;
}

async function main(): Promise<number> {
  let values: { 'remove-finalizers'?: boolean; yes?: boolean; context?: string; help?: boolean };
  try {
    ({ values } = parseArgs({
      options: {
        'remove-finalizers': { type: 'boolean' },
        yes: { type: 'boolean' },
        context: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    process.stderr.write(`uninstall: ${err instanceof Error ? err.message : String(err)}\n\n${USAGE}\n`);
    return 2;
  }
  if (values.help === true) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (values['remove-finalizers'] !== true) {
    process.stderr.write(`uninstall: nothing asked\n\n${USAGE}\n`);
    return 2;
  }

  let kube: Kube;
  let server: string;
  let contextName: string;
  try {
    const kc = loadKubeConfig();
    if (values.context !== undefined) {
      if (kc.getContextObject(values.context) === null) {
        const known = kc.getContexts().map((c) => c.name);
        throw new Error(`no context "${values.context}" in the kubeconfig (it has: ${known.join(', ')})`);
      }
      kc.setCurrentContext(values.context);
    }
    contextName = kc.getCurrentContext();
    kube = createKube(kc, { userAgent: 'podset-uninstall' });
    server = kube.client.server;
  } catch (err) {
    process.stderr.write(`uninstall: ${err instanceof Error ? err.message : String(err)}\n`);
    return 2;
  }
  try {
    return await run(kube, server, contextName, values.yes === true);
  } finally {
    await kube.client.close();
  }
}

async function run(kube: Kube, server: string, contextName: string, yes: boolean): Promise<number> {
  const out = (line: string) => process.stdout.write(`${line}\n`);
  out(`context ${contextName} (${server})`);

  let found: PodSet[] | undefined;
  try {
    found = await podSetsWithFinalizer(kube);
  } catch (err) {
    process.stderr.write(`uninstall: listing PodSets: ${explain(err, server)}\n`);
    return 1;
  }
  if (found === undefined) {
    out(`no PodSet API in this cluster (the CRD ${RESOURCE} is not installed): nothing to do`);
    return 0;
  }
  if (found.length === 0) {
    out(`no PodSet carries ${CLEANUP_FINALIZER}: nothing to do`);
    return 0;
  }

  const verb = yes ? 'removing' : 'would remove';
  let failed = 0;
  for (const ps of found) {
    const p = describe(ps);
    const state = p.terminating ? 'Terminating: deleted once the finalizer is gone' : 'not being deleted';
    const keeps = p.others.length > 0 ? `; keeps ${p.others.join(', ')}` : '';
    out(`${verb} ${CLEANUP_FINALIZER} from ${p.namespace}/${p.name} (${state}${keeps})`);
    if (!yes) continue;
    try {
      const removed = await removeFinalizer(kube, ps);
      out(`  ${removed ? 'done' : 'already gone'}`);
    } catch (err) {
      failed++;
      process.stderr.write(`uninstall: ${p.namespace}/${p.name}: ${explain(err, server)}\n`);
    }
  }
  if (!yes) {
    out(`dry run: ${found.length} PodSet(s); run again with --yes to remove the finalizer`);
    out(`(a running operator adds it back to PodSets that are not being deleted: remove the operator first)`);
    return 0;
  }
  if (failed > 0) {
    process.stderr.write(`uninstall: ${failed} of ${found.length} PodSet(s) failed\n`);
    return 1;
  }
  out(`removed ${CLEANUP_FINALIZER} from ${found.length} PodSet(s)`);
  return 0;
}

if (import.meta.main) {
  process.exitCode = await main();
}
