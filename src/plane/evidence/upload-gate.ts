import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { stageWith } from '../../common/atomic-file.js';
import type { Readable } from 'node:stream';
import { errors } from '../errors.js';

/**
 * Uploads are streamed to storage, never held whole in memory, and only `max` run at once; up
 * to `maxWaiting` more wait for a slot (their bodies stay unread in the socket), any further
 * one answers 429 `attachment_upload_busy` (issue 10, finding 5: bodies were buffered and
 * concatenated, +416 MB RSS with 40 parallel 16 MiB uploads).
 */
export class UploadGate {
  private running = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    readonly max = 4,
    readonly maxWaiting = 64,
  ) {}

  /** Resolves with the release of a slot (idempotent), after waiting for one if need be. */
  async enter(): Promise<() => void> {
    if (this.running < this.max) this.running++;
    else if (this.waiting.length >= this.maxWaiting) throw errors.attachmentUploadBusy();
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      // The slot passes straight to the next waiter, so `running` never drops in between.
      const next = this.waiting.shift();
      if (next) next();
      else this.running--;
    };
  }
}

export interface Received {
  size: number;
  sha256: Buffer;
}

/** Bytes gathered before one write to storage: fewer, larger writes (one socket chunk is 16-64 KiB). */
const BATCH_BYTES = 1024 * 1024;

/**
 * Reads `body` into `sink` in batches of about 1 MiB, hashing and counting; one batch is
 * written while the next is received, and the socket is paused only when both are full, so at
 * most two batches per upload are in memory. Past `maxBytes` it stops with 413
 * `attachment_too_large`.
 */
export function receive(body: Readable, maxBytes: number, sink: (chunk: Buffer) => Promise<void>): Promise<Received> {
  const hash = createHash('sha256');
  let size = 0;
  let settled = false;
  let batch: Buffer[] = [];
  let batchBytes = 0;
  let writing: Promise<void> | null = null;
  let ended = false;
  return new Promise<Received>((resolve, reject) => {
    // On a refusal the rest of the body is read and dropped, never the request destroyed:
    // that would take the socket, and the 413 with it.
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      reject(err);
      body.resume();
    };
    const finish = () => {
      if (!settled && ended && !writing && !batchBytes) {
        settled = true;
        resolve({ size, sha256: hash.digest() });
      }
    };
    const flush = () => {
      if (writing || !batchBytes || settled) return;
      const bytes = batch.length === 1 ? batch[0]! : Buffer.concat(batch, batchBytes);
      batch = [];
      batchBytes = 0;
      writing = sink(bytes).then(() => {
        writing = null;
        if (settled) return;
        if (body.isPaused() && !ended) body.resume();
        if (batchBytes >= BATCH_BYTES || ended) flush();
        finish();
      }, fail);
    };
    body.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > maxBytes) {
        fail(errors.attachmentTooLarge());
        return;
      }
      hash.update(chunk);
      batch.push(chunk);
      batchBytes += chunk.length;
      if (batchBytes >= BATCH_BYTES) {
        if (writing)
          body.pause(); // both batches full: the socket waits
        else flush();
      }
    });
    body.on('end', () => {
      ended = true;
      flush();
      finish();
    });
    body.on('error', fail);
    body.on('close', () => {
      if (!ended) fail(new Error('upload aborted'));
    });
  });
}

/** Whole chunks, for a storage backend that can only take the bytes at once (bounded by the gate). */
export async function receiveWhole(body: Readable, maxBytes: number): Promise<Received & { bytes: Buffer }> {
  const chunks: Buffer[] = [];
  const r = await receive(body, maxBytes, async (c) => {
    chunks.push(c);
  });
  return { ...r, bytes: Buffer.concat(chunks, r.size) };
}

/**
 * `body` written to `path` so that a reader sees the whole file or none: staged beside it and
 * renamed into place (common/atomic-file.ts, the same mechanism as for bytes).
 */
export async function writeStreamAtomic(
  path: string,
  body: Readable,
  maxBytes: number,
  mode = 0o600,
): Promise<Received> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  let received: Received | undefined;
  const staged = await stageWith(
    path,
    async (write) => {
      received = await receive(body, maxBytes, write);
    },
    mode,
  );
  await staged.commit();
  return received!;
}
