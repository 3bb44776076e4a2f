import { client, ok, type Reply, type Sent } from './client.js';

/** A camera as GET /api/v1/cameras lists it. */
export type Camera = Reply<'/api/v1/cameras'>['rows'][number];
/** What POST /cameras/{id}/play asks for: live (a profile) or a recorded range. */
export type PlayRequest = Sent<'/api/v1/cameras/{id}/play', 'post'>;

export const cameraKeys = {
  all: ['cameras'] as const,
  one: (id: string) => ['camera', id] as const,
  recording: (id: string, from: number, seconds: number) => ['recording', id, from, seconds] as const,
  figures: (ids: string[]) => ['ingest-figures', ...ids] as const,
};

/** Every camera the caller may see, page after page (keyset `next`). */
export async function allCameras(): Promise<Camera[]> {
  const out: Camera[] = [];
  let after: string | null = null;
  do {
    const page: Reply<'/api/v1/cameras'> = await ok(
      client.GET('/api/v1/cameras', { params: { query: { limit: 500, ...(after ? { after } : {}) } } }),
    );
    out.push(...page.rows);
    after = page.next;
  } while (after);
  return out;
}

export const camera = (id: string) => ok(client.GET('/api/v1/cameras/{id}', { params: { path: { id } } }));

/** A viewing session on the camera's node: the playlist's URL and the token that opens it. */
export const play = (id: string, request: PlayRequest) =>
  ok(client.POST('/api/v1/cameras/{id}/play', { params: { path: { id } }, body: request }));

/** What POST /cameras/probe asks: the node that would serve the camera and the source to try there. */
export type ProbeRequest = Sent<'/api/v1/cameras/probe', 'post'>;
/** The node's answer: the video (codec, size, frame rate) and audio it found, or why not in words (`ok` false). */
export type ProbeResult = Reply<'/api/v1/cameras/probe', 'post'>;

/** "Test source" before saving (administrators): the node opens the source once, for at most 10 s. */
export const probeSource = (request: ProbeRequest) => ok(client.POST('/api/v1/cameras/probe', { body: request }));

/** One frame of a source before it is saved, as the node reads it: a base64 JPEG, or why not in words. */
export const snapshotSource = (request: ProbeRequest) =>
  ok(client.POST('/api/v1/cameras/probe/snapshot', { body: request }));

/** A new camera (administrators): name, node, sources, tags, recording; `org_id` defaults to the caller's. */
export type CameraCreate = Sent<'/api/v1/cameras', 'post'>;
/** A change of a camera: only the fields sent; a source sent back masked (***) keeps the stored one. */
export type CameraChange = Sent<'/api/v1/cameras/{id}', 'patch'>;

/** The plane writes the camera and pushes its streams to its node (the sweeper retries an unreachable one). */
export const createCamera = (body: CameraCreate) => ok(client.POST('/api/v1/cameras', { body }));
export const changeCamera = (id: string, body: CameraChange) =>
  ok(client.PATCH('/api/v1/cameras/{id}', { params: { path: { id } }, body }));
/** Deletes the camera with its tags and grants, and its streams on its node. */
export const deleteCamera = (id: string) => ok(client.DELETE('/api/v1/cameras/{id}', { params: { path: { id } } }));

/** A camera's ingest figures of the latest sweep (main and sub stream: state, fps, kbit/s, size, codec). */
export type IngestFigures = Reply<'/api/v1/cameras/ingest-figures'>['rows'][number];

/** The plane answers at most 200 cameras an ask: a longer list is asked in pieces. */
const FIGURES_PER_ASK = 200;

export async function ingestFigures(ids: string[]): Promise<Map<string, IngestFigures>> {
  const out = new Map<string, IngestFigures>();
  for (let i = 0; i < ids.length; i += FIGURES_PER_ASK) {
    const camera_ids = ids.slice(i, i + FIGURES_PER_ASK).join(',');
    const page = await ok(client.GET('/api/v1/cameras/ingest-figures', { params: { query: { camera_ids } } }));
    for (const r of page.rows) out.set(r.camera_id, r);
  }
  return out;
}
