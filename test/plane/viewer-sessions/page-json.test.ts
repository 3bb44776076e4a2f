import { describe, expect, it } from 'vitest';
import { Value } from 'typebox/value';
import { jsonParts, sessionsPageJson, withJsonParts } from '../../../src/plane/viewer-sessions/page-json.js';
import { SessionsPage, type ViewerSession } from '../../../src/plane/viewer-sessions/viewer-sessions.schemas.js';

// The session page's own serialiser: the same text as JSON.stringify of the page in the schema's
// field order, whatever the strings hold, with or without the parts made in advance.
const HOSTILE = [
  '"quoted" \\back\\slash',
  'control \u0000\u0001\u001f\b\f\n\r\t',
  'line sep \u2028 para sep \u2029',
  'lone surrogate \ud800 and \udfff',
  'emoji 🎥 and 中文 and עברית',
  '</script><script>alert(1)</script>',
  'x'.repeat(10_000),
];

function row(i: number, over: Partial<ViewerSession> = {}): ViewerSession {
  const s = HOSTILE[i % HOSTILE.length]!;
  return {
    stream: `${s}-stream`,
    protocol: 'hls',
    client_ip: '192.0.2.10',
    user_agent: s,
    sub: `sub ${s}`,
    connected_ms: 1234 + i,
    node_id: '11111111-1111-4111-8111-111111111111',
    node_name: `node ${s}`,
    camera_id: '22222222-2222-4222-8222-222222222222',
    camera_name: s,
    subject_kind: 'user',
    subject_id: i % 2 ? null : '33333333-3333-4333-8333-333333333333',
    subject_name: s,
    ...over,
  };
}

describe('the session page text', () => {
  it('is JSON.stringify of the page, for hostile strings, with parts and without', () => {
    const plain = HOSTILE.map((_, i) => row(i));
    const withParts = HOSTILE.map((_, i) => {
      const r = row(i);
      return withJsonParts(r, jsonParts(r));
    });
    for (const items of [plain, withParts, []]) {
      const page = {
        items,
        limit: 50,
        next_cursor: items.length ? 'abc"def' : null,
        partial_nodes: ['44444444-4444-4444-8444-444444444444'],
        sampled_at: 1_700_000_000,
      };
      const text = sessionsPageJson(page);
      expect(text).toBe(JSON.stringify(page));
      const back = JSON.parse(text);
      expect(Value.Check(SessionsPage, back)).toBe(true);
      expect(back).toEqual(JSON.parse(JSON.stringify(page)));
    }
  });

  it("writes the row's own connected_ms around parts made for another age", () => {
    const first = row(0, { connected_ms: 5000 });
    const parts = jsonParts(first);
    const later = withJsonParts(row(0, { connected_ms: 5999 }), parts);
    const text = sessionsPageJson({ items: [later], limit: 1, next_cursor: null, partial_nodes: [], sampled_at: 1 });
    expect(JSON.parse(text).items[0].connected_ms).toBe(5999);
  });
});
