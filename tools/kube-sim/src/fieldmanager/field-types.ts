// What server-side apply needs to know of a kind's schema: how each list merges (atomic, a set of scalars,
// or a map keyed by some of its items' fields), which objects are replaced whole (atomic), and which keys
// of an object are declared fields rather than keys of a map. Custom resources read it from the CRD's
// structural schema (x-kubernetes-list-type, -list-map-keys, -map-type; lists without a type are atomic);
// built-ins from the merge keys kube-sim already knows for strategic merge patches.
import { listStrategy } from '../patch/strategic.ts';
import type { Json, JSONSchemaProps, ResourceType } from '../apimachinery/types.ts';
import type { ListType, TypeView } from '../apimachinery/type-view.ts';

export type { ListType, TypeView } from '../apimachinery/type-view.ts';

const ATOMIC: ListType = { type: 'atomic' };
const SET: ListType = { type: 'set' };
const NO_DEFAULTS: Readonly<Record<string, Json>> = {};

/** Built-in map-typed fields (string to string maps, quantities): their keys are not declared fields. */
const MAP_FIELDS = new Set([
  'labels',
  'annotations',
  'data',
  'binaryData',
  'stringData',
  'nodeSelector',
  'matchLabels',
  'limits',
  'requests',
  'capacity',
  'allocatable',
  'parameters',
  'hard',
  'used',
]);

/** Label selectors are atomic structs in the built-in API types (and a Service's selector an atomic map). */
const ATOMIC_FIELDS = new Set(['selector', 'podSelector', 'namespaceSelector', 'labelSelector']);

/** Non-pointer struct fields and required lists that a built-in's zero value already carries. */
const ZERO_VALUE_FIELDS = new Set([
  'metadata',
  'spec',
  'status',
  'template',
  'strategy',
  'updateStrategy',
  'jobTemplate',
  'containers',
]);

const TCP: Readonly<Record<string, Json>> = { protocol: 'TCP' };

class BuiltinView implements TypeView {
  private readonly kind: string;
  private readonly path: readonly string[];
  private readonly inMap: boolean;
  private readonly isItem: boolean;
  constructor(kind: string, path: readonly string[], inMap = false, isItem = false) {
    this.kind = kind;
    this.path = path;
    this.inMap = inMap;
    this.isItem = isItem;
  }

  private fields: Map<string, TypeView> | undefined;
  private items: TypeView | undefined;

  field(name: string): TypeView {
    // Keys of maps are data (any number of them): only declared fields' views are kept.
    if (this.isMap() || this.inMap) return new BuiltinView(this.kind, [...this.path, name], true);
    this.fields ??= new Map();
    let v = this.fields.get(name);
    if (!v) this.fields.set(name, (v = new BuiltinView(this.kind, [...this.path, name])));
    return v;
  }

  /** List items add no path segment (as in strategic merge's tables); the flag tells them apart. */
  item(): TypeView {
    return (this.items ??= new BuiltinView(this.kind, this.path, false, true));
  }

  private isMap(): boolean {
    return !this.isItem && MAP_FIELDS.has(this.path[this.path.length - 1] ?? '');
  }

  private listType: ListType | undefined;

  list(): ListType {
    return (this.listType ??= this.makeList());
  }

  private makeList(): ListType {
    if (this.isItem) return ATOMIC; // a list of lists
    const field = this.path[this.path.length - 1] ?? '';
    const parent = this.path[this.path.length - 2] ?? '';
    // Ports are keyed by number and protocol (the protocol defaults to TCP), unlike in strategic merge.
    if (field === 'ports' && ['containers', 'initContainers', 'ephemeralContainers'].includes(parent))
      return { type: 'map', keys: ['containerPort', 'protocol'], defaults: TCP };
    if (field === 'ports' && this.kind === 'Service' && this.path.length === 2)
      return { type: 'map', keys: ['port', 'protocol'], defaults: TCP };
    const s = listStrategy(this.kind, this.path);
    if (s.type === 'mergeByKey') return { type: 'map', keys: [s.key], defaults: NO_DEFAULTS };
    return s.type === 'mergePrimitives' ? SET : ATOMIC;
  }

  atomic(): boolean {
    const field = this.path[this.path.length - 1] ?? '';
    // An owner reference is an atomic struct: its item is owned whole.
    if (this.isItem) return field === 'ownerReferences' && this.path.length === 2;
    return !this.inMap && this.path[0] !== 'metadata' && ATOMIC_FIELDS.has(field);
  }

  named(_name: string): boolean {
    return !this.isMap();
  }

  inZeroValue(): boolean {
    const field = this.path[this.path.length - 1] ?? '';
    if (this.inMap || this.isItem || !ZERO_VALUE_FIELDS.has(field)) return false;
    return this.path.length === 1 || field !== 'status';
  }
}

/** A custom resource's field, by its structural schema; `undefined`: no schema (fields as they come). */
class SchemaView implements TypeView {
  private readonly s: JSONSchemaProps | undefined;
  private readonly root: boolean;
  constructor(s: JSONSchemaProps | undefined, root = false) {
    this.s = s;
    this.root = root;
  }

  private fields: Map<string, TypeView> | undefined;
  private items: TypeView | undefined;

  field(name: string): TypeView {
    if (!this.s || (!this.root && !this.s.properties?.[name])) return this.makeField(name);
    this.fields ??= new Map();
    let v = this.fields.get(name);
    if (!v) this.fields.set(name, (v = this.makeField(name)));
    return v;
  }

  private makeField(name: string): TypeView {
    if (this.root && name === 'metadata') return new BuiltinView('', ['metadata']);
    const s = this.s;
    if (!s) return UNTYPED;
    const p = s.properties?.[name];
    if (p) return new SchemaView(p);
    if (typeof s.additionalProperties === 'object')
      return (this.values ??= new SchemaView(s.additionalProperties));
    return UNTYPED;
  }

  private values: TypeView | undefined;

  item(): TypeView {
    return (this.items ??= this.s?.items ? new SchemaView(this.s.items) : UNTYPED);
  }

  private listType: ListType | undefined;

  list(): ListType {
    return (this.listType ??= this.makeList());
  }

  private makeList(): ListType {
    const s = this.s;
    const lt = s?.['x-kubernetes-list-type'];
    if (lt === 'set') return SET;
    if (lt === 'map') {
      const keys = [...(s?.['x-kubernetes-list-map-keys'] ?? [])].sort();
      const defaults: Record<string, Json> = {};
      for (const k of keys) {
        const d = s?.items?.properties?.[k]?.default;
        if (d !== undefined) defaults[k] = d;
      }
      return { type: 'map', keys, defaults };
    }
    return ATOMIC;
  }

  atomic(): boolean {
    return this.s?.['x-kubernetes-map-type'] === 'atomic';
  }

  named(name: string): boolean {
    if (this.root) return true;
    return this.s?.properties?.[name] !== undefined;
  }

  inZeroValue(): boolean {
    return false;
  }
}

const UNTYPED: TypeView = new SchemaView(undefined);

const views = new WeakMap<ResourceType, TypeView>();

/** The view of a whole object of `t` (kept per type: views remember their children). */
export function typeViewOf(t: ResourceType, isCustom: boolean): TypeView {
  let v = views.get(t);
  if (!v) views.set(t, (v = isCustom ? new SchemaView(t.schema, true) : new BuiltinView(t.kind, [])));
  return v;
}
