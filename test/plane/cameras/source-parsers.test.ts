import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlane, type TestPlane } from '../harness.js';
import { tenants, unique, type Tenants } from '../inventory.helpers.js';
import { checkSourceUrl } from '../../../src/plane/cameras/cameras.service.js';
import { ffmpegHost, sourceAmbiguity } from '../../../src/common/source-url.js';
import { parseConfig } from '../../../src/node/config/validate.js';

// Issue 25, item 3: a source that WHATWG URL (the checks) and ffmpeg (the node) read as two
// different hosts is refused, on the plane (400 bad_source_url) and in a node's configuration.
const AMBIGUOUS = [
  'http://10.0.0.1\\@169.254.169.254/',
  'https://10.0.0.1\\@169.254.169.254/latest/meta-data/',
  'rtsp://10.0.0.1\\@169.254.169.254/live',
  'http://10.0.0.1/\\@169.254.169.254/',
  'http://10.0.0.1/x@169.254.169.254/',
  'http://10.0.0.1/x%40169.254.169.254/',
  'http://10.0.0.1/x%5C@169.254.169.254/',
  'http://10.0.0.1/x%255C%2540169.254.169.254/',
  'http://10.0.0.1?@169.254.169.254/',
  'http:///169.254.169.254/',
  'http://169.254.169%2e254/',
  'http://10.0.0.1\t/',
  'http://10.0.0.1 /',
  ' http://169.254.169.254/',
  'rtsp://ｃａｍ.example/live',
];

let t: TestPlane;
let x: Tenants;
let nodeId: string;
beforeAll(async () => {
  t = await startPlane();
  x = await tenants(t);
  nodeId = (
    await x.root.post('/api/v1/nodes', {
      name: unique('n'),
      url: 'http://127.0.0.1:9',
      api_token: 'node-write-token-123456',
    })
  ).body.id;
});
afterAll(async () => {
  await t?.close();
});

describe('camera sources both parsers must read alike', () => {
  it("the probe's reproduction: WHATWG reads 10.0.0.1, ffmpeg 169.254.169.254", () => {
    expect(new URL('http://10.0.0.1\\@169.254.169.254/').hostname).toBe('10.0.0.1');
    expect(ffmpegHost('http://10.0.0.1\\@169.254.169.254/')).toBe('169.254.169.254');
  });

  it.each(AMBIGUOUS)(
    'refuses %s with 400 bad_source_url, on create and on update, even with allow_private_targets',
    async (s) => {
      expect(sourceAmbiguity(s), s).not.toBeNull();
      const r = await x.a.admin.post('/api/v1/cameras', { name: 'c', node_id: nodeId, main_source: s });
      expect([r.status, r.body], s).toEqual([400, { error: 'bad_source_url' }]);
      expect(() => checkSourceUrl(s, true)).toThrow();
    },
  );

  it('a refused source is refused on update and as a sub source too', async () => {
    const c = await x.a.admin.post('/api/v1/cameras', {
      name: unique('c'),
      node_id: nodeId,
      main_source: 'rtsp://10.0.0.1/live',
    });
    expect(c.status, c.text).toBe(201);
    expect((await x.a.admin.patch(`/api/v1/cameras/${c.body.id}`, { main_source: AMBIGUOUS[0] })).body).toEqual({
      error: 'bad_source_url',
    });
    expect((await x.a.admin.patch(`/api/v1/cameras/${c.body.id}`, { sub_source: AMBIGUOUS[4] })).body).toEqual({
      error: 'bad_source_url',
    });
  });

  it('keeps ordinary camera URLs: credentials (encoded @ in a password), ports, queries, IPv6', async () => {
    for (const s of [
      'rtsp://admin:p%40ss%5Cw@10.0.0.5:554/Streaming/Channels/101',
      'rtsp://a:b@c@10.0.0.5/x',
      'http://10.0.0.5/cgi-bin/mjpg/video.cgi?channel=1&subtype=1',
      'https://cam.example:8443/live/index.m3u8',
      'rtmp://[2001:db8::5]/live/cam',
      'testsrc://t?size=320x180',
    ]) {
      expect(sourceAmbiguity(s), s).toBeNull();
      const r = await x.a.admin.post('/api/v1/cameras', { name: unique('ok'), node_id: nodeId, main_source: s });
      expect(r.status, `${s} ${r.text}`).toBe(201);
    }
  });

  it('the node refuses them in its configuration too, naming the stream and never the URL', () => {
    const text = 'stream cam { input "http://user:Secret123@10.0.0.1\\\\@169.254.169.254/"; }\n';
    let problems = '';
    try {
      parseConfig(text, '/tmp');
    } catch (err) {
      problems = (err as Error).message;
    }
    expect(problems).toMatch(/stream cam: input holds a backslash/);
    expect(problems).not.toContain('Secret123');
    expect(() => parseConfig('stream cam { input "http://10.0.0.1/x@169.254.169.254/"; }\n', '/tmp')).toThrow(
      /stream cam: input/,
    );
    expect(
      parseConfig('stream cam { input "rtsp://u:p@10.0.0.1/live?channel=1"; }\n', '/tmp').config.streams[0]!.input,
    ).toBe('rtsp://u:p@10.0.0.1/live?channel=1');
  });
});
