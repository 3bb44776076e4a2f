/**
 * The baseline of bench/plane/intake-single.ts (issue 26): the least a single-event intake can
 * be on the same stack. Fastify 5 and a node-postgres Pool (10 connections, as the plane's), one
 * `insert ... returning` per request committed on its own, into `minimal_events` (the events
 * table's columns and indexes, made by the bench in the same database). No credential, no
 * validation beyond reading the first item, no trigger, no notice. Started as a child process.
 * Env: DATABASE_URL, PORT. Prints "listening" once ready.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const app = Fastify({ logger: false });

interface Item {
  detector: string;
  occurred_at: string;
  camera_id: string;
  severity: string;
  confidence: number;
  subject_type: string;
  subject_ref: string;
  detector_title: unknown;
  payload: unknown;
}

const INSERT = `insert into minimal_events (id, occurred_at, seq, org_id, camera_id, detector, detector_title, severity,
  confidence, subject_type, subject_ref, payload, search)
  values ($1, $2, nextval('minimal_seq'), $3, $4, $5, $6, 1, $7, $8, $9, $10, to_tsvector('simple', $11))
  returning id, seq`;
const ORG = randomUUID();

app.post('/api/v1/events', async (req) => {
  const it = (req.body as { events: Item[] }).events[0]!;
  const r = await pool.query({
    name: 'minimal_insert',
    text: INSERT,
    values: [
      randomUUID(),
      it.occurred_at,
      ORG,
      it.camera_id,
      it.detector,
      JSON.stringify(it.detector_title),
      it.confidence,
      it.subject_type,
      it.subject_ref,
      JSON.stringify(it.payload),
      `${it.detector} ${it.subject_type} ${it.subject_ref}`,
    ],
  });
  return { results: [{ index: 0, id: r.rows[0].id }], stream_cursor: `g:${r.rows[0].seq}` };
});

await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT) });
console.log('listening');
process.on('SIGTERM', () => {
  void app
    .close()
    .then(() => pool.end())
    .then(() => process.exit(0));
});
