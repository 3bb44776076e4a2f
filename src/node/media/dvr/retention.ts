const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `90s`, `30m`, `12h`, `7d` (already checked by the configuration) in milliseconds. */
export function retentionMs(retention: string): number {
  const m = /^([1-9][0-9]*)([smhd])$/.exec(retention);
  if (!m) throw new Error(`invalid retention "${retention}"`);
  return Number(m[1]) * UNIT_MS[m[2]];
}
