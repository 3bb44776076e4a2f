import { api } from './client.js';

export interface Camera {
  id: string;
  org_id: string;
  node_id: string;
  name: string;
  status: 'live' | 'unavailable' | 'degraded' | 'failing';
  recording: { retention: string } | null;
}

/** Every camera the caller may see, page after page (keyset `next`). */
export async function allCameras(): Promise<Camera[]> {
  const out: Camera[] = [];
  let after: string | null = null;
  do {
    const page: { rows: Camera[]; next: string | null } = await api(
      'GET',
      `/api/v1/cameras?limit=500${after ? `&after=${after}` : ''}`,
    );
    out.push(...page.rows);
    after = page.next;
  } while (after);
  return out;
}
