import { randomBytes, randomUUID } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { resolveInside } from '../../common/resolve-inside.js';
import type { PlaneConfig } from '../config/config.js';
import { errors } from '../errors.js';
import { S3EvidenceStorage } from '../evidence/s3.storage.js';
import { EvidenceFolderRefused, inspectEvidenceFolder } from '../evidence/evidence-folder.js';
import { endpointHost, isRefusedAddress, isRefusedEndpoint } from '../config/endpoint-guard.js';
import { at, type Edit } from './plane-toml.js';
import { sameS3Endpoint } from './settings.rules.js';

const failure = (what: string, err: unknown) => {
  const e = err as NodeJS.ErrnoException & { name?: string };
  return errors.storageCheckFailed(`${what} failed: ${e.code ?? e.name ?? 'error'}`);
};

async function step<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (err) {
    throw failure(what, err);
  }
}

/**
 * The pre-check of a candidate evidence storage (PATCH and POST .../test, document 1): a probe
 * object written, read back, compared and deleted; 502 with what failed (never a secret).
 * A folder must be one the plane may own (400 evidence_dir_refused with the reason); an s3
 * endpoint that resolves to a link-local or metadata address is refused (unless [network]
 * allow_private_targets). Stored keys are used when the candidate gives none.
 */
export async function precheckStorage(
  edits: Edit[],
  saved: Record<string, unknown>,
  config: PlaneConfig,
): Promise<void> {
  const v = (k: string) => edits.find(([path]) => path[1] === k)?.[1];
  if (v('backend') === 's3') return precheckS3(v, edits, saved, config);
  const dir = v('dir') as string;
  let state;
  try {
    state = await inspectEvidenceFolder(dir, config.dataDir);
  } catch (err) {
    if (err instanceof EvidenceFolderRefused) throw errors.badRequest('evidence_dir_refused', { reason: err.reason });
    throw failure('inspect the folder', err);
  }
  // Only the folder named, never its parents (issue 25: the test made folders anywhere on the machine).
  if (state === 'missing') await step('create the folder', () => mkdir(dir, { mode: 0o700 }));
  const bytes = randomBytes(64);
  const probe = resolveInside(dir, `.argus-probe-${randomUUID()}`);
  await step('write a probe object', () => writeFile(probe, bytes, { flag: 'wx', mode: 0o600 }));
  const back = await step('read the probe object back', () => readFile(probe));
  await step('delete the probe object', () => rm(probe));
  if (!back.equals(bytes)) throw errors.storageCheckFailed('the probe object read back differs from what was written');
}

async function precheckS3(
  v: (k: string) => unknown,
  edits: Edit[],
  saved: Record<string, unknown>,
  config: PlaneConfig,
): Promise<void> {
  const endpoint = String(v('endpoint'));
  const refused = () => errors.storageCheckFailed('the endpoint resolves to a link-local or metadata address');
  if (!config.allowPrivateTargets) {
    // As written, in any notation (issue 25), then what its name resolves to now; the storage's sockets check again at connect time.
    if (isRefusedEndpoint(endpoint)) throw refused();
    const addrs = await step('resolve the endpoint', () => lookup(endpointHost(endpoint)!, { all: true }));
    if (addrs.some((a) => isRefusedAddress(a.address))) throw refused();
  }
  // The stored keys go only to the endpoint they were saved with (issue 25): another endpoint named without keys gets none.
  const withSaved = sameS3Endpoint(saved, endpoint);
  const key = (k: string): string | null => {
    const edit = edits.find(([path]) => path[1] === k);
    if (edit) return (edit[1] as string | undefined) ?? null;
    return withSaved ? ((at(saved, 'evidence_storage', k) as string | undefined) ?? null) : null;
  };
  const store = new S3EvidenceStorage({
    endpoint,
    bucket: String(v('bucket')),
    region: String(v('region') ?? 'us-east-1'),
    https: v('https') !== false,
    addressing: v('addressing') === 'virtual_host' ? 'virtual_host' : 'path',
    accessKey: key('access_key'),
    secretKey: key('secret_key'),
    allowPrivateTargets: config.allowPrivateTargets,
  });
  const bytes = randomBytes(64);
  const probe = `.argus-probe/${randomUUID()}`;
  await step('write a probe object', () => store.put(probe, bytes, 'application/octet-stream'));
  const got = await step('read the probe object back', async () => {
    const o = await store.open(probe);
    if (!o) throw Object.assign(new Error('missing'), { code: 'NoSuchKey' });
    const chunks: Buffer[] = [];
    for await (const c of o.body) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  });
  await step('delete the probe object', () => store.delete(probe));
  if (!got.equals(bytes)) throw errors.storageCheckFailed('the probe object read back differs from what was written');
}
