/**
 * The name an export is saved under (issue 23): `<camera name>_<YYYY-MM-DD_HH-MM-SS>_<duration>.mp4`
 * (`.zip` with the manifest), the start as the wall clock of `zone` (docs/exports.md says which).
 */

/** The plane process's own zone: what an export is named in when the user chose none. */
export function planeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** `2026-03-29_03-00-00`: the wall clock of `zone` at `ms`, 24-hour, as a file name may hold it. */
export function wallClock(ms: number, zone: string): string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  }).formatToParts(new Date(ms));
  const f = (type: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === type)?.value ?? '00';
  return `${f('year')}-${f('month')}-${f('day')}_${f('hour')}-${f('minute')}-${f('second')}`;
}

/** `45s`, `5m`, `1m30s`, `1h`, `1h30m`, `2h0m5s` is written `2h5s`: the units that are not zero, largest first. */
export function durationWords(secs: number): string {
  const h = Math.floor(secs / 3600);
  const m = Math.floor((secs % 3600) / 60);
  const s = secs % 60;
  const out = `${h ? `${h}h` : ''}${m ? `${m}m` : ''}${s ? `${s}s` : ''}`;
  return out || '0s';
}

// What no file system or download dialog takes in a name: path separators, the characters Windows
// refuses, controls (C0, DEL, C1) and the bidirectional overrides that make a name read backwards.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\\/:*?"<>|\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;
const NAME_MAX = 100;

/** The camera's name as the file name's first part: unsafe characters as `_`, at most 100 characters, never empty. */
export function safeNamePart(name: string): string {
  const cleaned = [...name.normalize('NFC').replace(UNSAFE, '_').trim()].slice(0, NAME_MAX).join('');
  // A leading dot hides the file on Unix; trailing dots and spaces are dropped by Windows.
  const edged = cleaned.replace(/^\.+/, '_').replace(/[. ]+$/, '');
  return edged || 'camera';
}

export function exportFileName(
  cameraName: string,
  fromMs: number,
  secs: number,
  zone: string,
  ext: 'mp4' | 'zip',
): string {
  return `${safeNamePart(cameraName)}_${wallClock(fromMs, zone)}_${durationWords(secs)}.${ext}`;
}

/**
 * `Content-Disposition: attachment` with the name twice (RFC 6266): `filename*` in UTF-8
 * (RFC 5987, every byte outside attr-char percent-encoded) for browsers, and `filename` in
 * printable ASCII for the rest, each other character as `_` (no quote or backslash to escape).
 */
export function contentDisposition(fileName: string): string {
  const ascii = fileName.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  if (ascii === fileName) return `attachment; filename="${ascii}"`;
  const encoded = encodeURIComponent(fileName).replace(
    /['()*!]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
