import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { findOnPath, npmFfmpeg, resolveFfmpeg } from '../../../src/node/media/ffmpeg.js';
import { planInput, testsrcOptions } from '../../../src/node/media/ingest/input.js';
import { maskUrlCredentials as redactCredentials } from '../../../src/common/redact.js';
import { Health } from '../../../src/node/media/ingest/health.js';
import { parseLivePlaylist } from '../../../src/node/media/hls/live-playlist.js';
import { livePlaylist, masterPlaylist, playbackPlaylist } from '../../../src/node/media/hls/playlists.js';
import { DvrStore } from '../../../src/node/media/dvr/dvr.store.js';
import { retentionMs } from '../../../src/node/media/dvr/retention.js';
import { tempDir } from '../helpers/node-process.js';

const run = promisify(execFile);

describe('ffmpeg location', () => {
  it('the system ffmpeg when it is on PATH', async () => {
    // An executable named ffmpeg in a folder of PATH: the machine need not have one in /usr/bin.
    const bin = await tempDir('ffmpeg-path');
    await writeFile(join(bin, 'ffmpeg'), '#!/bin/sh\n', { mode: 0o755 });
    expect(resolveFfmpeg({ PATH: `/nonexistent:${bin}` })).toEqual({ path: join(bin, 'ffmpeg'), source: 'system' });
  });

  it('else the binary of @ffmpeg-installer/ffmpeg, which runs', async () => {
    const loc = resolveFfmpeg({ PATH: '/nonexistent' });
    expect(loc.source).toBe('npm');
    expect(loc.path).toBe(npmFfmpeg());
    expect(loc.path).toMatch(/node_modules\/@ffmpeg-installer\/[a-z0-9-]+\/ffmpeg$/);
    const { stdout } = await run(loc.path, ['-version']);
    expect(stdout).toMatch(/^ffmpeg version/);
  });

  it('ARGUS_FFMPEG names one explicitly', () => {
    expect(resolveFfmpeg({ PATH: '/usr/bin', ARGUS_FFMPEG: '/opt/ff/ffmpeg' }).path).toBe('/opt/ff/ffmpeg');
    expect(findOnPath('', 'ffmpeg')).toBeNull();
  });
});

describe('inputs', () => {
  it('testsrc is encoded small by default; files loop and are copied; rtsp prefers TCP', () => {
    expect(testsrcOptions(new URL('testsrc://x'))).toEqual({ width: 320, height: 180, rate: 10, bitrate: 150 });
    expect(testsrcOptions(new URL('testsrc://x?size=99999x1&rate=0'))).toMatchObject({ width: 320, rate: 10 });
    expect(planInput('testsrc://x?size=160x90&rate=5')).toMatchObject({ encode: true, nominalFps: 5 });
    expect(planInput('file:///srv/a%20b.mp4')).toMatchObject({
      encode: false,
      args: ['-re', '-stream_loop', '-1', '-i', '/srv/a b.mp4'],
    });
    expect(planInput('rtsp://u:p@h/s').args).toEqual(['-rtsp_flags', 'prefer_tcp', '-i', 'rtsp://u:p@h/s']);
    expect(planInput('https://h/x.m3u8').kind).toBe('http');
    expect(redactCredentials('rtsp://admin:s3cret@10.0.0.1/x: Connection refused')).toBe(
      'rtsp://admin:***@10.0.0.1/x: Connection refused',
    );
  });
});

describe('health', () => {
  it('frames at less than half the declared rate, late segments and a bitrate collapse are degraded', () => {
    const h = new Health(1);
    for (let i = 0; i <= 10; i++) h.frames(i * 500, i * 5);
    for (let i = 0; i < 10; i++) h.segment(i * 1000, 20_000, 1);
    expect(h.verdict(5000, 10)).toEqual({ ok: true, reason: null });
    expect(h.verdict(5000, 25).reason).toBe('frames late: 10 fps of 25');
    expect(h.verdict(14_500, 10).reason).toMatch(/^segments late/);
    for (let i = 11; i <= 25; i++) h.frames(i * 500, i * 5);
    for (let i = 10; i < 13; i++) h.segment(i * 1000, 1000, 1);
    expect(h.verdict(12_500, 10).reason).toMatch(/^bitrate collapsed: 8 kbit\/s/);
    expect(h.stalled(30_000, 0, 10_000)).toBe(true);
  });
});

describe('playlists', () => {
  const ffmpegText =
    '#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:7\n#EXTINF:1.000000,\n#EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000+0000\nr2-7.ts\n#EXTINF:0.900000,\nr2-8.ts\n#EXT-X-ENDLIST\n';

  it("ffmpeg's live playlist is read back with sequence numbers and dates", () => {
    const pl = parseLivePlaylist(ffmpegText)!;
    expect(pl.segments).toEqual([
      { uri: 'r2-7.ts', seq: 7, duration: 1, startMs: Date.parse('2026-01-01T00:00:00Z') },
      { uri: 'r2-8.ts', seq: 8, duration: 0.9, startMs: null },
    ]);
    expect(pl.ended).toBe(true);
  });

  it('the ticket goes on every segment URL; ENDLIST of a finished run is dropped', () => {
    const out = livePlaylist(ffmpegText, 'a.b.c');
    expect(out).toContain('r2-7.ts?t=a.b.c\n');
    expect(out).toContain('r2-8.ts?t=a.b.c\n');
    expect(out).not.toContain('ENDLIST');
    expect(masterPlaylist(null, null)).toContain('\nlive.m3u8\n');
  });

  it('a recorded range is a VOD playlist with a discontinuity where ffmpeg restarted', () => {
    const out = playbackPlaylist(
      [
        { start: 1000, duration: 1000, bytes: 1, file: '' },
        { start: 2000, duration: 1000, bytes: 1, file: '' },
        { start: 9000, duration: 2000, bytes: 1, file: '' },
      ],
      'T',
    );
    expect(out).toContain('#EXT-X-TARGETDURATION:2');
    expect(out.match(/#EXT-X-DISCONTINUITY/g)).toHaveLength(1);
    expect(out).toContain('dvr-9000.ts?t=T');
    expect(out.trim().endsWith('#EXT-X-ENDLIST')).toBe(true);
  });
});

describe('recording store', () => {
  it('adds, finds ranges, prunes, and rebuilds its index from the folder', async () => {
    const root = await tempDir();
    const s = new DvrStore(root, 'cam1');
    await s.load();
    const day = Date.parse('2026-05-01T23:59:58Z');
    for (let i = 0; i < 4; i++) await s.add(day + i * 1000, 1000, new Uint8Array(100 + i));
    expect(s.count).toBe(4);
    expect(s.bytes).toBe(406);
    expect((await readdir(join(root, 'cam1'))).sort()).toEqual(['2026-05-01', '2026-05-02', 'index.jsonl']);
    expect(s.range(day + 1500, day + 2500).map((x) => x.start)).toEqual([day + 1000, day + 2000]);
    expect(await s.pruneBefore(day + 2000)).toBe(2);
    expect((await readdir(join(root, 'cam1'))).sort()).toEqual(['2026-05-02', 'index.jsonl']);
    // A crash left a temp file and a stale index: the folder wins.
    await writeFile(join(root, 'cam1', '2026-05-02', '.argus-tmp-x'), 'partial');
    await writeFile(join(root, 'cam1', 'index.jsonl'), 'garbage\n');
    const again = new DvrStore(root, 'cam1');
    await again.load();
    expect(again.list().map((x) => x.start)).toEqual([day + 2000, day + 3000]);
    expect((await again.readIndex()).map((x) => x.bytes)).toEqual([102, 103]);
    expect(await readdir(join(root, 'cam1', '2026-05-02'))).not.toContain('.argus-tmp-x');
    await again.removeOldest(1);
    expect((await readFile(join(root, 'cam1', 'index.jsonl'), 'utf8')).trim().split('\n')).toHaveLength(1);
  });

  it('a stream name cannot leave the storage', async () => {
    const root = await tempDir();
    await mkdir(join(root, 'x'));
    expect(() => new DvrStore(root, '../escape')).toThrow();
    expect(retentionMs('90s')).toBe(90_000);
    expect(retentionMs('7d')).toBe(604_800_000);
  });
});
