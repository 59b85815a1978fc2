// The admission chain: named plugins with one interface, run in order on every create and every update of
// a resource's main part (and its scale) once the object is as it would be stored, dry runs included; the
// first plugin that refuses ends the write. Plugins only validate: none of kube-sim's mutates.
import type { Store } from '../storage/store.ts';
import { ownerReferencesPlugin } from './owner-references.ts';
import { resourceQuotaPlugin } from './resource-quota.ts';
import type { AdmissionAttributes, AdmissionPlugin, KindLookup } from './attributes.ts';

/** What a plugin may be built with. */
export interface PluginDeps {
  store: Store;
  registry: KindLookup;
}

/** Every plugin kube-sim has, in the order kube-apiserver runs them. */
const PLUGINS: Record<string, (d: PluginDeps) => AdmissionPlugin> = {
  OwnerReferencesPermissionEnforcement: (d) => ownerReferencesPlugin(d.registry),
  ResourceQuota: (d) => resourceQuotaPlugin(d.store),
};

/** The plugins kube-apiserver enables unless told otherwise (of those kube-sim has). */
export const DEFAULT_PLUGINS: readonly string[] = ['ResourceQuota'];

/** The plugins off by default that `--enable-admission-plugins` may turn on. */
export const OPTIONAL_PLUGINS = ['OwnerReferencesPermissionEnforcement'] as const;
export type OptionalPlugin = (typeof OPTIONAL_PLUGINS)[number];

export class AdmissionChain {
  readonly plugins: readonly AdmissionPlugin[];

  constructor(plugins: readonly AdmissionPlugin[]) {
    this.plugins = plugins;
  }

  validate(a: AdmissionAttributes): void {
    for (const p of this.plugins) p.validate(a);
  }
}

/** The chain of the default plugins and the `enabled` ones, in kube-apiserver's order. */
export function admissionChain(deps: PluginDeps, enabled: readonly OptionalPlugin[] = []): AdmissionChain {
  const on = new Set<string>([...DEFAULT_PLUGINS, ...enabled]);
  return new AdmissionChain(
    Object.entries(PLUGINS)
      .filter(([name]) => on.has(name))
      .map(([, make]) => make(deps)),
  );
}
