import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshDatabase, startPlane, ROOT, type TestDb } from '../harness.js';
import { Client, login } from '../client.js';
import { cameraWorld, tenants } from '../inventory.helpers.js';
import { uploadAttachment } from '../fixtures.js';
import { LocalEvidenceStorage, type EvidenceStorage } from '../../../src/plane/evidence/evidence.storage.js';
import { S3EvidenceStorage } from '../../../src/plane/evidence/s3.storage.js';
import { holdsObjects } from '../../../src/plane/evidence/storage-operations.js';
import { migrateEvidence } from '../../../src/plane/evidence/migrate.js';
import { freePort } from '../../node/helpers/node-process.js';
import { startS3rver } from './s3rver.js';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'argus-rotation-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A key of the plane's layout (`<org>/<day>/<ref>`): the only keys a storage writes and lists (issue 25). */
const O = '0190c1a2-0000-7000-8000-00000000000a';
const key = (day: string, n: number) => `${O}/${day}/0190c1a2-0000-7000-8000-${String(n).padStart(12, '0')}`;
const keys = async (s: EvidenceStorage) => {
  const out: string[] = [];
  for await (const o of s.list()) out.push(o.key);
  return out.sort();
};
const bytesOf = async (s: EvidenceStorage, key: string) => {
  const o = await s.open(key);
  const c: Buffer[] = [];
  for await (const x of o!.body) c.push(x as Buffer);
  return Buffer.concat(c);
};

describe('rotation of the evidence storage (document 4 §10)', () => {
  let db: TestDb;
  beforeAll(async () => {
    db = await freshDatabase();
  });
  afterAll(async () => {
    await db?.drop();
  });

  it('after the restart the retired folder serves what it holds; migrate moves it, verified; reads go on without a gap', async () => {
    const a = join(root, 'a'),
      b = join(root, 'b');
    const first = await startPlane({ db, config: { evidence: { backend: 'local', dir: a } } });
    const x = await tenants(first);
    const mod = await (await cameraWorld(first, x)).moduleToken(x.a.admin);
    const refs = [await uploadAttachment(mod, 1000, 1), await uploadAttachment(mod, 70_000, 2)];
    await first.close();

    // The restart after a PATCH to folder b: a is [evidence_storage_retired].
    const second = await startPlane({
      db,
      config: { evidence: { backend: 'local', dir: b, retired: { backend: 'local', dir: a } } },
    });
    try {
      const su = await login(second.plane.app, ROOT);
      for (const [i, ref] of refs.entries()) {
        const r = await second.plane.app.inject({
          method: 'GET',
          url: `/api/v1/attachments/${ref}`,
          headers: { authorization: `Bearer ${su.token}` },
        });
        expect(r.statusCode, r.body).toBe(200);
        expect(r.rawPayload.equals(Buffer.alloc([1000, 70_000][i]!, i + 1))).toBe(true);
      }
      // New evidence goes to the storage in use.
      const fresh = await uploadAttachment(new Client(second.plane.app, mod.token), 500, 3);
      expect((await keys(new LocalEvidenceStorage(b))).some((k) => k.endsWith(fresh))).toBe(true);
      expect(await keys(new LocalEvidenceStorage(a))).toHaveLength(2);

      const report = await migrateEvidence(new LocalEvidenceStorage(a), new LocalEvidenceStorage(b));
      expect(report).toMatchObject({ moved: 2, already_there: 0, failed: [], bytes: 71_000 });
      expect(await holdsObjects(new LocalEvidenceStorage(a))).toBe(false);
      for (const ref of [...refs, fresh]) expect((await su.req('GET', `/api/v1/attachments/${ref}`)).status).toBe(200);
    } finally {
      await second.close();
    }
  });
});

describe('argus-plane evidence migrate: resumable and verified', () => {
  it('an object copied before a stop is recognised by its checksum; a torn copy is copied again; the source empties', async () => {
    const src = new LocalEvidenceStorage(join(root, 'src1')),
      dst = new LocalEvidenceStorage(join(root, 'dst1'));
    const [k1, k2, k3] = [key('2026-11-20', 1), key('2026-11-20', 2), key('2026-11-21', 3)];
    for (const [k, fill] of [
      [k1, 1],
      [k2, 2],
      [k3, 3],
    ] as const)
      await src.put(k, Buffer.alloc(4096, fill), 'x');
    await dst.put(k1, Buffer.alloc(4096, 1), 'x'); // copied, the source not yet deleted
    await dst.put(k2, Buffer.alloc(100, 2), 'x'); // a torn earlier attempt
    const seen: string[] = [];
    const report = await migrateEvidence(src, dst, {
      start: (n, bytes) => seen.push(`start ${n} ${bytes}`),
      object: (k, _s, outcome) => seen.push(`${k} ${outcome}`),
    });
    expect(report).toMatchObject({ moved: 2, already_there: 1, failed: [] });
    expect(seen[0]).toBe('start 3 12288');
    expect(seen.slice(1).sort()).toEqual([`${k1} already_there`, `${k2} moved`, `${k3} moved`]);
    expect(await keys(src)).toEqual([]);
    for (const [k, fill] of [
      [k1, 1],
      [k2, 2],
      [k3, 3],
    ] as const)
      expect((await bytesOf(dst, k)).equals(Buffer.alloc(4096, fill))).toBe(true);
  });

  it('a copy that does not read back the same is reported and its source kept', async () => {
    const src = new LocalEvidenceStorage(join(root, 'src2')),
      inner = new LocalEvidenceStorage(join(root, 'dst2'));
    const good = key('2026-11-20', 10),
      bad = key('2026-11-20', 11);
    await src.put(good, Buffer.alloc(10, 1), 'x');
    await src.put(bad, Buffer.alloc(10, 2), 'x');
    // A target that flips a byte of one object on its way to the disk.
    const corrupting: EvidenceStorage = Object.assign(Object.create(inner) as EvidenceStorage, {
      putStream: undefined,
      put: (k: string, bytes: Uint8Array, t: string) =>
        inner.put(k, k === bad ? Buffer.from(bytes).fill(9, 0, 1) : bytes, t),
    });
    const report = await migrateEvidence(src, corrupting);
    expect(report.moved).toBe(1);
    expect(report.failed).toEqual([
      {
        key: bad,
        reason: expect.stringMatching(
          /^verification failed: 10 bytes, sha256 .* in the target, 10 bytes, sha256 .* in the source$/,
        ),
      },
    ]);
    expect(await keys(src)).toEqual([bad]);
  });

  it('between a folder and a bucket (s3rver), both ways', async () => {
    const port = await freePort();
    const server = await startS3rver(port, join(root, 's3'));
    try {
      const bucket = new S3EvidenceStorage({
        endpoint: `127.0.0.1:${port}`,
        bucket: 'evidence',
        region: 'us-east-1',
        https: false,
        addressing: 'path',
        accessKey: 'S3RVER',
        secretKey: 'S3RVER',
      });
      const folder = new LocalEvidenceStorage(join(root, 'src3'));
      for (let i = 0; i < 5; i++) await folder.put(key(`2026-11-2${i}`, i), Buffer.alloc(200_000 + i, i), 'x');
      // Another application's object in the bucket: never listed, so never moved or deleted (issue 25).
      await bucket.put('backups/db.dump', Buffer.from('not evidence'), 'x');
      expect(await migrateEvidence(folder, bucket)).toMatchObject({ moved: 5, failed: [] });
      expect(await keys(bucket)).toHaveLength(5);
      const back = new LocalEvidenceStorage(join(root, 'dst3'));
      expect(await migrateEvidence(bucket, back)).toMatchObject({ moved: 5, failed: [] });
      expect(await holdsObjects(bucket)).toBe(false);
      expect((await bytesOf(back, key('2026-11-24', 4))).equals(Buffer.alloc(200_004, 4))).toBe(true);
      expect((await bytesOf(bucket, 'backups/db.dump')).toString()).toBe('not evidence');
    } finally {
      server.kill('SIGKILL');
    }
  });
});

describe('the command', () => {
  it('argus-plane evidence migrate --config: moves with a progress line, exit 0; with nothing retired exit 2', async () => {
    const { evidenceMigrateCommand } = await import('../../../src/plane/evidence/migrate.cli.js');
    const dir = join(root, 'cmd');
    const a = new LocalEvidenceStorage(join(dir, 'old'));
    await a.put(key('2026-11-20', 1), Buffer.alloc(10, 1), 'x');
    const file = join(dir, 'plane.toml');
    const lines: string[] = [];
    const out = {
      write: (s: string) => {
        lines.push(s);
        return true;
      },
      isTTY: false,
    } as unknown as NodeJS.WriteStream;
    await writeFile(
      file,
      `[evidence_storage]\nbackend = "local"\ndir = "${join(dir, 'new')}"\n\n[evidence_storage_retired]\nbackend = "local"\ndir = "${join(dir, 'old')}"\n`,
    );
    expect(await evidenceMigrateCommand(file, out)).toBe(0);
    expect(lines.join('')).toContain('1 moved (10 bytes), 0 already in place, 0 failed');
    expect(await readFile(join(dir, 'new', key('2026-11-20', 1)))).toEqual(Buffer.alloc(10, 1));
    await writeFile(file, `[evidence_storage]\nbackend = "local"\n`);
    expect(await evidenceMigrateCommand(file, out)).toBe(2);
  });
});
