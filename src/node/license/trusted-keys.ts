/**
 * Ed25519 public keys (raw 32 bytes, base64) whose licences this build accepts.
 *
 * RELEASE_KEYS is empty until the project has a release signing key: a release build then
 * accepts no licence file, which shows as `unlicensed` (a node without a file serves normally).
 * TEST_KEYS belongs to the private key in test/node/fixtures; only non-release builds trust it,
 * so a licence signed by the test suite is worthless against a release build.
 */
export const RELEASE_KEYS: string[] = [];

export const TEST_KEYS: string[] = ['rqXfTrPPgfcm1QD5n3v2zbyJ4K3VA8IHAY7fiATbaT8='];

export function trustedKeys(profile: string): string[] {
  return profile === 'release' ? [...RELEASE_KEYS] : [...RELEASE_KEYS, ...TEST_KEYS];
}
