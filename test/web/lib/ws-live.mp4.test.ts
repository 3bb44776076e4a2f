import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { boxAt, boxes, isInitSegment, producerTime, videoTrack } from '../../../web/src/lib/mp4-boxes.js';

// Real ffmpeg output (ffmpeg 5.1, kept as files so this test needs no encoder):
//   h264-live.mp4: ffmpeg -f lavfi -i testsrc=size=160x90:rate=5 -t 0.6 -c:v libx264 -preset ultrafast
//     -tune zerolatency -profile:v baseline -pix_fmt yuv420p -g 10 -f mp4
//     -movflags empty_moov+default_base_moof+frag_every_frame -write_prft wallclock h264-live.mp4
//   hevc-live.mp4: the same picture, -t 0.2 -c:v libx265 -tag:v hvc1, -movflags empty_moov+default_base_moof+frag_keyframe
// The expected values were read from the files with ffprobe (profile, level, size, time base)
// and a separate Python reading of the prft boxes, not with the code under test.
const fixture = (name: string) => new Uint8Array(readFileSync(new URL(`./ws-live.fixtures/${name}`, import.meta.url)));
const H264 = fixture('h264-live.mp4');
const HEVC = fixture('hevc-live.mp4');

/** The file cut where the WebSocket's messages are cut: the init segment, then one message per prft+moof+mdat. */
function messages(file: Uint8Array): Uint8Array[] {
  const top = boxes(file);
  const moov = top.findIndex((b) => b.type === 'moov');
  const out = [file.subarray(0, top[moov]!.end)];
  let from = -1;
  for (const b of top.slice(moov + 1)) {
    if (from < 0 && (b.type === 'prft' || b.type === 'moof')) from = b.start;
    if (b.type === 'mdat') {
      out.push(file.subarray(from, b.end));
      from = -1;
    }
  }
  return out;
}

describe('boxes', () => {
  it('walks the top-level boxes of a whole file, end to end', () => {
    const top = boxes(H264);
    expect(top.map((b) => b.type)).toEqual([
      'ftyp',
      'moov',
      ...['prft', 'moof', 'mdat', 'prft', 'moof', 'mdat', 'prft', 'moof', 'mdat'],
      'mfra',
    ]);
    expect(top[0]).toEqual({ type: 'ftyp', start: 0, body: 8, end: 28 });
    expect(top[1]).toMatchObject({ type: 'moov', start: 28, end: 772 });
    expect(top[top.length - 1]!.end).toBe(H264.length);
  });

  it('lists only whole boxes of a cut buffer', () => {
    expect(boxes(H264.subarray(0, 100)).map((b) => b.type)).toEqual(['ftyp']);
    expect(boxes(H264.subarray(0, 4))).toEqual([]);
  });

  it('reads a 64-bit size and a size of 0 (to the end)', () => {
    const b = new Uint8Array(16 + 4 + 12);
    const dv = new DataView(b.buffer);
    dv.setUint32(0, 1);
    b.set([0x66, 0x72, 0x65, 0x65], 4); // free
    dv.setBigUint64(8, 20n);
    dv.setUint32(20, 0);
    b.set([0x73, 0x6b, 0x69, 0x70], 24); // skip
    expect(boxes(b)).toEqual([
      { type: 'free', start: 0, body: 16, end: 20 },
      { type: 'skip', start: 20, body: 28, end: 32 },
    ]);
  });

  it('finds a box by its path', () => {
    expect(boxAt(H264, ['moov', 'trak', 'mdia', 'mdhd'])?.type).toBe('mdhd');
    expect(boxAt(H264, ['moov', 'nope'])).toBeUndefined();
  });
});

describe('videoTrack', () => {
  it('names H.264 from avcC as avc1.PPCCLL (Constrained Baseline, level 1.0)', () => {
    const [init] = messages(H264);
    expect(isInitSegment(init!)).toBe(true);
    expect(videoTrack(init!)).toEqual({ trackId: 1, timescale: 10240, codec: 'avc1.42C00A', width: 160, height: 90 });
  });

  it('names HEVC from hvcC (Main, compatibility flags reversed, L30, constraint byte 0x90)', () => {
    expect(videoTrack(messages(HEVC)[0]!)).toEqual({
      trackId: 1,
      timescale: 10240,
      codec: 'hvc1.1.6.L30.90',
      width: 160,
      height: 90,
    });
  });

  it('has no answer for a fragment or for bytes that are no MP4', () => {
    const fragment = messages(H264)[1]!;
    expect(isInitSegment(fragment)).toBe(false);
    expect(videoTrack(fragment)).toBeNull();
    expect(videoTrack(new TextEncoder().encode('not a video at all'))).toBeNull();
  });
});

describe('producerTime', () => {
  it("reads each fragment's prft: track, media time in the track's timescale, NTP wall clock in ms", () => {
    const frags = messages(H264).slice(1);
    expect(frags).toHaveLength(3);
    expect(frags.map(producerTime)).toEqual([
      { trackId: 1, mediaTime: 0, wallMs: 1795711810275 },
      { trackId: 1, mediaTime: 2048, wallMs: 1795711810276 },
      { trackId: 1, mediaTime: 4096, wallMs: 1795711810276 },
    ]);
  });

  it('is null for a fragment without a prft', () => {
    const withPrft = messages(H264)[1]!;
    const moof = boxes(withPrft).find((b) => b.type === 'moof')!;
    expect(producerTime(withPrft.subarray(moof.start))).toBeNull();
  });
});
