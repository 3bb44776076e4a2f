import { afterAll, beforeAll } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { tenants, type Tenants } from '../inventory.helpers.js';

/**
 * The template suites' world (templates.test.ts, templates.validation.test.ts): a plane and two
 * organisations. Each test file calls templatesWorld() once, at its top: the hooks are registered
 * for that file, which then has a plane of its own (so the files run in parallel). The bindings
 * below are set by it; the tests read them through the import, which stays live.
 */
export let t: TestPlane;
export let x: Tenants;

export function templatesWorld(): void {
  let plane: TestPlane | undefined;
  beforeAll(async () => {
    t = plane = await startPlane();
    x = await tenants(t);
  });
  afterAll(async () => {
    await plane?.close();
  });
}

export const ok = (doc: Record<string, unknown> = {}) => ({ detector_match: 'lpr.*', ...doc });
