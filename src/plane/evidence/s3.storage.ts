import { once } from 'node:events';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { PassThrough, type Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { EvidenceStorage } from './evidence.storage.js';
import { receive } from './upload-gate.js';
import { isEvidenceKey } from './evidence-folder.js';
import { guardedLookup, guardedLookupWith, isRefusedEndpoint, type Resolver } from '../config/endpoint-guard.js';

/** `[evidence_storage]` with backend s3 (document 1): where and how; the keys are never shown. */
export interface S3Options {
  endpoint: string;
  bucket: string;
  region: string;
  https: boolean;
  addressing: 'path' | 'virtual_host';
  accessKey: string | null;
  secretKey: string | null;
  /** [network] allow_private_targets: the endpoint may be link-local or a metadata service (absent: refused) */
  allowPrivateTargets?: boolean;
}

const refusedTarget = () =>
  Object.assign(new Error('the endpoint is a link-local or metadata address'), { code: 'EREFUSEDTARGET' });

const missing = (err: unknown) => {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata?.httpStatusCode === 404;
};

/**
 * Evidence bytes in an S3 bucket (AWS SDK v3): uploads stream through a multipart upload (parts
 * of 5 MiB, two in flight), never a whole object in memory; an upload that fails or passes its
 * size limit is aborted, so no object is left half-written and the event that would name it is
 * never written (the caller writes it after the upload). Downloads stream the object's body.
 */
export class S3EvidenceStorage implements EvidenceStorage {
  readonly backend = 's3' as const;
  private readonly client: S3Client;
  /** An endpoint refused as written: every call fails without a connection. */
  private readonly refused: boolean;

  /** `resolve`: the name resolver the guard asks on every connection (the system's unless a test gives one). */
  constructor(
    private readonly o: S3Options,
    resolve?: Resolver,
  ) {
    const guarded = !o.allowPrivateTargets;
    this.refused = guarded && isRefusedEndpoint(o.endpoint);
    // A name is checked again on every connection (issue 25): what it resolves to may change after the settings were saved.
    const agent = {
      keepAlive: true,
      maxSockets: 50,
      ...(guarded ? { lookup: resolve ? guardedLookupWith(resolve) : guardedLookup } : {}),
    };
    this.client = new S3Client({
      endpoint: `${o.https ? 'https' : 'http'}://${o.endpoint}`,
      region: o.region,
      forcePathStyle: o.addressing === 'path',
      ...(o.accessKey && o.secretKey
        ? { credentials: { accessKeyId: o.accessKey, secretAccessKey: o.secretKey } }
        : {}),
      maxAttempts: 2,
      requestHandler: { httpAgent: new HttpAgent(agent), httpsAgent: new HttpsAgent(agent) },
    });
  }

  /** The client, unless the endpoint is refused as written. */
  private get s3(): S3Client {
    if (this.refused) throw refusedTarget();
    return this.client;
  }

  async put(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    await this.s3.send(
      new PutObjectCommand({ Bucket: this.o.bucket, Key: key, Body: bytes, ContentType: contentType }),
    );
  }

  async putStream(
    key: string,
    body: Readable,
    contentType: string,
    maxBytes: number,
  ): Promise<{ size: number; sha256: Buffer }> {
    const pass = new PassThrough();
    const upload = new Upload({
      client: this.s3,
      params: { Bucket: this.o.bucket, Key: key, Body: pass, ContentType: contentType },
      queueSize: 2,
      partSize: 5 * 1024 * 1024,
    });
    const done = upload.done();
    // An early failure of the upload ends the reading too.
    done.catch(() => {
      if (!body.destroyed) body.destroy();
    });
    try {
      const received = await receive(body, maxBytes, async (chunk) => {
        if (!pass.write(chunk)) await once(pass, 'drain');
      });
      pass.end();
      await done;
      return received;
    } catch (err) {
      pass.destroy();
      await upload.abort().catch(() => {});
      await done.catch(() => {});
      throw err;
    }
  }

  async open(key: string): Promise<{ size: number; body: Readable } | null> {
    try {
      const r = await this.s3.send(new GetObjectCommand({ Bucket: this.o.bucket, Key: key }));
      return { size: Number(r.ContentLength ?? 0), body: r.Body as Readable };
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.s3.send(new HeadObjectCommand({ Bucket: this.o.bucket, Key: key }));
      return true;
    } catch (err) {
      if (missing(err)) return false;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.s3.send(new DeleteObjectCommand({ Bucket: this.o.bucket, Key: key }));
  }

  /**
   * The bucket's objects in the plane's key layout, a page of 1,000 at a time: a bucket shared
   * with other data (or the settings' probe objects) never has those moved or deleted by
   * `argus-plane evidence migrate`.
   */
  async *list(): AsyncIterable<{ key: string; size: number }> {
    let token: string | undefined;
    do {
      const r = await this.s3.send(new ListObjectsV2Command({ Bucket: this.o.bucket, ContinuationToken: token }));
      for (const o of r.Contents ?? [])
        if (o.Key && isEvidenceKey(o.Key)) yield { key: o.Key, size: Number(o.Size ?? 0) };
      token = r.IsTruncated ? r.NextContinuationToken : undefined;
    } while (token);
  }

  describe() {
    return { backend: 's3', endpoint: this.o.endpoint, bucket: this.o.bucket };
  }
}
