// kube-sim's data dir (`--data-dir`), as etcd's: the identity (CA, serving certificate and key, tokens) and
// every object, saved as one JSON snapshot and loaded at the next start, so kubeconfigs stay valid and objects
// survive a restart. The snapshot is written whole (temp file, fsync, rename: a crash leaves the old one or
// the new one, never half of one) at most once per interval after a change, and at close.
//
// Changes after the last snapshot are lost on a crash, but resourceVersions must never go backwards for a
// client that saw them: a small ceiling file, written synchronously before the counter passes it, says how far
// the counter may have gone, and a reload continues above it.
import { X509Certificate, createPrivateKey } from 'node:crypto';
import {
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import type { Auth } from '../server/filters/authentication.ts';
import { crdResourceTypes } from '../apiextensions/crd.ts';
import type { Registry } from '../registry/rest/resources.ts';
import { type Store, recJson } from '../storage/store.ts';
import type { TlsIdentity } from '../server/tls.ts';
import type { KubeObject } from '../apimachinery/types.ts';

export const SNAPSHOT_FILE = 'snapshot.json';
export const RV_CEILING_FILE = 'resource-version-ceiling';
const SNAPSHOT_KIND = 'KubeSimSnapshot';
const SNAPSHOT_VERSION = 1;
/** How far the counter may run past the ceiling on disk before the ceiling is written again. */
const RV_BLOCK = 1000;
const CRD_RESOURCE = 'customresourcedefinitions.apiextensions.k8s.io';

/** A data dir that cannot be used: unreadable, corrupt, or not writable. kube-sim exits 2 on it. */
export class DataDirError extends Error {}

/** What a data dir holds. */
export interface Saved {
  /** The highest resourceVersion handed out (snapshot or ceiling, whichever is higher). */
  resourceVersion: number;
  tls: TlsIdentity;
  /** identity → bearer token. */
  tokens: Record<string, string>;
  /** token → `system:serviceaccount:<ns>:<name>`. */
  serviceAccountTokens: Record<string, string>;
  /** resource id → its objects. */
  objects: Record<string, KubeObject[]>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function stringMap(v: unknown, what: string): Record<string, string> {
  if (!isRecord(v) || Object.values(v).some((x) => typeof x !== 'string')) {
    throw new Error(`${what} must be an object of strings`);
  }
  return v as Record<string, string>;
}

function checkTls(v: unknown): TlsIdentity {
  if (!isRecord(v)) throw new Error('tls must be an object');
  const { caCert, cert, key } = v;
  if (typeof caCert !== 'string' || typeof cert !== 'string' || typeof key !== 'string') {
    throw new Error('tls must have the PEM strings caCert, cert and key');
  }
  const ca = new X509Certificate(caCert);
  if (!new X509Certificate(cert).checkIssued(ca)) throw new Error('tls.cert is not signed by tls.caCert');
  createPrivateKey(key);
  return { caCert, cert, key };
}

function checkObjects(v: unknown): Record<string, KubeObject[]> {
  if (!isRecord(v)) throw new Error('objects must be an object of arrays');
  for (const [resource, list] of Object.entries(v)) {
    if (!Array.isArray(list)) throw new Error(`objects["${resource}"] must be an array`);
    list.forEach((o: unknown, i) => {
      const meta = isRecord(o) ? o.metadata : undefined;
      if (
        !isRecord(o) ||
        typeof o.apiVersion !== 'string' ||
        typeof o.kind !== 'string' ||
        !isRecord(meta) ||
        typeof meta.name !== 'string' ||
        typeof meta.resourceVersion !== 'string' ||
        !/^\d+$/.test(meta.resourceVersion)
      ) {
        throw new Error(
          `objects["${resource}"][${i}] is not an object with apiVersion, kind, metadata.name and metadata.resourceVersion`,
        );
      }
    });
  }
  return v as Record<string, KubeObject[]>;
}

function readCeiling(dir: string): number {
  const file = join(dir, RV_CEILING_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw new DataDirError(`kube-sim: cannot read ${file}: ${(e as Error).message}`);
  }
  if (!/^\d+\n?$/.test(text)) {
    throw new DataDirError(
      `kube-sim: ${file} is corrupt: expected a resourceVersion, got "${text.slice(0, 40)}"`,
    );
  }
  return Number(text);
}

/**
 * What `dir` holds, or undefined when it holds no snapshot yet (a first start). Creates the directory.
 * A snapshot that can't be read or doesn't parse is a DataDirError naming the file: never start empty over it.
 */
export function loadDataDir(dir: string): Saved | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new DataDirError(`kube-sim: cannot create the data dir ${dir}: ${(e as Error).message}`);
  }
  const file = join(dir, SNAPSHOT_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DataDirError(`kube-sim: cannot read the snapshot ${file}: ${(e as Error).message}`);
  }
  const ceiling = readCeiling(dir);
  try {
    const raw: unknown = JSON.parse(text);
    if (!isRecord(raw) || raw.kind !== SNAPSHOT_KIND) throw new Error(`kind is not ${SNAPSHOT_KIND}`);
    if (raw.version !== SNAPSHOT_VERSION) {
      throw new Error(`version ${String(raw.version)} is not the supported ${SNAPSHOT_VERSION}`);
    }
    const rv = raw.resourceVersion;
    if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv < 0) {
      throw new Error('resourceVersion must be a non-negative integer');
    }
    return {
      resourceVersion: Math.max(rv, ceiling),
      tls: checkTls(raw.tls),
      tokens: stringMap(raw.tokens, 'tokens'),
      serviceAccountTokens: stringMap(raw.serviceAccountTokens, 'serviceAccountTokens'),
      objects: checkObjects(raw.objects),
    };
  } catch (e) {
    throw new DataDirError(
      `kube-sim: the snapshot ${file} is corrupt (${(e as Error).message}); ` +
        'move it away to start with an empty cluster and a new identity',
    );
  }
}

/** Puts the saved objects back in the store (CRDs first, so their types are served), then resumes the counter. */
export function restoreObjects(saved: Saved, store: Store, registry: Registry, file: string): void {
  try {
    for (const crd of saved.objects[CRD_RESOURCE] ?? []) {
      registry.setCrd(crd.metadata.name as string, crdResourceTypes(crd));
    }
    for (const [resource, objects] of Object.entries(saved.objects)) {
      if (!registry.byResourceId(resource)) throw new Error(`unknown resource "${resource}"`);
      for (const obj of objects) store.restore(resource, obj);
    }
  } catch (e) {
    throw new DataDirError(
      `kube-sim: the snapshot ${file} is corrupt (${(e as Error).message}); ` +
        'move it away to start with an empty cluster and a new identity',
    );
  }
  store.resumeAt(saved.resourceVersion);
}

/** Writes `text` to `path` so that a crash leaves either the old file or the new one. */
function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmp, 'w', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
}

export interface DataDirWriterOptions {
  dir: string;
  store: Store;
  auth: Auth;
  tls: TlsIdentity;
  /** A change is on disk at most this long after it is made (default 1000 ms). */
  intervalMs?: number;
}

/** Keeps a data dir up to date with the store and the tokens. */
export class DataDirWriter {
  readonly file: string;
  private readonly o: DataDirWriterOptions;
  private readonly intervalMs: number;
  private readonly ceilingFile: string;
  private ceiling: number;
  private timer: NodeJS.Timeout | undefined;
  private dirty = false;
  private readonly unsubscribe: () => void;

  /** Subscribe before anything that shows resourceVersions to clients (watches), so the ceiling is written first. */
  constructor(o: DataDirWriterOptions) {
    this.o = o;
    this.intervalMs = o.intervalMs ?? 1000;
    this.file = join(o.dir, SNAPSHOT_FILE);
    this.ceilingFile = join(o.dir, RV_CEILING_FILE);
    this.ceiling = o.store.resourceVersion;
    this.unsubscribe = o.store.onCommit((ev) => {
      if (ev.rv > this.ceiling) this.raiseCeiling(ev.rv + RV_BLOCK);
      this.changed();
    });
    o.auth.onChange = () => this.changed();
  }

  private raiseCeiling(to: number): void {
    try {
      writeAtomic(this.ceilingFile, `${to}\n`);
      this.ceiling = to;
    } catch (e) {
      console.error(`kube-sim: cannot write ${this.ceilingFile}: ${(e as Error).message}`);
    }
  }

  /** Schedules a snapshot (once: changes during the interval join it, so a busy store is still saved). */
  changed(): void {
    this.dirty = true;
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.flushLogged();
    }, this.intervalMs).unref();
  }

  private flushLogged(): void {
    try {
      this.flush();
    } catch (e) {
      this.dirty = true;
      console.error((e as Error).message);
    }
  }

  /** Writes the snapshot now. Throws a DataDirError when it cannot. */
  flush(): void {
    const { store, auth, tls } = this.o;
    this.dirty = false;
    const objects: string[] = [];
    for (const resource of store.resources().sort()) {
      const recs = store.list(resource);
      if (recs.length) objects.push(`${JSON.stringify(resource)}:[${recs.map(recJson).join(',')}]`);
    }
    const head = {
      kind: SNAPSHOT_KIND,
      version: SNAPSHOT_VERSION,
      savedAt: new Date().toISOString(),
      resourceVersion: store.resourceVersion,
      tls,
      tokens: auth.tokens,
      serviceAccountTokens: auth.serviceAccountTokens(),
    };
    const text = `${JSON.stringify(head).slice(0, -1)},"objects":{${objects.join(',')}}}\n`;
    try {
      writeAtomic(this.file, text);
    } catch (e) {
      throw new DataDirError(`kube-sim: cannot write the snapshot ${this.file}: ${(e as Error).message}`);
    }
  }

  /** Stops following changes and writes what is not yet on disk. */
  close(): void {
    this.unsubscribe();
    this.o.auth.onChange = undefined;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.dirty) this.flushLogged();
  }
}
