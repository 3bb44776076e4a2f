import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { attachmentHeaders } from '../../../src/plane/evidence/disposition.js';
import { startPlane, type TestPlane } from '../harness.js';
import { Client } from '../client.js';
import { tenants, unique, type Tenants } from '../inventory.helpers.js';

// Issue 25, item 12: `image/png;,text/html` was served inline (its first part read as a PNG),
// while a browser splits the value at the comma and renders HTML. Only an exact, fully parsed
// raster image or video type is inline; anything else is a download.
const disposition = (type: string) =>
  attachmentHeaders(type, '0190c0de-0000-7000-8000-000000000000')['content-disposition'];

describe('attachmentHeaders', () => {
  it.each([
    'image/png',
    'image/jpeg',
    'IMAGE/JPEG',
    'image/gif',
    'image/webp',
    'image/avif',
    'video/mp4',
    'video/webm',
    'video/quicktime',
    'image/png; name=a',
    ' video/mp4 ',
    'image/jpeg;q=1',
  ])('%s is inline', (type) => {
    expect(disposition(type)).toBe('inline');
  });

  it.each([
    'image/png;,text/html',
    'image/png,text/html',
    'image/png, text/html',
    'image/png;a="x,text/html"',
    'image/png; a="b"',
    'video/mp4; codecs="avc1.42E01E, mp4a.40.2"',
    'image/png;',
    'image/png;;',
    'image/png; =x',
    'image/png text/html',
    'image/svg+xml',
    'image/SVG+XML',
    'image/x-icon',
    'image/*',
    'image/',
    'image',
    'video/',
    'text/html',
    'text/html;image/png',
    'application/octet-stream',
    'multipart/x-mixed-replace;boundary=x',
    '',
    'image/png\u0000',
    'image/png\r\ntext/html',
    'image/png\u00a0',
  ])('%j is downloaded', (type) => {
    expect(disposition(type)).toBe('attachment; filename="0190c0de-0000-7000-8000-000000000000"');
  });

  it('everything is sandboxed', () => {
    expect(attachmentHeaders('image/png', 'r')['content-security-policy']).toBe("sandbox; default-src 'none'");
    expect(attachmentHeaders('image/png;,text/html', 'r')['content-security-policy']).toBe(
      "sandbox; default-src 'none'",
    );
  });
});

describe('GET /api/v1/attachments/{ref} with a type a browser reads differently', () => {
  let t: TestPlane;
  let x: Tenants;
  let mod: Client;
  beforeAll(async () => {
    t = await startPlane();
    x = await tenants(t);
    mod = new Client(
      t.plane.app,
      (await x.a.admin.post('/api/v1/module-tokens', { name: unique('mod'), rate_limit: 100_000 })).body.secret,
    );
  }, 60_000);
  afterAll(async () => {
    await t?.close();
  });

  // (`image/png, text/html` itself is refused at upload: 415 unsupported_media_type.)
  it.each(['image/png;,text/html', 'image/png;a=b,text/html'])('%s is an attachment', async (type) => {
    const up = await t.plane.app.inject({
      method: 'POST',
      url: '/api/v1/attachments',
      payload: Buffer.from('<script>alert(1)</script>'),
      headers: { authorization: `Bearer ${mod.token}`, 'content-type': type },
    });
    expect(up.statusCode, up.body).toBe(201);
    const ref = up.json().ref as string;
    const e = await mod.post('/api/v1/events', {
      events: [{ detector: 'x.y', occurred_at: new Date().toISOString(), attachments: [ref] }],
    });
    expect(e.status, e.text).toBe(200);
    const r = await x.a.admin.get(`/api/v1/attachments/${ref}`);
    expect(r.status).toBe(200);
    expect(String(r.headers['content-disposition'])).toMatch(/^attachment; filename="/);
    expect(String(r.headers['content-security-policy'])).toMatch(/sandbox/);
  });
});
