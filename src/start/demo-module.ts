#!/usr/bin/env node
import { SignJWT } from 'jose';

/**
 * The demo analytics module of `npm start`: every 15-25 s it takes the demo camera's current
 * picture from the node (`/<stream>/preview.jpg`, with a viewer token it signs with the node's
 * viewer secret, as a module installed beside the node would), uploads it as an attachment and
 * sends an event on the camera with it, through its module token (document 2, intake). Detectors
 * and payloads vary so that the feed, the cards and the charts have something to show.
 */
const env = (name: string): string => {
  const v = process.env[name];
  if (!v) {
    process.stderr.write(`demo-module: ${name} is not set\n`);
    process.exit(2);
  }
  return v;
};
const PLANE = env('ARGUS_PLANE_URL');
const TOKEN = env('ARGUS_MODULE_TOKEN');
const CAMERA = env('ARGUS_CAMERA_ID');
const NODE = env('ARGUS_NODE_URL');
const SECRET = new TextEncoder().encode(env('ARGUS_VIEWER_SECRET'));
const STREAM = `${CAMERA}_main`;

const KINDS = [
  {
    detector: 'demo.person',
    severity: 'info',
    payload: () => ({
      count: 1 + Math.floor(Math.random() * 3),
      zone: ['entrance', 'yard', 'gate'][Math.floor(Math.random() * 3)],
    }),
  },
  {
    detector: 'demo.vehicle',
    severity: 'info',
    payload: () => ({
      plate: `AB ${100 + Math.floor(Math.random() * 900)}`,
      colour: ['red', 'blue', 'white', 'black'][Math.floor(Math.random() * 4)],
    }),
  },
  {
    detector: 'demo.loitering',
    severity: 'warning',
    payload: () => ({ seconds: 30 + Math.floor(Math.random() * 90) }),
  },
];

async function snapshot(): Promise<Buffer | null> {
  const now = Math.floor(Date.now() / 1000);
  const token = await new SignJWT({
    typ: 'viewer',
    stream: STREAM,
    protocols: ['hls'],
    subject_kind: 'module',
    subject_name: 'demo module',
    camera_id: CAMERA,
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject('demo-module')
    .setIssuedAt(now)
    .setExpirationTime(now + 60)
    .sign(SECRET);
  const r = await fetch(`${NODE}/${STREAM}/preview.jpg?token=${token}`);
  return r.status === 200 ? Buffer.from(await r.arrayBuffer()) : null;
}

async function send(): Promise<void> {
  const kind = KINDS[Math.floor(Math.random() * KINDS.length)]!;
  const jpeg = await snapshot();
  let attachments: string[] = [];
  if (jpeg) {
    const up = await fetch(`${PLANE}/api/v1/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'image/jpeg' },
      body: jpeg,
    });
    if (up.status === 201) attachments = [((await up.json()) as { ref: string }).ref];
  }
  const event = {
    detector: kind.detector,
    camera_id: CAMERA,
    occurred_at: new Date().toISOString(),
    severity: kind.severity,
    confidence: Math.round((0.6 + Math.random() * 0.4) * 100) / 100,
    payload: kind.payload(),
    attachments,
  };
  const r = await fetch(`${PLANE}/api/v1/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ events: [event] }),
  });
  process.stdout.write(
    JSON.stringify({
      level: 30,
      time: Date.now(),
      msg: `sent ${kind.detector}${attachments.length ? ' with a snapshot' : ''}: ${r.status}`,
    }) + '\n',
  );
}

let timer: NodeJS.Timeout;
const loop = async () => {
  await send().catch((err: Error) =>
    process.stdout.write(JSON.stringify({ level: 40, time: Date.now(), msg: `send failed: ${err.message}` }) + '\n'),
  );
  timer = setTimeout(() => void loop(), 15_000 + Math.floor(Math.random() * 10_000));
};
process.on('SIGTERM', () => {
  clearTimeout(timer);
  process.exit(0);
});
process.on('SIGINT', () => {
  clearTimeout(timer);
  process.exit(0);
});
await loop();
