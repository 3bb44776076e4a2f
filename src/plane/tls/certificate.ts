// @peculiar/x509 resolves its parts through tsyringe, which needs the Reflect metadata API first.
import 'reflect-metadata';
import { X509Certificate, webcrypto } from 'node:crypto';
import { isIP } from 'node:net';
import * as x509 from '@peculiar/x509';
import { RENEWAL_WINDOW_DAYS, type CertificateDescription } from './tls.types.js';

const DAY = 86_400_000;
/** A generated certificate lives this long; it is replaced 30 days before its end. */
const SELF_SIGNED_DAYS = 365;

/** A key pair and a certificate for `hosts` (DNS names and IP addresses), signed by itself; PEM text. */
export async function selfSigned(hosts: string[], nowMs: number): Promise<{ cert: string; key: string }> {
  const keys = (await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, [
    'sign',
    'verify',
  ])) as webcrypto.CryptoKeyPair;
  const cert = await x509.X509CertificateGenerator.createSelfSigned(
    {
      serialNumber: Buffer.from(webcrypto.getRandomValues(new Uint8Array(16)))
        .toString('hex')
        .replace(/^[89a-f]/, '1'),
      name: `CN=${hosts[0] ?? 'argus-plane'}, O=Argus (self-signed)`,
      notBefore: new Date(nowMs - 60_000),
      notAfter: new Date(nowMs + SELF_SIGNED_DAYS * DAY),
      signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' },
      keys: keys as never,
      extensions: [
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyEncipherment, true),
        new x509.ExtendedKeyUsageExtension(['1.3.6.1.5.5.7.3.1']),
        new x509.SubjectAlternativeNameExtension(
          hosts.map((h) => (isIP(h) ? { type: 'ip' as const, value: h } : { type: 'dns' as const, value: h })),
        ),
      ],
    },
    webcrypto as unknown as Parameters<typeof x509.X509CertificateGenerator.createSelfSigned>[1],
  );
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const key = `-----BEGIN PRIVATE KEY-----\n${pkcs8
    .toString('base64')
    .match(/.{1,64}/g)!
    .join('\n')}\n-----END PRIVATE KEY-----\n`;
  return { cert: cert.toString('pem') + '\n', key };
}

/** The DNS names and IP addresses a certificate names (its subjectAltName). */
export function hostsOf(c: X509Certificate): string[] {
  return (c.subjectAltName ?? '')
    .split(', ')
    .filter(Boolean)
    .map((e) => e.replace(/^(DNS|IP Address):/, ''));
}

/** Whether a certificate still serves `hosts` at `nowMs` without falling due for renewal. */
export function stillGood(pem: string, hosts: string[], nowMs: number): boolean {
  try {
    const c = new X509Certificate(pem);
    const names = hostsOf(c);
    return hosts.every((h) => names.includes(h)) && Date.parse(c.validTo) - RENEWAL_WINDOW_DAYS * DAY > nowMs;
  } catch {
    return false;
  }
}

/** `network.certificate` for a mode, its hosts and the certificate in use (null: none). */
export function describe(
  mode: string,
  hosts: string[],
  pem: string | null,
  nowMs: number,
  temporary = false,
): CertificateDescription {
  const base = {
    mode,
    configured_hosts: hosts,
    automatic_renewal: mode === 'self_signed' || mode === 'acme',
    renewal_window_days: RENEWAL_WINDOW_DAYS,
    temporary_self_signed: temporary,
  };
  if (!pem)
    return {
      ...base,
      status_hint:
        mode === 'off' || mode === 'external' ? 'no certificate: the plane serves plain HTTP' : 'no certificate loaded',
      certificate: null,
    };
  const c = new X509Certificate(pem);
  const notAfter = Date.parse(c.validTo);
  const renewAfter = notAfter - RENEWAL_WINDOW_DAYS * DAY;
  const daysLeft = Math.floor((notAfter - nowMs) / DAY);
  const status_hint =
    nowMs >= notAfter
      ? 'expired'
      : nowMs >= renewAfter
        ? base.automatic_renewal
          ? 'renewal due'
          : 'expires soon: replace the files'
        : 'ok';
  return {
    ...base,
    status_hint,
    certificate: {
      fingerprint: c.fingerprint256,
      subject: c.subject.replace(/\n/g, ', '),
      issuer: c.issuer.replace(/\n/g, ', '),
      serial: c.serialNumber,
      hosts: hostsOf(c),
      not_before: new Date(c.validFrom).toISOString(),
      not_after: new Date(notAfter).toISOString(),
      days_left: daysLeft,
      renew_after: new Date(renewAfter).toISOString(),
    },
  };
}
