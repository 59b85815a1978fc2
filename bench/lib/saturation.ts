// Whether a paced load generator kept the rate it was asked for. A run that could not (the machine too slow
// for the whole stack at that rate) measures the backlog it built, not the pipeline's latency: its figures
// are named so, and a compare never sets them beside a run that kept the rate.

/** Below this share of the asked rate, the sends did not keep up. */
export const MIN_RATE_SHARE = 0.95;
/** Above this share of sends late by more than the lateness bound, the sends did not keep up. */
export const MAX_LATE_SHARE = 0.1;

export interface Pace {
  /** Sends per second asked for. */
  asked: number;
  /** Sends issued. */
  sent: number;
  /** Seconds from the first send's due time to the last send's issue, plus one interval. */
  issueSeconds: number;
  /** Sends issued more than the lateness bound behind their due time. */
  late: number;
}

export interface Saturation {
  /** Sends issued per second. */
  achieved: number;
  /** achieved ÷ asked. */
  rateShare: number;
  /** late ÷ sent. */
  lateShare: number;
  saturated: boolean;
  /** A plain sentence for the log: what was kept, or why the latencies are not latencies. */
  verdict: string;
  /** The same for the table's `rate kept` row: `yes — …` or `NO — …`. */
  row: string;
}

const pct = (x: number): string => `${Math.round(x * 100)} %`;
const perSecond = (x: number): string => `${Math.round(x).toLocaleString('en-US')}/s`;

export function saturation(p: Pace): Saturation {
  const achieved = p.issueSeconds > 0 ? p.sent / p.issueSeconds : 0;
  const rateShare = p.asked > 0 ? achieved / p.asked : 0;
  const lateShare = p.sent > 0 ? p.late / p.sent : 0;
  const saturated = rateShare < MIN_RATE_SHARE || lateShare > MAX_LATE_SHARE;
  const what = `${perSecond(achieved)} of the ${perSecond(p.asked)} asked (${pct(rateShare)}), ${pct(lateShare)} of sends late`;
  const backlog = "the latencies are the backlog's, not the pipeline's (try a lower --rate)";
  const verdict = saturated
    ? `SATURATED: this machine could not keep the rate — ${what}; ${backlog}`
    : `rate kept: ${what}`;
  const row = saturated ? `NO — ${what}; ${backlog}` : `yes — ${what}`;
  return { achieved, rateShare, lateShare, saturated, verdict, row };
}

/** A latency figure's name, marked when the run was saturated (so no compare reads one as the other). */
export function latencyName(figure: string, saturated: boolean): string {
  return saturated ? `${figure} (SATURATED: backlog)` : figure;
}
