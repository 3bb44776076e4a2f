/**
 * Replies of the plane for the page tests, typed by its OpenAPI document (web/src/api/openapi.gen.ts):
 * a field it does not send or a missing one fails the type check.
 */
import type { Body } from './console.harness.js';
import { ORG } from './console.harness.js';

export const NODE = '0190c0de-0000-7000-8000-0000000000d1';
export const CAMERA = '0190c0de-0000-7000-8000-0000000000c1';
export const EVENT = '0190c0de-0000-7000-8000-0000000000e1';

type CameraRow = Body<'/api/v1/cameras/{id}', 'get'>;
export function camera(over: Partial<CameraRow> = {}): CameraRow {
  return {
    id: CAMERA,
    org_id: ORG,
    node_id: NODE,
    name: 'Gate north',
    main_source: 'rtsp://cam/main',
    sub_source: null,
    tag_ids: [],
    status: 'live',
    profiles: [{ kind: 'MAIN', stream: 'gate-north', source_url: 'rtsp://cam/main' }],
    recording: null,
    ...over,
  };
}

type EventRow = Body<'/api/v1/events', 'get'>['rows'][number];
export function event(over: Partial<EventRow> = {}): EventRow {
  return {
    id: EVENT,
    occurred_at: '2026-11-25T10:00:00.000Z',
    ended_at: null,
    org_id: ORG,
    camera_id: CAMERA,
    camera_name: 'Gate north',
    node_id: NODE,
    node_name: 'node-1',
    detector: 'lpr.plate',
    detector_title: null,
    category: 'lpr',
    severity: 'warning',
    confidence: 0.93,
    interval: false,
    template_id: null,
    subject_type: null,
    subject_ref: null,
    list_values: [],
    payload: { plate: 'AB-123-CD' },
    attachments: [],
    starred: false,
    ext_id: null,
    ...over,
  };
}
