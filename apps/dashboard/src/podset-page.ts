// The page of one PodSet: what an on-call person checks first — is it converged, what do its
// conditions say, which Warning Events did the worker record, how did its recent reconciles go and
// which watch events led to them. Every dynamic value is escaped.
import {
  ago,
  duration,
  escapeHtml,
  eventText,
  headerHtml,
  jobUrl,
  lastReconcileHtml,
  page,
  stateHtml,
  timeOf,
  type PageContext,
} from './html.ts';
import type { PodView } from './pods.ts';
import type { JobView, PodSetDetail } from './podset.ts';

function when(ms: number | undefined, now: number): string {
  if (ms === undefined) return '<span class="muted">—</span>';
  return `<span title="${new Date(ms).toISOString()}">${ago(ms, now)}</span>`;
}

function isoWhen(iso: string | undefined, now: number): string {
  const t = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isNaN(t) ? '<span class="muted">—</span>' : when(t, now);
}

function section(title: string, id: string, empty: string, head: string[], rows: string[]): string {
  const table =
    rows.length === 0
      ? `<p class="muted" data-role="empty">${escapeHtml(empty)}</p>`
      : `<table><thead><tr>${head.map((h) => `<th>${escapeHtml(h)}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table>`;
  return `<section id="${id}"><h2>${escapeHtml(title)}</h2>${table}</section>`;
}

function conditionBadge(type: string, status: string): string {
  // Available=True is good and ReplicaFailure=True bad; Progressing stays True once done, as a
  // Deployment's, so False means stalled (its progress deadline passed) or a spec it cannot act on.
  const good: Record<string, string> = { Available: 'True', Progressing: 'True', ReplicaFailure: 'False' };
  const want = good[type];
  const cls = want === undefined || status === 'Unknown' ? 'b-neutral' : status === want ? 'b-ok' : 'b-bad';
  return `<span class="badge ${cls}">${escapeHtml(status)}</span>`;
}

function jobRow(j: JobView, ctx: PageContext, now: number): string {
  const state = j.state === 'completed' ? 'b-completed' : j.state === 'failed' ? 'b-failed' : 'b-progress';
  const outcome = [
    j.failedReason !== undefined ? `<div class="err">${escapeHtml(j.failedReason.slice(0, 500))}</div>` : '',
    j.requeueAfterMs !== undefined ? `<span class="muted">requeue ${duration(j.requeueAfterMs)}</span>` : '',
  ].join('');
  return `<tr data-job="${escapeHtml(j.id)}"><td><span class="badge ${state}">${escapeHtml(j.state)}</span></td>
<td>${when(j.finishedAt ?? j.startedAt ?? j.addedAt, now)}</td>
<td class="num">${j.durationMs !== undefined ? duration(j.durationMs) : ''}</td>
<td class="num">${j.attempts}</td>
<td>${escapeHtml(j.source ?? '')}</td>
<td class="wrap">${escapeHtml(j.reasons.join(', '))}</td>
<td>${outcome || '<span class="muted">—</span>'}</td>
<td class="wrap"><a href="${escapeHtml(jobUrl(ctx, j.id))}"><code>${escapeHtml(j.id)}</code></a></td></tr>`;
}

function podRow(p: PodView, currentHash: string, now: number): string {
  const phase =
    p.phase === 'Running' ? 'b-ok' : p.phase === 'Failed' || p.phase === 'Unknown' ? 'b-bad' : 'b-neutral';
  const hash =
    p.templateHash === undefined
      ? '<span class="muted">—</span>'
      : `<code>${escapeHtml(p.templateHash)}</code>${p.templateHash === currentHash ? '' : ' <span class="muted">(old)</span>'}`;
  return `<tr data-pod="${escapeHtml(p.name)}"><td class="wrap"><code>${escapeHtml(p.name)}</code></td>
<td><span class="badge ${phase}">${escapeHtml(p.phase)}</span></td>
<td>${p.ready ? '<span class="badge b-ok">ready</span>' : '<span class="muted">not ready</span>'}</td>
<td>${isoWhen(p.createdAt, now)}</td>
<td>${p.node !== undefined ? escapeHtml(p.node) : '<span class="muted">not scheduled</span>'}</td>
<td>${hash}</td></tr>`;
}

export function podSetPage(d: PodSetDetail, ctx: PageContext): string {
  const now = d.generatedAt;
  const alerts = d.errors.map((e) => `<div class="alert">Could not read ${escapeHtml(e)}</div>`).join('');
  const ps = d.podSet;
  const missing = d.notFound
    ? `<div class="alert" data-role="not-found">No PodSet ${escapeHtml(d.key)} in the API${
        d.jobs.length + d.events.length > 0
          ? ' (deleted?) — what the queue and the event log still hold is below'
          : ''
      }.</div>`
    : '';
  const summary =
    ps === undefined
      ? ''
      : `<dl class="facts" id="summary">
<dt>State</dt><dd>${stateHtml(ps)}</dd>
<dt>Replicas</dt><dd data-role="replicas">${ps.desired} desired · ${ps.current} current · ${ps.ready} ready · ${ps.updated} up-to-date · ${ps.available} available</dd>
<dt>Generation</dt><dd>${ps.generation ?? '—'} <span class="muted">(observed ${ps.observedGeneration ?? '—'})</span></dd>
<dt>Last reconcile</dt><dd>${lastReconcileHtml(ps, now)}</dd>
<dt>Last error</dt><dd>${
          ps.lastError === undefined
            ? '<span class="muted">—</span>'
            : `<div class="err">${escapeHtml(ps.lastError.message.slice(0, 500))}</div>${when(ps.lastError.at, now)}`
        }</dd>
<dt>Image${ps.images.length === 1 ? '' : 's'}</dt><dd data-role="images">${ps.images.map((i) => `<code>${escapeHtml(i)}</code>`).join(', ') || '<span class="muted">—</span>'}</dd>
<dt>Strategy</dt><dd data-role="strategy">${escapeHtml(ps.strategy)} <span class="muted">· template hash <code>${escapeHtml(ps.templateHash)}</code></span></dd>
<dt>Created</dt><dd>${isoWhen(ps.createdAt, now)}${ps.uid !== undefined ? ` <span class="muted">uid <code>${escapeHtml(ps.uid)}</code></span>` : ''}</dd>
</dl>`;
  const conditions =
    ps === undefined
      ? ''
      : section(
          'Conditions',
          'conditions',
          'No conditions yet (the worker has not written a status).',
          ['Type', 'Status', 'Reason', 'Message', 'Last transition'],
          ps.conditions.map(
            (c) =>
              `<tr data-condition="${escapeHtml(c.type)}"><td><b>${escapeHtml(c.type)}</b></td><td>${conditionBadge(c.type, c.status)}</td><td>${escapeHtml(c.reason ?? '')}</td><td class="msg">${escapeHtml(c.message ?? '')}</td><td>${isoWhen(c.lastTransitionTime, now)}</td></tr>`,
          ),
        );
  const pods =
    ps === undefined
      ? ''
      : section(
          d.podCount > d.pods.length ? `Pods (${d.pods.length} of ${d.podCount})` : `Pods (${d.podCount})`,
          'pods',
          'No pods (its own: those whose controller is this PodSet).',
          ['Name', 'Phase', 'Ready', 'Age', 'Node', 'Template hash'],
          d.pods.map((p) => podRow(p, ps.templateHash, now)),
        );
  const warnings = section(
    'Warning Events',
    'warnings',
    'No Warning Events (Kubernetes keeps Events for about an hour).',
    ['Last seen', 'Reason', 'Message', 'Count', 'First seen', 'From'],
    d.warnings.map(
      (w) =>
        `<tr><td>${when(w.lastAt, now)}</td><td><span class="badge b-bad">${escapeHtml(w.reason)}</span></td><td class="msg">${escapeHtml(w.message)}</td><td class="num">${w.count}</td><td>${when(w.firstAt, now)}</td><td>${escapeHtml(w.source ?? '')}</td></tr>`,
    ),
  );
  const jobs = section(
    'Reconciles',
    'jobs',
    'No jobs for this PodSet in the queue (finished ones are kept for a while, then removed).',
    ['State', 'When', 'Took', 'Attempts', 'Source', 'Requested for', 'Outcome', 'Job'],
    d.jobs.map((j) => jobRow(j, ctx, now)),
  );
  const events = section(
    'Watch events',
    'events',
    'No entries for this PodSet in the event log.',
    ['When', 'Event', 'resourceVersion'],
    d.events.map(
      (e) =>
        `<tr><td title="${escapeHtml(e.t)}">${ago(timeOf(e), now)}</td><td class="wrap">${escapeHtml(eventText(e))}</td><td><code>${escapeHtml(e.rv)}</code></td></tr>`,
    ),
  );
  const body = `${headerHtml(ctx)}<main>${alerts}
<p><a href="/" data-role="back">← All PodSets</a></p>
<h1 class="title">PodSet <span class="muted">${escapeHtml(d.namespace)}/</span>${escapeHtml(d.name)}</h1>
${missing}${summary}${conditions}${pods}${warnings}${jobs}${events}
<p class="muted">Generated ${new Date(now).toISOString()} · refreshes every 10 s</p></main>`;
  return page(`${d.key} · PodSet · podset-operator`, body, { refreshSeconds: 10 });
}
