import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { GetObjectCommand, S3Client } from '@aws-sdk/client-s3';
import type { ChildProcess } from 'node:child_process';
import { startS3rver } from './s3rver.js';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { cameraWorld, tenants, type Tenants } from '../inventory.helpers.js';
import { freePort } from '../../node/helpers/node-process.js';

// Evidence on S3 (issue 12): attachments uploaded through the plane land in a real S3-protocol
// server (s3rver on loopback) as streamed multipart uploads, come back byte for byte, and a server
// that dies in the middle of an upload leaves no attachment (so no event can name one).

describe('evidence storage on s3 (s3rver)', () => {
  let t: TestPlane;
  let x: Tenants;
  let mod: Client;
  let camera: string;
  let server: ChildProcess;
  let dir: string;
  let port: number;
  const s3 = () =>
    new S3Client({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'us-east-1',
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'argus-s3-'));
    port = await freePort();
    server = await startS3rver(port, dir);
    t = await startPlane({
      config: {
        evidence: {
          backend: 's3',
          dir: join(dir, 'unused'),
          s3: {
            endpoint: `127.0.0.1:${port}`,
            bucket: 'evidence',
            region: 'us-east-1',
            https: false,
            addressing: 'path',
            accessKey: 'S3RVER',
            secretKey: 'S3RVER',
          },
        },
        evidencePressure: { lowPercent: 70, highPercent: 85, criticalPercent: 95, maxBytes: 1 << 30 },
      },
    });
    x = await tenants(t);
    const world = await cameraWorld(t, x);
    camera = await world.camera(x.a.admin);
    mod = await world.moduleToken(x.a.admin);
  });
  afterAll(async () => {
    await t?.close();
    server?.kill('SIGKILL');
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('stores in the bucket, streams back byte for byte (one part and multipart)', async () => {
    for (const size of [200_000, 12 * 1024 * 1024]) {
      const bytes = randomBytes(size);
      const up = await mod.req('POST', '/api/v1/attachments', bytes, { 'content-type': 'image/jpeg' });
      expect(up.status, up.text).toBe(201);
      const ev = await mod.post('/api/v1/events', {
        events: [
          { detector: 's3.test', occurred_at: new Date().toISOString(), camera_id: camera, attachments: [up.body.ref] },
        ],
      });
      expect(ev.status, ev.text).toBe(200);
      const down = await t.plane.app.inject({
        method: 'GET',
        url: `/api/v1/attachments/${up.body.ref}`,
        headers: { authorization: `Bearer ${x.a.admin.token}` },
      });
      expect(down.statusCode).toBe(200);
      expect(Buffer.compare(down.rawPayload, bytes)).toBe(0);
      const row = await sql<{
        storage_key: string;
      }>`select storage_key from attachments where ref = ${up.body.ref}::uuid`.execute(t.db.database.db);
      const obj = await s3().send(new GetObjectCommand({ Bucket: 'evidence', Key: row.rows[0]!.storage_key }));
      expect(Number(obj.ContentLength)).toBe(size);
    }
  });

  it('a server that dies during an upload: the upload fails and leaves no attachment', async () => {
    const before = Number(
      (await sql<{ n: string }>`select count(*) as n from attachments`.execute(t.db.database.db)).rows[0]!.n,
    );
    await t.plane.app.listen({ host: '127.0.0.1', port: 0 });
    const planePort = (t.plane.app.server.address() as { port: number }).port;
    // The plane answers an error, or (the body still coming) closes the connection on it.
    const status = await new Promise<number>((resolve) => {
      const req = request(
        {
          host: '127.0.0.1',
          port: planePort,
          method: 'POST',
          path: '/api/v1/attachments',
          headers: {
            authorization: `Bearer ${mod.token}`,
            'content-type': 'image/jpeg',
            'content-length': 12 * 1024 * 1024,
          },
        },
        (res) => {
          res.resume();
          resolve(res.statusCode!);
        },
      );
      req.on('error', () => resolve(-1));
      let sent = 0;
      const chunk = randomBytes(256 * 1024);
      const pump = () => {
        if (sent >= 12 * 1024 * 1024) {
          req.end();
          return;
        }
        if (sent === 6 * 1024 * 1024) {
          server.kill('SIGKILL');
          server.once('exit', () => {
            sent += chunk.length;
            req.write(chunk);
            setImmediate(pump);
          });
        } else {
          sent += chunk.length;
          if (req.write(chunk)) setImmediate(pump);
          else req.once('drain', pump);
        }
      };
      pump();
    });
    expect(status === -1 || status >= 500, `status ${status}`).toBe(true);
    const after = Number(
      (await sql<{ n: string }>`select count(*) as n from attachments`.execute(t.db.database.db)).rows[0]!.n,
    );
    expect(after).toBe(before);
  }, 60_000);
});
