// Server-rendered pages: the layout they share, the PodSet overview, the login form and the error
// page. Every dynamic value is escaped.
import type { EventLogEntry } from '@podset/event-log';
import { failingCondition } from '@podset/reconcile';
import { isFiltered, NO_FILTER, stateOf, STATUSES, type OverviewFilter } from './filter.ts';
import type { LeaderInfo } from './leader.ts';
import type { Overview, PodSetRow } from './overview.ts';

export function escapeHtml(s: string): string {
  return s
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&#39;');
}

const STYLE = `
:root { color-scheme: light; --fg:#1d2330; --muted:#5f6b7a; --line:#e3e7ee; --ok:#1a7f37; --warn:#9a6700; --bad:#cf222e; --accent:#3b5bdb; }
* { box-sizing: border-box; }
body { margin:0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color:var(--fg); background:#f6f8fb; }
header { display:flex; align-items:center; gap:24px; padding:12px 24px; background:#1d2330; color:#fff; }
header h1 { font-size:16px; margin:0; font-weight:600; }
header nav a { color:#cfd8ff; text-decoration:none; margin-right:16px; }
header nav a:hover { color:#fff; }
header .mode { margin-left:auto; font-size:12px; font-weight:600; color:#1d2330; background:#ffd8a8; border-radius:10px; padding:1px 10px; }
header .mode.writes { background:#ffc9c9; }
header form { margin:0; }
header button { background:none; border:1px solid #56607a; color:#cfd8ff; border-radius:4px; padding:2px 8px; cursor:pointer; }
main { padding:20px 24px; }
.counts { display:flex; gap:10px; flex-wrap:wrap; margin-bottom:16px; }
.count { background:#fff; border:1px solid var(--line); border-radius:6px; padding:6px 12px; }
.count b { font-size:18px; display:block; }
.count span { color:var(--muted); font-size:12px; }
table { border-collapse:collapse; width:100%; background:#fff; border:1px solid var(--line); border-radius:6px; }
th, td { text-align:left; padding:8px 10px; border-bottom:1px solid var(--line); vertical-align:top; }
th { font-size:12px; color:var(--muted); font-weight:600; text-transform:uppercase; letter-spacing:.03em; background:#fafbfd; }
td.num { text-align:right; font-variant-numeric: tabular-nums; }
.badge { display:inline-block; padding:1px 8px; border-radius:10px; font-size:12px; font-weight:600; }
.b-completed, .b-ok { background:#dafbe1; color:var(--ok); }
.b-retry, .b-progress { background:#fff8c5; color:var(--warn); }
.b-failed, .b-bad { background:#ffebe9; color:var(--bad); }
.b-neutral { background:#eef1f5; color:var(--fg); }
.muted { color:var(--muted); }
.err { color:var(--bad); max-width:320px; overflow-wrap:anywhere; }
.events { margin:0; padding:0; list-style:none; font-size:12px; color:var(--muted); }
/* Names run to 63 characters (a pod's, a job id's longer still): break them rather than widen the page. */
.wrap, a.podset, .events li, h1, p, .facts dd { overflow-wrap:anywhere; }
.nowrap { white-space:nowrap; }
code { font-size:12px; }
.alert { background:#ffebe9; border:1px solid #ffcecb; color:var(--bad); padding:8px 12px; border-radius:6px; margin-bottom:16px; }
h2 { font-size:15px; margin:24px 0 8px; }
h1.title { font-size:18px; margin:0 0 12px; }
.filter { display:flex; gap:8px; align-items:center; flex-wrap:wrap; margin-bottom:12px; }
.filter input, .filter select { padding:5px 8px; border:1px solid #c9d1dc; border-radius:4px; font:inherit; background:#fff; color:var(--fg); }
.filter input { min-width:320px; }
.filter button { padding:5px 12px; background:var(--accent); color:#fff; border:0; border-radius:4px; font:inherit; cursor:pointer; }
.leader { background:#fff; border:1px solid var(--line); border-radius:6px; padding:6px 12px; margin-bottom:16px; }
.facts { display:grid; grid-template-columns:max-content 1fr; gap:4px 16px; background:#fff; border:1px solid var(--line); border-radius:6px; padding:10px 14px; margin:0; }
.facts dt { color:var(--muted); }
.facts dd { margin:0; }
.msg { max-width:560px; overflow-wrap:anywhere; }
a { color:var(--accent); }
.login { max-width:360px; margin:80px auto; background:#fff; border:1px solid var(--line); border-radius:8px; padding:24px; }
.login h1 { font-size:18px; margin:0 0 16px; }
.login label { display:block; margin:10px 0 4px; color:var(--muted); }
.login input { width:100%; padding:6px 8px; border:1px solid #c9d1dc; border-radius:4px; font:inherit; }
.login button { margin-top:16px; width:100%; padding:8px; background:var(--accent); color:#fff; border:0; border-radius:4px; font:inherit; cursor:pointer; }
.login .or { text-align:center; color:var(--muted); margin:14px 0 0; }
`;

export function page(title: string, body: string, opts: { refreshSeconds?: number } = {}): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
${opts.refreshSeconds !== undefined ? `<meta http-equiv="refresh" content="${opts.refreshSeconds}">` : ''}
<title>${escapeHtml(title)}</title><style>${STYLE}</style></head>
<body>${body}</body></html>`;
}

export function ago(ms: number, now: number): string {
  const s = Math.max(0, Math.round((now - ms) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s ago`;
  if (s < 86400) return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m ago`;
  return `${Math.floor(s / 86400)}d ago`;
}

export function duration(ms: number | undefined): string {
  if (ms === undefined) return '';
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}

export interface PageContext {
  /** bull-board's base path, e.g. "/queues". */
  boardPath: string;
  queueName: string;
  readOnly: boolean;
  /** Whether a logout button makes sense (cookie login). */
  cookieSession: boolean;
}

export function jobUrl(ctx: PageContext, jobId: string): string {
  return `${ctx.boardPath}/queue/${encodeURIComponent(ctx.queueName)}/${encodeURIComponent(jobId)}`;
}

export function headerHtml(ctx: PageContext): string {
  return `<header><h1>PodSet operator</h1><nav>
<a href="/">PodSets</a><a href="${escapeHtml(ctx.boardPath)}/queue/${encodeURIComponent(ctx.queueName)}">Queue</a><a href="/metrics">Metrics</a>
</nav><span class="mode${ctx.readOnly ? '' : ' writes'}" data-role="mode">${ctx.readOnly ? 'read-only' : 'writes allowed'}</span>
${ctx.cookieSession ? '<form method="post" action="/logout"><button type="submit">Log out</button></form>' : ''}</header>`;
}

export function eventText(e: EventLogEntry): string {
  const bits = [e.type, `${e.kind} ${e.name}`];
  if (e.phase !== undefined) bits.push(e.phase);
  if (e.ready === 'true') bits.push('ready');
  if (e.deleting === 'true') bits.push('deleting');
  if (e.n !== undefined) bits.push(`n=${e.n}`);
  return bits.join(' · ');
}

export function timeOf(e: EventLogEntry): number {
  const t = Date.parse(e.t);
  return Number.isNaN(t) ? 0 : t;
}

/** The PodSet's own page. */
export function podSetUrl(namespace: string, name: string): string {
  return `/podsets/${encodeURIComponent(namespace)}/${encodeURIComponent(name)}`;
}

/** Failing (with why, on hover), converged, progressing or rolling out (with its progress). */
export function stateHtml(r: PodSetRow): string {
  const state = stateOf(r);
  if (state === 'converged') return '<span class="badge b-ok" data-state="converged">converged</span>';
  const progress =
    r.rollout === undefined
      ? ''
      : ` <progress data-role="rollout-progress" max="${r.desired}" value="${Math.min(r.updated, r.desired)}"></progress> <span class="muted" data-role="rollout-text">${r.updated}/${r.desired} updated · ${r.available} available</span>`;
  if (state === 'failing') {
    const c = failingCondition(r.conditions);
    const why = c !== undefined ? `${c.reason ?? c.type}: ${c.message ?? ''}` : (r.lastError?.message ?? '');
    return `<span class="badge b-bad" data-state="failing" title="${escapeHtml(why.slice(0, 500))}">failing</span>${progress}`;
  }
  if (state === 'rolling-out') {
    return `<span class="badge b-progress" data-state="rolling-out" data-role="rollout" title="${escapeHtml(r.rollout ?? '')}">rolling out</span>${progress}`;
  }
  return '<span class="badge b-progress" data-state="progressing">progressing</span>';
}

export function lastReconcileHtml(r: PodSetRow, now: number): string {
  const lr = r.lastReconcile;
  return lr === undefined
    ? '<span class="muted">none recorded</span>'
    : `<span class="badge b-${lr.result}">${lr.result}</span> <span title="${new Date(lr.at).toISOString()}">${ago(lr.at, now)}</span>` +
        (lr.durationMs !== undefined ? ` <span class="muted">in ${duration(lr.durationMs)}</span>` : '') +
        (lr.attempt > 1 ? ` <span class="muted">attempt ${lr.attempt}</span>` : '') +
        (lr.requeueAfterMs !== undefined
          ? ` <span class="muted">requeue ${duration(lr.requeueAfterMs)}</span>`
          : '');
}

function row(r: PodSetRow, ctx: PageContext, now: number): string {
  const last = lastReconcileHtml(r, now);
  const err =
    r.lastError === undefined
      ? '<span class="muted">—</span>'
      : `<div class="err">${escapeHtml(r.lastError.message.slice(0, 300))}</div><span class="muted" title="${new Date(r.lastError.at).toISOString()}">${ago(r.lastError.at, now)}</span>`;
  const job =
    r.job === undefined
      ? '<span class="muted">—</span>'
      : `<a href="${escapeHtml(jobUrl(ctx, r.job.id))}">${escapeHtml(r.job.state)}</a>`;
  const events =
    r.events.length === 0
      ? '<span class="muted">—</span>'
      : `<ul class="events">${r.events
          .map(
            (e) =>
              `<li title="${escapeHtml(e.t)} rv ${escapeHtml(e.rv)}">${ago(timeOf(e), now)} · ${escapeHtml(eventText(e))}</li>`,
          )
          .join('')}</ul>`;
  return `<tr data-key="${escapeHtml(r.key)}">
<td><a class="podset" href="${escapeHtml(podSetUrl(r.namespace, r.name))}" title="${escapeHtml(r.key)}"><span class="muted">${escapeHtml(r.namespace)}/</span><b>${escapeHtml(r.name)}</b></a> ${stateHtml(r)}</td>
<td class="num" data-col="desired">${r.desired}</td><td class="num" data-col="current">${r.current}</td><td class="num" data-col="ready">${r.ready}</td><td class="num" data-col="updated">${r.updated}</td><td class="num" data-col="available">${r.available}</td>
<td>${last}</td><td>${err}</td><td>${job}</td><td>${events}</td></tr>`;
}

/** The watcher's leadership, from its Lease. */
export function leaderHtml(l: LeaderInfo | undefined, now: number): string {
  if (l === undefined) return '';
  const lease = `<span class="muted">· Lease <code>${escapeHtml(l.lease)}</code></span>`;
  const renewed =
    l.renewedAt === undefined
      ? ''
      : ` <span class="muted" title="${new Date(l.renewedAt).toISOString()}">renewed ${ago(l.renewedAt, now)}</span>`;
  const transitions =
    l.transitions === undefined
      ? ''
      : ` <span class="muted">· ${l.transitions} leader change${l.transitions === 1 ? '' : 's'}</span>`;
  let text: string;
  if (l.state === 'leading') {
    text = `Watcher leader: <b data-role="leader-holder">${escapeHtml(l.holder ?? '')}</b>${renewed}${transitions}`;
  } else if (l.state === 'expired') {
    text = `<span class="badge b-bad">no leader</span> the Lease of <b data-role="leader-holder">${escapeHtml(l.holder ?? '')}</b> expired:${renewed} — a standby takes over, or no watcher runs`;
  } else if (l.state === 'released') {
    text = `<span class="badge b-bad">no leader</span> the Lease was released${renewed} — a watcher is shutting down or none runs`;
  } else {
    text = '<span class="badge b-bad">no leader</span> the Lease does not exist: no watcher has run yet';
  }
  return `<div class="leader" data-role="leader" data-state="${l.state}">${text} ${lease}</div>`;
}

function filterForm(f: OverviewFilter, namespaces: readonly string[], shown: number, total: number): string {
  const option = (value: string, label: string, selected: string) =>
    `<option value="${escapeHtml(value)}"${value === selected ? ' selected' : ''}>${escapeHtml(label)}</option>`;
  const nsList = [...new Set([...namespaces, ...(f.namespace !== '' ? [f.namespace] : [])])].sort();
  return `<form class="filter" method="get" action="/" role="search">
<input type="search" id="q" name="q" value="${escapeHtml(f.q)}" placeholder="namespace/name or status words" aria-label="Search PodSets">
<select id="filter-namespace" name="namespace" aria-label="Namespace">${option('', 'all namespaces', f.namespace)}${nsList.map((n) => option(n, n, f.namespace)).join('')}</select>
<select id="filter-status" name="status" aria-label="Status">${option('', 'any status', f.status)}${STATUSES.map((s) => option(s, s, f.status)).join('')}</select>
<button type="submit">Filter</button>${isFiltered(f) ? ' <a href="/" data-role="clear-filter">clear</a>' : ''}
<span class="muted" data-role="shown">${isFiltered(f) ? `${shown} of ${total} PodSets` : `${total} PodSet${total === 1 ? '' : 's'}`}</span></form>`;
}

export interface OverviewView {
  filter: OverviewFilter;
  /** PodSets before filtering (o.podSets holds the filtered ones). */
  total: number;
  /** Every namespace with a PodSet, for the filter's choice. */
  namespaces: readonly string[];
}

export function overviewPage(o: Overview, ctx: PageContext, view?: OverviewView): string {
  const now = o.generatedAt;
  const v = view ?? {
    filter: NO_FILTER,
    total: o.podSets.length,
    namespaces: [...new Set(o.podSets.map((r) => r.namespace))],
  };
  const countOrder = ['active', 'waiting', 'prioritized', 'delayed', 'failed', 'completed'];
  const counts = countOrder
    .map(
      (s) =>
        `<a class="count" style="text-decoration:none;color:inherit" href="${escapeHtml(ctx.boardPath)}/queue/${encodeURIComponent(ctx.queueName)}?status=${s}"><b>${o.counts[s] ?? '–'}</b><span>${s}</span></a>`,
    )
    .join('');
  const alerts = o.errors.map((e) => `<div class="alert">Could not read ${escapeHtml(e)}</div>`).join('');
  const rows =
    o.podSets.length === 0
      ? `<tr><td colspan="10" class="muted">${isFiltered(v.filter) ? 'No PodSet matches the filter.' : 'No PodSets.'}</td></tr>`
      : o.podSets.map((r) => row(r, ctx, now)).join('');
  const recent =
    o.recentEvents.length === 0
      ? '<p class="muted">The event log is empty.</p>'
      : `<table><thead><tr><th>When</th><th>Event</th><th>PodSet</th><th>resourceVersion</th></tr></thead><tbody>${o.recentEvents
          .map(
            (e) =>
              `<tr><td class="nowrap" title="${escapeHtml(e.t)}">${ago(timeOf(e), now)}</td><td class="wrap">${escapeHtml(eventText(e))}</td><td class="wrap">${escapeHtml(e.key)}</td><td><code>${escapeHtml(e.rv)}</code></td></tr>`,
          )
          .join('')}</tbody></table>`;
  const orphans =
    o.orphanKeys.length === 0
      ? ''
      : `<p class="muted">Jobs for keys without a PodSet: ${o.orphanKeys.map(escapeHtml).join(', ')}</p>`;
  const body = `${headerHtml(ctx)}<main>${alerts}
<div class="counts" aria-label="queue ${escapeHtml(ctx.queueName)}">${counts}<span class="count"><b>${escapeHtml(ctx.queueName)}</b><span>queue</span></span></div>
${leaderHtml(o.leader, now)}
${filterForm(v.filter, v.namespaces, o.podSets.length, v.total)}
<table id="podsets"><thead><tr><th>PodSet</th><th>Desired</th><th>Current</th><th>Ready</th><th>Up-to-date</th><th>Available</th><th>Last reconcile</th><th>Last error</th><th>Job</th><th>Recent events</th></tr></thead>
<tbody>${rows}</tbody></table>${orphans}
<h2>Recent watch events</h2>${recent}
<p class="muted">Generated ${new Date(now).toISOString()} · refreshes every 10 s</p></main>`;
  return page('PodSets · podset-operator', body, { refreshSeconds: 10 });
}

/**
 * bull-board's page with a link back to the overview that is always in view (bull-board's own misc
 * links sit in a closed menu). Plain HTML and inline style: no script of ours runs in bull-board's page.
 */
export function withOverviewLink(boardHtml: string): string {
  const link =
    '<a href="/" id="podset-overview-link" style="position:fixed;left:12px;bottom:52px;z-index:1000;padding:6px 12px;border-radius:6px;background:#1d2330;color:#ffffff;font:600 13px/1.2 system-ui,sans-serif;text-decoration:none;box-shadow:0 1px 4px rgba(0,0,0,.3)">← PodSet overview</a>';
  const at = boardHtml.lastIndexOf('</body>');
  return at < 0 ? boardHtml + link : boardHtml.slice(0, at) + link + boardHtml.slice(at);
}

/**
 * bull-board's page without its stylesheets from other sites (its web fonts from Google): the CSP allows
 * only our own origin, and the dashboard should not make its users' browsers call out (it falls back to
 * system fonts).
 */
export function withoutThirdPartyLinks(boardHtml: string): string {
  return boardHtml.replace(/<link\b[^>]*\bhref="(?:https?:)?\/\/[^"]*"[^>]*>/gi, '');
}

/** A page for a request that can't be answered (400, 404): says what was wrong, links back. */
export function messagePage(ctx: PageContext, title: string, text: string): string {
  const body = `${headerHtml(ctx)}<main><h1 class="title">${escapeHtml(title)}</h1>
<p class="msg" data-role="message">${escapeHtml(text)}</p><p><a href="/">Back to the PodSet overview</a></p></main>`;
  return page(`${title} · podset-operator`, body);
}

export function loginPage(opts: { token: boolean; basic: boolean; next: string; failed: boolean }): string {
  const fields: string[] = [];
  if (opts.token) {
    fields.push(
      `<label for="token">Token</label><input id="token" name="token" type="password" autocomplete="current-password" autofocus>`,
    );
  }
  if (opts.token && opts.basic) fields.push('<p class="or">or</p>');
  if (opts.basic) {
    fields.push(
      `<label for="user">User</label><input id="user" name="user" autocomplete="username"${opts.token ? '' : ' autofocus'}>`,
      `<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password">`,
    );
  }
  const body = `<form class="login" method="post" action="/login">
<h1>PodSet dashboard</h1>
${opts.failed ? '<div class="alert">Wrong credentials.</div>' : '<p class="muted">Authentication required.</p>'}
<input type="hidden" name="next" value="${escapeHtml(opts.next)}">
${fields.join('\n')}
<button type="submit">Log in</button></form>`;
  return page('Log in · podset-operator', body);
}
