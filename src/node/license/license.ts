import { createPublicKey, verify } from 'node:crypto';

/** `{config_dir}/license.json` (document 4 section 8). */
export interface LicenseFile {
  licensee: string;
  expires: string;
  updates_until: string;
  nodes: number;
  signature: string;
}

export type LicenseState = 'ok' | 'grace' | 'unlicensed';

export interface LicenseStatus {
  /** null: no licence file, no licence signal, the node serves. */
  state: LicenseState | null;
  licensee?: string;
  expires?: string;
  updates_until?: string;
  nodes?: number;
  grace_until?: string;
  /** Why media is refused, when it is. */
  refusal?: { reason: 'license_does_not_cover_build' | 'license_expired' | 'license_invalid'; message: string };
}

export const GRACE_DAYS = 14;
const DAY_MS = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The bytes the signature covers: the four fields, in this order, as compact JSON. */
export function signedPayload(lic: Omit<LicenseFile, 'signature'>): Buffer {
  return Buffer.from(
    JSON.stringify({
      licensee: lic.licensee,
      expires: lic.expires,
      updates_until: lic.updates_until,
      nodes: lic.nodes,
    }),
    'utf8',
  );
}

function validDate(s: unknown): s is string {
  return typeof s === 'string' && DATE.test(s) && !Number.isNaN(Date.parse(`${s}T00:00:00Z`));
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

function parseLicense(text: string): LicenseFile | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof v !== 'object' || v === null) return null;
  const o = v as Record<string, unknown>;
  if (typeof o.licensee !== 'string' || !validDate(o.expires) || typeof o.signature !== 'string') return null;
  if (o.updates_until !== 'unlimited' && !validDate(o.updates_until)) return null;
  if (typeof o.nodes !== 'number' || !Number.isInteger(o.nodes) || o.nodes < 1) return null;
  return {
    licensee: o.licensee,
    expires: o.expires,
    updates_until: o.updates_until as string,
    nodes: o.nodes,
    signature: o.signature,
  };
}

function signedByTrustedKey(lic: LicenseFile, keys: string[]): boolean {
  const sig = Buffer.from(lic.signature, 'base64');
  return keys.some((raw) => {
    try {
      const key = createPublicKey({
        key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(raw, 'base64').toString('base64url') },
        format: 'jwk',
      });
      return verify(null, signedPayload(lic), key, sig);
    } catch {
      return false;
    }
  });
}

/**
 * Pure evaluation of a licence file against the build and the clock. Dates are whole UTC days:
 * `expires` is the last valid day, then GRACE_DAYS of grace follow.
 */
export function evaluateLicense(
  text: string | null,
  opts: { now: number; buildDate: string; keys: string[] },
): LicenseStatus {
  if (text === null) return { state: null };
  const lic = parseLicense(text);
  if (!lic || !signedByTrustedKey(lic, opts.keys)) {
    return {
      state: 'unlicensed',
      refusal: {
        reason: 'license_invalid',
        message: 'the licence file is malformed or not signed by a key this build trusts',
      },
    };
  }
  const base = { licensee: lic.licensee, expires: lic.expires, updates_until: lic.updates_until, nodes: lic.nodes };
  if (lic.updates_until !== 'unlimited' && opts.buildDate > lic.updates_until) {
    return {
      ...base,
      state: 'unlicensed',
      refusal: {
        reason: 'license_does_not_cover_build',
        message: `the licence does not cover builds after ${lic.updates_until}`,
      },
    };
  }
  const today = new Date(opts.now).toISOString().slice(0, 10);
  if (today <= lic.expires) return { ...base, state: 'ok' };
  const graceUntil = addDays(lic.expires, GRACE_DAYS);
  if (today <= graceUntil) return { ...base, state: 'grace', grace_until: graceUntil };
  return {
    ...base,
    state: 'unlicensed',
    grace_until: graceUntil,
    refusal: {
      reason: 'license_expired',
      message: `the licence expired on ${lic.expires} and its grace period ended on ${graceUntil}`,
    },
  };
}

/** The licence line of the start-up output and of `--license-status`. */
export function describeLicense(s: LicenseStatus): string {
  switch (s.state) {
    case null:
      return 'license: none (no license file; serving without a licence signal)';
    case 'ok':
      return 'license OK (enforced)';
    case 'grace':
      return `license GRACE: expired ${s.expires}, media stops after ${s.grace_until}`;
    case 'unlicensed':
      return `license UNLICENSED: ${s.refusal?.message ?? 'not valid'}; media requests answer 403`;
  }
}
