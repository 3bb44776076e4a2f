import { afterAll, beforeAll } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { type Client, login } from '../client.js';
import { seedOrg, seedUser } from '../fixtures.js';

/**
 * The audit route suites' world (audit.routes.test.ts, audit.list.test.ts): a plane, organisations
 * org-a and org-b, their administrators, an operator of org-a and root, all signed in. Each test
 * file calls auditWorld() once, at its top: the hooks are registered for that file, which then has
 * a plane of its own (so the files run in parallel). The bindings below are set by it; the tests
 * read them through the import, which stays live.
 */
export let t: TestPlane;
export let root: Client, adminA: Client, adminB: Client, operatorA: Client;
export let orgA: string, orgB: string;

export function auditWorld(): void {
  let plane: TestPlane | undefined;
  beforeAll(async () => {
    t = plane = await startPlane();
    const db = t.db.database.db;
    orgA = await seedOrg(db, 'org-a');
    orgB = await seedOrg(db, 'org-b');
    const a = await seedUser(db, orgA, 'admin', 'admin-a');
    const b = await seedUser(db, orgB, 'admin', 'admin-b');
    const o = await seedUser(db, orgA, 'user', 'operator-a');
    root = await login(t.plane.app);
    adminA = await login(t.plane.app, a);
    adminB = await login(t.plane.app, b);
    operatorA = await login(t.plane.app, o);
  });
  afterAll(async () => {
    await plane?.close();
  });
}
