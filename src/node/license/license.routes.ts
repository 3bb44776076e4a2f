import { NodeLicenseReply } from '../../common/node-api.js';
import type { NodeFastify } from '../typed.js';
import type { LicenseService } from './license.service.js';

/**
 * GET /api/v1/license (document 4 section 9), a read-tier route: the licence state evaluated now,
 * `none` without a licence file; the fields a malformed or untrusted file does not give are null.
 */
export function licenseRoutes(app: NodeFastify, deps: { license: LicenseService; buildDate: string }): void {
  app.get('/api/v1/license', { schema: { response: { 200: NodeLicenseReply } } }, async () => {
    const s = deps.license.status();
    return {
      state: s.state ?? ('none' as const),
      licensee: s.licensee ?? null,
      expires: s.expires ?? null,
      updates_until: s.updates_until ?? null,
      build_date: deps.buildDate,
    };
  });
}
