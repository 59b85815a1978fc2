// The PodSet CustomResourceDefinition, built from the schema (podset-schema.ts), and its YAML text as
// committed in crds/podset.yaml.
import { stringify } from 'yaml';
import { CATEGORIES, GROUP, KIND, LIST_KIND, PLURAL, SHORT_NAMES, SINGULAR, VERSION } from './api.ts';
import { crdOpenApiSchema } from './pod-template-schema.ts';

/** Where the generated CRD lives, relative to the repository root. */
export const CRD_PATH = 'crds/podset.yaml';

export function podSetCrd() {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${PLURAL}.${GROUP}` },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: {
        kind: KIND,
        listKind: LIST_KIND,
        plural: PLURAL,
        singular: SINGULAR,
        shortNames: [...SHORT_NAMES],
        categories: [...CATEGORIES],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          schema: { openAPIV3Schema: crdOpenApiSchema() },
          subresources: {
            status: {},
            scale: {
              specReplicasPath: '.spec.replicas',
              statusReplicasPath: '.status.replicas',
              labelSelectorPath: '.status.selector',
            },
          },
          // As Deployments show them (kubectl get deploy): what is wanted, what runs, how much of it is
          // of the current template and available.
          additionalPrinterColumns: [
            { name: 'Desired', type: 'integer', jsonPath: '.spec.replicas', description: 'Pods wanted' },
            {
              name: 'Current',
              type: 'integer',
              jsonPath: '.status.replicas',
              description: 'Active pods',
            },
            {
              name: 'Up-to-date',
              type: 'integer',
              jsonPath: '.status.updatedReplicas',
              description: 'Active pods of the current template',
            },
            {
              name: 'Available',
              type: 'integer',
              jsonPath: '.status.availableReplicas',
              description: 'Active pods Ready for at least minReadySeconds',
            },
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
        },
      ],
    },
  };
}

const HEADER =
  '# GENERATED from libs/reconcile/src/podset-schema.ts and the PodSpec of the pinned Kubernetes release\n' +
  '# (libs/reconcile/src/generated/pod-spec-schema.json) by `npm run gen:crd`.\n' +
  '# Do not edit by hand: edit the schema and regenerate (a test fails if this file is stale).\n';

/** The exact text of crds/podset.yaml. */
export function renderCrdYaml(): string {
  return HEADER + stringify(podSetCrd(), { lineWidth: 0 });
}
