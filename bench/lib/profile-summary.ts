// Where a .cpuprofile's samples went, per function: self time (the function on top of the stack) and
// total time (anywhere on it, counted once per sample however often it recurses). Start-up is left out
// by skipping the profile's first milliseconds, idle samples are never counted, and `under` narrows the
// count to the samples taken beneath a given frame (what one call path costs, and what it calls).

/** The parts of V8's .cpuprofile JSON this reads. */
export interface CpuProfile {
  nodes: readonly {
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number };
    children?: readonly number[];
  }[];
  startTime: number;
  samples: readonly number[];
  timeDeltas: readonly number[];
}

export interface SummaryOptions {
  /** Samples in the profile's first this many ms are left out (start-up). Default 0. */
  skipMs?: number;
  /** Only samples with a frame whose label contains this; times are then of the frames above it. */
  under?: string;
}

export interface FunctionTime {
  /** "name file:line", the file shortened to what follows node_modules/, libs/, apps/, tools/ or bench/. */
  label: string;
  /** Microseconds. */
  us: number;
}

export interface ProfileSummary {
  /** Microseconds of the samples counted (not idle, past skipMs, beneath `under` when given). */
  sampledUs: number;
  /** Largest first. */
  self: FunctionTime[];
  total: FunctionTime[];
}

const SHORT_PATH = /^.*?\/(node_modules|libs|apps|tools|bench)\//;

/** A frame's row label (a CPU profile's and a heap profile's frames alike). */
export function labelOf(frame: { functionName: string; url: string; lineNumber: number }): string {
  const file = frame.url.replace(SHORT_PATH, '$1/');
  return `${frame.functionName === '' ? '(anonymous)' : frame.functionName} ${file}:${frame.lineNumber + 1}`;
}

function sorted(times: Map<string, number>): FunctionTime[] {
  return [...times].map(([label, us]) => ({ label, us })).sort((a, b) => b.us - a.us);
}

export function summarize(profile: CpuProfile, options: SummaryOptions = {}): ProfileSummary {
  const label = new Map<number, string>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    label.set(node.id, labelOf(node.callFrame));
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  const skipUs = (options.skipMs ?? 0) * 1000;
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  let sampledUs = 0;
  let at = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const id = profile.samples[i]!;
    if (at < skipUs || idle.has(id)) continue;
    // A sample stands for the time until the next one (the last, for as long as the one before it).
    const us = profile.timeDeltas[i + 1] ?? profile.timeDeltas[i] ?? 0;
    const stack: string[] = [];
    for (let node: number | undefined = id; node !== undefined; node = parent.get(node)) {
      stack.push(label.get(node)!);
    }
    const top =
      options.under === undefined ? stack.length : stack.findIndex((l) => l.includes(options.under!));
    if (top < 0) continue;
    const above = stack.slice(0, top);
    sampledUs += us;
    if (above.length > 0) self.set(above[0]!, (self.get(above[0]!) ?? 0) + us);
    for (const l of new Set(above)) total.set(l, (total.get(l) ?? 0) + us);
  }
  return { sampledUs, self: sorted(self), total: sorted(total) };
}
