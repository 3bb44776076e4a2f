/**
 * How the notification pages say rules, channels and deliveries in words (issue 24): pure, so
 * that the words are tested apart from the pages.
 */

export const SEVERITIES = ['debug', 'info', 'warning', 'error', 'critical'] as const;
export const DAY_NAMES = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const;

export const severityName = (n: number) => SEVERITIES[n] ?? String(n);

/** A comma- or line-separated list as typed: trimmed, empty items dropped, each once. */
export function listOf(text: string): string[] {
  return [
    ...new Set(
      text
        .split(/[,\n]/)
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
}

export interface MatchLike {
  detectors: string[];
  severity_min: number;
  camera_ids: string[];
  tag_ids: string[];
  categories: string[];
  open_only: boolean;
}

const count = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** What a rule sends, in one line: "warning or above; detectors motion.*; on Gate, Yard; open intervals only". */
export function matchSummary(m: MatchLike, cameraName: (id: string) => string | undefined): string {
  const parts = [m.severity_min > 0 ? `${severityName(m.severity_min)} or above` : 'any severity'];
  if (m.detectors.length) parts.push(`detectors ${m.detectors.join(', ')}`);
  if (m.categories.length) parts.push(`categories ${m.categories.join(', ')}`);
  if (m.camera_ids.length) {
    const names = m.camera_ids.map((id) => cameraName(id)).filter((n): n is string => !!n);
    parts.push(
      names.length === m.camera_ids.length ? `on ${names.join(', ')}` : `on ${count(m.camera_ids.length, 'camera')}`,
    );
  }
  if (m.tag_ids.length) parts.push(`cameras with ${count(m.tag_ids.length, 'tag')}`);
  if (m.open_only) parts.push('open intervals only');
  return parts.join('; ');
}

/** Days as ranges of their names: [1,2,3,4,5] "Mon–Fri", [1,3,6,7] "Mon, Wed, Sat–Sun". */
export function daysText(days: readonly number[]): string {
  const sorted = [...new Set(days)].filter((d) => d >= 1 && d <= 7).sort((a, b) => a - b);
  if (sorted.length === 7) return 'every day';
  const runs: number[][] = [];
  for (const d of sorted) {
    const last = runs[runs.length - 1];
    if (last && last[last.length - 1] === d - 1) last.push(d);
    else runs.push([d]);
  }
  return runs
    .map((r) =>
      r.length > 2
        ? `${DAY_NAMES[r[0]! - 1]}–${DAY_NAMES[r[r.length - 1]! - 1]}`
        : r.map((d) => DAY_NAMES[d - 1]).join(', '),
    )
    .join(', ');
}

export interface ScheduleLike {
  timezone: string;
  windows: Array<{ days: number[]; from: string; to: string }>;
}

/** "always", or each window "Mon–Fri 18:00–07:00" and the zone. */
export function scheduleSummary(s: ScheduleLike | null): string {
  if (!s) return 'always';
  return `${s.windows.map((w) => `${daysText(w.days)} ${w.from}–${w.to}`).join('; ')} (${s.timezone})`;
}

export function cooldownText(secs: number): string {
  if (secs === 0) return 'none';
  if (secs % 3600 === 0) return count(secs / 3600, 'hour');
  if (secs % 60 === 0) return count(secs / 60, 'minute');
  return count(secs, 'second');
}

export interface ChannelLike {
  kind: string;
  url?: string;
  to?: string[];
  topic?: string;
}

/** Where a channel sends: its URL, its recipients, or its broker and topic. */
export function channelTarget(c: ChannelLike): string {
  if (c.kind === 'email') return (c.to ?? []).join(', ');
  if (c.kind === 'mqtt') return `${c.url ?? ''} ${c.topic ?? ''}`.trim();
  return c.url ?? '';
}

export const KIND_NAMES: Record<string, string> = { webhook: 'Webhook', email: 'E-mail', mqtt: 'MQTT' };

/** A test message's outcome in words, from the delivery the plane answers. */
export function testOutcome(d: { state: string; last_error: string | null }): string {
  if (d.state === 'sent') return 'The test message was delivered.';
  return `The test message was not delivered: ${d.last_error ?? 'the receiver refused it'}.`;
}

export const STATE_NAMES: Record<string, string> = {
  pending: 'waiting',
  sent: 'sent',
  failed: 'failed, will retry',
  dead: 'gave up',
};
