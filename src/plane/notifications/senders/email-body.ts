import type { OutgoingMessage } from './sender.js';

// What an e-mail says (document 4 §13): the subject with severity, camera and detector title, a
// plain and an HTML body with the same lines, and the snapshot inline. Every value comes from the
// event (a module names detectors and fields; an administrator names cameras), so the HTML escapes
// each one and only http(s) links become anchors.

const SEVERITY = ['debug', 'info', 'warning', 'error', 'critical'] as const;
/** The content id of the inline snapshot in the HTML body. */
export const SNAPSHOT_CID = 'snapshot@argus';

export function severityWord(n: number): string {
  return SEVERITY[n] ?? `severity ${n}`;
}

/** One line, at most `max` characters, without control characters (a subject or a header value). */
function oneLine(s: string, max: number): string {
  // eslint-disable-next-line no-control-regex
  const flat = s.replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function subjectOf(m: OutgoingMessage): string {
  const s = m.summary;
  const camera = s.cameraName ?? 'no camera';
  return oneLine(`[Argus] ${severityWord(s.severity).toUpperCase()}: ${s.detectorTitle} on ${camera}`, 200);
}

const obj = (v: unknown): Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};

const text = (v: unknown): string | null =>
  v === null || v === undefined || v === ''
    ? null
    : typeof v === 'object'
      ? JSON.stringify(v)
      : String(v as string | number | boolean);

/** The labelled lines of the body, from the payload (webhook JSON of §13) and the summary. */
export function linesOf(m: OutgoingMessage): Array<[label: string, value: string]> {
  const ev = obj(m.payload.event);
  const rule = obj(m.payload.rule);
  const rows: Array<[string, unknown]> = [
    ['Severity', severityWord(m.summary.severity)],
    ['Camera', m.summary.cameraName ?? 'none'],
    ['Detector', m.summary.detectorTitle],
    ['Category', ev.category],
    ['Occurred at', ev.occurred_at],
    ['Ended at', ev.ended_at],
    ['Node', ev.node_name],
    ['Subject', ev.subject_ref],
    ['Confidence', ev.confidence],
    ['Rule', rule.name],
    ['Event', ev.id],
  ];
  return rows.flatMap(([label, v]) => {
    const t = text(v);
    return t === null ? [] : [[label, oneLine(t, 1000)] as [string, string]];
  });
}

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => ESC[c]!);

/** A link the body may offer: http(s) only (a `javascript:` URL from a payload is shown as text, never as an anchor). */
function safeUrl(v: unknown): string | null {
  if (typeof v !== 'string') return null;
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.href : null;
  } catch {
    return null;
  }
}

export function linksOf(m: OutgoingMessage): { card: string | null; snapshot: string | null } {
  return { card: safeUrl(obj(m.payload.event).card_url), snapshot: safeUrl(m.payload.snapshot_url) };
}

export function plainBody(m: OutgoingMessage): string {
  const { card, snapshot } = linksOf(m);
  const lines = linesOf(m).map(([k, v]) => `${k}: ${v}`);
  if (card) lines.push('', `Open the event: ${card}`);
  if (snapshot) lines.push(`Snapshot (link valid 24 h): ${snapshot}`);
  if (m.snapshot) lines.push('', 'The snapshot is attached.');
  lines.push('', `Delivery: ${m.dedupeKey}`);
  return lines.join('\n') + '\n';
}

export function htmlBody(m: OutgoingMessage): string {
  const { card, snapshot } = linksOf(m);
  const rows = linesOf(m)
    .map(
      ([k, v]) =>
        `<tr><th align="left" style="padding:2px 12px 2px 0">${escapeHtml(k)}</th><td>${escapeHtml(v)}</td></tr>`,
    )
    .join('\n');
  const parts = [
    '<!doctype html><html><body style="font-family:sans-serif">',
    `<h2 style="margin:0 0 8px">${escapeHtml(subjectOf(m))}</h2>`,
    `<table>\n${rows}\n</table>`,
  ];
  if (m.snapshot) parts.push(`<p><img src="cid:${SNAPSHOT_CID}" alt="Snapshot" style="max-width:100%"></p>`);
  if (card) parts.push(`<p><a href="${escapeHtml(card)}">Open the event</a></p>`);
  if (snapshot) parts.push(`<p><a href="${escapeHtml(snapshot)}">Snapshot</a> (link valid 24 h)</p>`);
  parts.push(`<p style="color:#777;font-size:small">Delivery ${escapeHtml(m.dedupeKey)}</p>`, '</body></html>');
  return parts.join('\n');
}
