// The npm registry mirror these machines use serves only linux builds of platform-specific optional
// packages, so `npm install` silently drops e.g. @msgpackr-extract/msgpackr-extract-darwin-arm64 from
// package-lock.json, and `npm ci` then refuses the lockfile ("Missing: … from lock file").
// This restores a stub entry (version, os, cpu, optional) for every such missing platform package:
// npm ci checks the lock is complete and skips packages for other platforms without fetching them.
//   npm run lockfile:platforms             fix package-lock.json in place
//   npm run lockfile:platforms -- --check  exit 1 if entries are missing
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

interface LockEntry {
  version?: string;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  license?: string;
  optionalDependencies?: Record<string, string>;
  [field: string]: unknown;
}
interface Lockfile {
  packages: Record<string, LockEntry>;
  [field: string]: unknown;
}

const PLATFORM = /-(darwin|linux|win32|freebsd|android)-(x64|arm64|arm|ia32)$/;

/** The platform packages that some locked package lists as optional but the lock lacks. */
export function missingPlatformEntries(lock: Lockfile): Map<string, LockEntry> {
  const missing = new Map<string, LockEntry>();
  for (const entry of Object.values(lock.packages)) {
    for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
      const key = `node_modules/${name}`;
      const platform = PLATFORM.exec(name);
      if (lock.packages[key] !== undefined || platform === null) continue;
      missing.set(key, {
        version,
        cpu: [platform[2] as string],
        optional: true,
        os: [platform[1] as string],
      });
    }
  }
  return missing;
}

export function withPlatformEntries(lock: Lockfile): Lockfile {
  const missing = missingPlatformEntries(lock);
  if (missing.size === 0) return lock;
  const all = { ...lock.packages, ...Object.fromEntries(missing) };
  const keys = Object.keys(all).sort((a, b) => (a === '' ? -1 : b === '' ? 1 : a < b ? -1 : a > b ? 1 : 0));
  return { ...lock, packages: Object.fromEntries(keys.map((k) => [k, all[k] as LockEntry])) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'package-lock.json');
  const lock = JSON.parse(readFileSync(file, 'utf8')) as Lockfile;
  const missing = missingPlatformEntries(lock);
  if (process.argv.includes('--check')) {
    if (missing.size > 0) {
      process.stderr.write(
        `package-lock.json lacks ${[...missing.keys()].join(', ')}: npm ci will refuse it. ` +
          'Run npm run lockfile:platforms\n',
      );
      process.exit(1);
    }
  } else if (missing.size > 0) {
    writeFileSync(file, `${JSON.stringify(withPlatformEntries(lock), null, 2)}\n`);
    process.stdout.write(`added ${missing.size} platform entries to package-lock.json\n`);
  }
}
