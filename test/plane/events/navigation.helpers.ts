import { afterAll, beforeAll, expect } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import type { Client } from '../client.js';
import { tenants, type Tenants, cameraWorld } from '../inventory.helpers.js';
import { sendEvents } from '../fixtures.js';

/**
 * The event navigation suites' world (navigation.test.ts, navigation.reconcile.test.ts): a plane,
 * two organisations, events a0..a6 of organisation A and b0 of B at known times (see A). Each test
 * file calls navigationWorld() once, at its top: the hooks are registered for that file, which then
 * has a plane and events of its own (so the files run in parallel). The bindings below are set by
 * it; the tests read them through the import, which stays live.
 */
export let t: TestPlane;
export let x: Tenants;
export let cam1: string, cam2: string, camB: string;
export let ids: Record<string, string>;
export let BASE: number;
export const at = (i: number) => new Date(BASE + i * 1000).toISOString();
export const enc = encodeURIComponent;

// Org A: a0..a6 on cam1 (granted to the operator) / cam2 / no camera; a2 and a3 share a millisecond. Org B: b0.
export const A: Array<[string, Record<string, unknown>]> = [
  ['a0', { detector: 'motion', camera: 1, severity: 'info', t: 0 }],
  ['a1', { detector: 'lpr.plate', camera: 1, severity: 'debug', t: 1 }],
  ['a2', { detector: 'lpr.plate', camera: 1, severity: 'info', t: 2 }],
  ['a3', { detector: 'motion', camera: 1, severity: 'info', t: 2 }],
  ['a4', { detector: 'motion', camera: 2, severity: 'warning', t: 3 }],
  ['a5', { detector: 'face', camera: 1, severity: 'error', t: 4 }],
  ['a6', { detector: 'sys', severity: 'info', t: 5 }],
];
// Of the two events at one millisecond, the key order (time, id) decides.
export let lo: string, hi: string;

const send = sendEvents;
export const name = (id: string | undefined) => Object.keys(ids).find((k) => ids[k] === id) ?? id;

export function navigationWorld(): void {
  ids = {};
  BASE = Date.now() - 3600_000;
  let plane: TestPlane | undefined;
  beforeAll(async () => {
    t = plane = await startPlane();
    x = await tenants(t);
    const world = await cameraWorld(t, x);
    const cam = (admin: Client) => world.camera(admin);
    cam1 = await cam(x.a.admin);
    cam2 = await cam(x.a.admin);
    camB = await cam(x.b.admin);
    expect(
      (await x.a.admin.put(`/api/v1/users/${x.a.operatorId}/grants`, { camera_ids: [cam1], tag_ids: [] })).status,
    ).toBe(200);
    const tok = (admin: Client) => world.moduleToken(admin);
    const modA = await tok(x.a.admin),
      modB = await tok(x.b.admin);
    const items = A.map(([, e]) => ({
      detector: e.detector,
      occurred_at: at(e.t as number),
      severity: e.severity,
      camera_id: e.camera === 1 ? cam1 : e.camera === 2 ? cam2 : undefined,
    }));
    (await send(modA, items)).forEach((id: string, i: number) => {
      ids[A[i]![0]] = id;
    });
    ids.b0 = (await send(modB, [{ detector: 'motion', occurred_at: at(2), camera_id: camB, severity: 'info' }]))[0];
    [lo, hi] = [ids.a2!, ids.a3!].sort();
  });
  afterAll(async () => {
    await plane?.close();
  });
}
