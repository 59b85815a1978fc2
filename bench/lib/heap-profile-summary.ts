// Where a .heapprofile's bytes were allocated, per function: self (the function on top of the stack when
// the sampled object was made) and total (anywhere on it, counted once per node however often it recurses).
// With the objects the collector freed included (bench's --alloc-profile), what a process allocates.
import { labelOf } from './profile-summary.ts';

/** The parts of V8's sampling heap profile (HeapProfiler.SamplingHeapProfile) this reads. */
export interface HeapProfile {
  head: HeapNode;
}

export interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  /** Bytes of the samples taken with this node on top, scaled to what they stand for. */
  selfSize: number;
  children: readonly HeapNode[];
}

export interface FunctionBytes {
  /** "name file:line", the file shortened as a CPU profile's summary shortens it. */
  label: string;
  bytes: number;
}

export interface HeapSummary {
  /** Bytes of every sample. */
  bytes: number;
  /** Largest first. */
  self: FunctionBytes[];
  total: FunctionBytes[];
}

export function summarizeHeap(profile: HeapProfile): HeapSummary {
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let bytes = 0;
  // Depth first, with the labels on the path: a function's total takes a subtree once, at its outermost call.
  const walk = (node: HeapNode, onPath: ReadonlySet<string>): number => {
    const label = labelOf(node.callFrame);
    bytes += node.selfSize;
    self.set(label, (self.get(label) ?? 0) + node.selfSize);
    const path = onPath.has(label) ? onPath : new Set([...onPath, label]);
    let sub = node.selfSize;
    for (const child of node.children) sub += walk(child, path);
    if (!onPath.has(label)) total.set(label, (total.get(label) ?? 0) + sub);
    return sub;
  };
  walk(profile.head, new Set());
  const sorted = (m: Map<string, number>): FunctionBytes[] =>
    [...m]
      .filter(([, b]) => b > 0)
      .map(([label, b]) => ({ label, bytes: b }))
      .sort((a, b) => b.bytes - a.bytes);
  return { bytes, self: sorted(self), total: sorted(total) };
}
