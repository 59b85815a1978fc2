// The Helm chart (charts/podset-operator) is generated from the kustomize deployment, so k8s/ stays the
// one source of the manifests:
//   node scripts/gen-chart.ts          rewrite the chart from `kubectl kustomize k8s`
//   node scripts/gen-chart.ts --check  exit 1 if the chart is stale
// test/deploy/helm.test.ts checks the same, and that `helm template` gives back what kustomize gives.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseAllDocuments, stringify } from 'yaml';

export const REPO = path.resolve(import.meta.dirname, '..');
export const CHART_DIR = path.join(REPO, 'charts', 'podset-operator');
/** What k8s/ deploys into, and the image it names (k8s/kustomization.yaml); both become values. */
const NAMESPACE = 'podset-system';
const IMAGE_NAME = 'podset-operator';

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string };
}

const HEADER =
  '# GENERATED from k8s/ by `node scripts/gen-chart.ts`. Do not edit by hand: edit k8s/ and regenerate\n' +
  '# (a test fails if this chart is stale).\n';

/** The rendered kustomize deployment, one object per document. */
export function kustomizeObjects(dir = path.join(REPO, 'k8s')): Manifest[] {
  const text = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8', maxBuffer: 64 << 20 });
  return parseAllDocuments(text)
    .map((d) => d.toJS() as Manifest | null)
    .filter((o): o is Manifest => o !== null);
}

/** The chart's files (relative path → content) for these objects. */
export function chartFiles(objects: readonly Manifest[], version: string): Map<string, string> {
  const files = new Map<string, string>();
  const image = objects
    .flatMap((o) => JSON.stringify(o).match(new RegExp(`"image":"${IMAGE_NAME}:([^"]+)"`)) ?? [])
    .at(1);
  if (image === undefined) throw new Error(`k8s/ names no image ${IMAGE_NAME}:TAG`);
  if (image !== version) {
    throw new Error(`k8s/kustomization.yaml deploys ${IMAGE_NAME}:${image}, package.json is ${version}`);
  }
  files.set(
    'Chart.yaml',
    HEADER +
      stringify({
        apiVersion: 'v2',
        name: 'podset-operator',
        description: 'A Kubernetes operator for PodSet: an event-sourced reconciler on a BullMQ queue',
        type: 'application',
        version,
        appVersion: version,
      }),
  );
  files.set(
    'values.yaml',
    HEADER +
      [
        '# Where the operator runs. The chart creates this namespace (Pod Security restricted), so install the',
        '# release itself into another one: helm install podset-operator charts/podset-operator -n default',
        `namespace: ${NAMESPACE}`,
        'image:',
        `  repository: ${IMAGE_NAME}`,
        '  # Default: the chart appVersion.',
        "  tag: ''",
        '',
      ].join('\n'),
  );
  for (const o of objects) {
    const text = stringify(o, { lineWidth: 0 });
    if (o.kind === 'CustomResourceDefinition') {
      // Helm installs crds/ (untemplated) before the templates and never deletes it: `helm uninstall`
      // must not take every PodSet with it while the operator that would finalize them goes too.
      files.set(`crds/${o.metadata.name}.yaml`, HEADER + text);
    } else {
      // The namespace's file is not named after it: its name is a value.
      const file = o.kind === 'Namespace' ? 'namespace' : `${o.kind.toLowerCase()}-${o.metadata.name}`;
      files.set(`templates/${file}.yaml`, HEADER + templated(text));
    }
  }
  return files;
}

function templated(yaml: string): string {
  return yaml
    .replaceAll(
      new RegExp(`image: ${IMAGE_NAME}:\\S+`, 'g'),
      'image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"',
    )
    .replaceAll(new RegExp(`\\b${NAMESPACE}\\b`, 'g'), '{{ .Values.namespace }}');
}

/** Every file now in the chart directory (relative paths). */
function filesOnDisk(dir: string, prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesOnDisk(path.join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

/** Differences between the chart on disk and the generated one (empty: up to date). */
export function staleFiles(want: Map<string, string>, dir = CHART_DIR): string[] {
  const have = new Set(filesOnDisk(dir));
  const out: string[] = [];
  for (const [file, text] of want) {
    if (!have.has(file)) out.push(`${file}: missing`);
    else if (readFileSync(path.join(dir, file), 'utf8') !== text) out.push(`${file}: differs`);
    have.delete(file);
  }
  for (const file of have) out.push(`${file}: not generated`);
  return out;
}

export function packageVersion(): string {
  return (JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
}

if (import.meta.main) {
  const want = chartFiles(kustomizeObjects(), packageVersion());
  if (process.argv.includes('--check')) {
    const stale = staleFiles(want);
    if (stale.length > 0) {
      process.stderr.write(
        `charts/podset-operator is stale (node scripts/gen-chart.ts):\n  ${stale.join('\n  ')}\n`,
      );
      process.exit(1);
    }
  } else {
    rmSync(CHART_DIR, { recursive: true, force: true });
    for (const [file, text] of want) {
      mkdirSync(path.dirname(path.join(CHART_DIR, file)), { recursive: true });
      writeFileSync(path.join(CHART_DIR, file), text);
    }
    process.stdout.write(`wrote ${want.size} files to ${path.relative(process.cwd(), CHART_DIR)}\n`);
  }
}
