// A view of a kind's schema as server-side apply reads it (list and map types, atomic structs); the
// field manager makes them, the type checker walks them to name a bad value's path.
import type { Json } from './types.ts';

export type ListType =
  | { type: 'atomic' }
  | { type: 'set' }
  /** `keys` sorted by name, as a path element writes them. */
  | { type: 'map'; keys: readonly string[]; defaults: Readonly<Record<string, Json>> };

export interface TypeView {
  field(name: string): TypeView;
  item(): TypeView;
  list(): ListType;
  /** Replaced as a whole by an apply (a structType/mapType atomic object). */
  atomic(): boolean;
  /** `name` is a declared field of this object, not a key of a map (so a field set may name it alone). */
  named(name: string): boolean;
  /**
   * A built-in's field that the zero value of its Go type already has (`spec`, a pod template): a write
   * that fills it in does not own the field itself, only what it put under it.
   */
  inZeroValue(): boolean;
}
