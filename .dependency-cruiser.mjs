// The package boundaries, checked by dependency-cruiser in `npm run lint`: a lower layer never imports a higher
// one, packages import each other in no circle, and a package imports only the @podset/* packages its
// package.json declares (production code only its dependencies; its tests also its devDependencies).
// The layer table is explained in docs/architecture.md.
import fs from 'node:fs';
import path from 'node:path';

/** Lowest first. A package may import its own layer or lower ones; tests may also use testkit. */
export const LAYERS = [
  ['clock', 'config', 'log', 'kube-sim'],
  ['reconcile', 'redis'],
  ['event-log', 'queue', 'state', 'kube'],
  ['runtime'],
  ['testkit'],
  ['watcher', 'worker', 'dashboard', 'redis-init', 'demo', 'node-agent', 'kubectl-podset'],
];

const root = import.meta.dirname;
const packages = ['libs', 'apps', 'tools'].flatMap((group) =>
  fs
    .readdirSync(path.join(root, group))
    .filter((dir) => fs.existsSync(path.join(root, group, dir, 'package.json')))
    .map((dir) => {
      const json = JSON.parse(fs.readFileSync(path.join(root, group, dir, 'package.json'), 'utf8'));
      const podset = (deps) => Object.keys(deps ?? {}).filter((name) => name.startsWith('@podset/'));
      return {
        dir: `${group}/${dir}`,
        name: json.name,
        deps: podset(json.dependencies),
        devDeps: podset(json.devDependencies),
      };
    }),
);

const short = (pkg) => pkg.name.replace('@podset/', '');
const dirOf = new Map(packages.map((pkg) => [pkg.name, pkg.dir]));
const layerOf = (pkg) => LAYERS.findIndex((layer) => layer.includes(short(pkg)));
const anyOf = (dirs) => (dirs.length === 0 ? '^$' : `^(${dirs.join('|')})/`);
const TEST = '(\\.test\\.ts$|/test/)';

for (const pkg of packages) {
  if (layerOf(pkg) < 0) throw new Error(`.dependency-cruiser.mjs: ${pkg.name} has no layer in LAYERS`);
}

const layerRules = packages.map((pkg) => ({
  name: 'layer',
  comment: `${pkg.name} is in layer ${layerOf(pkg)}; a lower layer never imports a higher one`,
  severity: 'error',
  from: { path: `^${pkg.dir}/`, pathNot: TEST },
  to: { path: anyOf(packages.filter((other) => layerOf(other) > layerOf(pkg)).map((other) => other.dir)) },
}));

const declaredRules = packages.flatMap((pkg) => {
  const others = packages.filter((other) => other !== pkg);
  const undeclared = (allowed) => others.filter((other) => !allowed.includes(other.name)).map((o) => o.dir);
  return [
    {
      name: 'undeclared-dependency',
      comment: `${pkg.dir}/package.json's dependencies must name every @podset package its code imports`,
      severity: 'error',
      from: { path: `^${pkg.dir}/`, pathNot: TEST },
      to: { path: anyOf(undeclared(pkg.deps)) },
    },
    {
      name: 'undeclared-dependency',
      comment: `${pkg.dir}/package.json must name every @podset package its tests import (devDependencies)`,
      severity: 'error',
      from: { path: `^${pkg.dir}/.*${TEST}` },
      to: { path: anyOf(undeclared([...pkg.deps, ...pkg.devDeps])) },
    },
  ];
});

export default {
  forbidden: [
    ...layerRules,
    ...declaredRules,
    {
      name: 'package-cycle',
      comment: 'packages import each other in no circle (production code; a test may use a higher package)',
      severity: 'error',
      scope: 'folder',
      from: { path: '^(libs|apps|tools)/([^/]+)/' },
      to: { path: '^(libs|apps|tools)/', pathNot: '^$1/$2/', circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: true,
    combinedDependencies: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'default'],
      extensions: ['.ts', '.js'],
    },
  },
};
export { dirOf };
