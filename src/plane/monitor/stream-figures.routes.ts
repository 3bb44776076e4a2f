import { Type } from 'typebox';
import type { PlaneApp } from '../http/typed.js';
import { principalOf } from '../http/principal.js';
import { Nullable, sec } from '../http/list.js';
import { MAX_FIGURE_CAMERAS, type StreamFiguresService } from './stream-figures.service.js';

const Figures = Nullable(
  Type.Object({
    name: Type.String(),
    state: Type.String({ description: "the node's state of the stream: live, parked, degraded, failing, ..." }),
    fps: Nullable(Type.Number({ description: 'frames per second the ingest measured' })),
    bitrate_kbps: Nullable(Type.Number()),
    resolution: Nullable(Type.String({ description: 'e.g. 1920x1080' })),
    codec: Nullable(Type.String()),
  }),
);

const Reply = Type.Object({
  rows: Type.Array(
    Type.Object({
      camera_id: Type.String({ format: 'uuid' }),
      sampled_at: Type.String({ format: 'date-time' }),
      main: Figures,
      sub: Figures,
    }),
  ),
});

const Query = Type.Object({
  camera_ids: Type.String({
    maxLength: MAX_FIGURE_CAMERAS * 37,
    description: `comma-separated camera ids, at most ${MAX_FIGURE_CAMERAS}; ids not visible to the caller are left out`,
  }),
});

/** Any signed-in user, for the cameras they may see (the Cameras page asks for its page of rows). */
export function streamFiguresRoutes(app: PlaneApp, deps: { figures: StreamFiguresService }): void {
  app.get(
    '/api/v1/cameras/ingest-figures',
    {
      schema: {
        errors: [],
        tags: ['cameras'],
        summary: "Cameras' ingest figures (state, fps, bitrate, resolution, codec) from the latest sweep",
        security: sec,
        querystring: Query,
        response: { 200: Reply },
      },
    },
    async (req) =>
      deps.figures.forCameras(
        principalOf(req),
        req.query.camera_ids
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
      ),
  );
}
