import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ffmpegArgs } from '../../../../src/node/media/ingest/ingest.args.js';
import {
  Fmp4Error,
  Fmp4Parser,
  MAX_BOX_BYTES,
  moofStartsWithKey,
  type Fmp4Piece,
} from '../../../../src/node/media/live-ws/fmp4-boxes.js';
import { ffmpegPath, mediaToolEnv } from '../../../../src/common/media-tools.js';
import { tempDir } from '../../helpers/node-process.js';

// --- hand-made boxes -------------------------------------------------------------------------

function box(type: string, ...payload: Buffer[]): Buffer {
  const body = Buffer.concat(payload);
  const head = Buffer.alloc(8);
  head.writeUInt32BE(8 + body.length);
  head.write(type, 4, 'latin1');
  return Buffer.concat([head, body]);
}

function u32(...values: number[]): Buffer {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, i * 4));
  return b;
}

/** version 0 and 24-bit flags */
const full = (flags: number) => u32(flags & 0xffffff);
const NON_SYNC = 0x0001_0000;
const SYNC = 0x0200_0000; // sample_depends_on = 2 (an I frame), sync

const ftyp = box('ftyp', Buffer.from('isom'), u32(0x200), Buffer.from('isomiso6'));
function moov(trexFlags?: number): Buffer {
  const trex = trexFlags === undefined ? [] : [box('mvex', box('trex', full(0), u32(1, 1, 0, 0, trexFlags)))];
  return box('moov', box('mvhd', full(0), Buffer.alloc(96)), ...trex);
}

interface Flags {
  tfhdDefault?: number;
  first?: number;
  samples?: number[];
}

/** moof > traf > tfhd + trun, with the flags where asked. */
function moof(f: Flags): Buffer {
  const tfhd =
    f.tfhdDefault === undefined
      ? box('tfhd', full(0x020000), u32(1)) // default-base-is-moof only
      : box('tfhd', full(0x020000 | 0x08 | 0x20), u32(1, 100, f.tfhdDefault));
  const samples = f.samples ?? [0];
  let tr = 0x01 | 0x200; // data offset, sizes
  if (f.first !== undefined) tr |= 0x04;
  if (f.samples) tr |= 0x400;
  const rows = samples.flatMap((flags) => (f.samples ? [10, flags] : [10]));
  const trun = box(
    'trun',
    full(tr),
    u32(samples.length, 0),
    f.first !== undefined ? u32(f.first) : Buffer.alloc(0),
    u32(...rows),
  );
  return box('moof', box('mfhd', full(0), u32(1)), box('traf', tfhd, trun));
}

const prft = box('prft', full(0), u32(1, 0xe000_0000, 0, 0, 0));
const mdat = (n: number) => box('mdat', Buffer.alloc(n, 7));

function parseAll(chunks: Buffer[], parser = new Fmp4Parser()): Fmp4Piece[] {
  return chunks.flatMap((c) => parser.push(c));
}

const summary = (pieces: Fmp4Piece[]) =>
  pieces.map((p) => (p.kind === 'init' ? `init:${p.data.length}` : `frag:${p.data.length}:${p.key ? 'key' : 'delta'}`));

describe('key frames in a moof', () => {
  it.each<[string, Flags, number, boolean]>([
    ['trun first_sample_flags: sync', { first: SYNC, tfhdDefault: NON_SYNC }, 0, true],
    ['trun first_sample_flags: non-sync', { first: NON_SYNC }, 0, false],
    ['per-sample flags of the first sample', { samples: [SYNC, NON_SYNC] }, NON_SYNC, true],
    ['per-sample flags, first not sync', { samples: [NON_SYNC, SYNC] }, 0, false],
    ['tfhd default_sample_flags', { tfhdDefault: NON_SYNC }, 0, false],
    ['tfhd default over trex', { tfhdDefault: SYNC }, NON_SYNC, true],
    ['trex default alone: non-sync', {}, NON_SYNC, false],
    ['nothing says otherwise: sync', {}, 0, true],
  ])('%s', (_name, flags, trex, key) => {
    expect(moofStartsWithKey(moof(flags), trex)).toBe(key);
  });
});

describe('Fmp4Parser on hand-made boxes', () => {
  const stream = Buffer.concat([
    ftyp,
    box('free'),
    moov(NON_SYNC),
    prft,
    moof({ first: SYNC }),
    mdat(30),
    prft,
    moof({}),
    mdat(5),
    box('styp', Buffer.from('msdh')),
    moof({ tfhdDefault: SYNC }),
    mdat(1),
  ]);

  it('cuts the init segment and fragments, a prft riding with the moof after it; trex decides when nothing else does', () => {
    const pieces = parseAll([stream]);
    expect(summary(pieces)).toEqual([
      `init:${ftyp.length + 8 + moov(NON_SYNC).length}`,
      `frag:${prft.length + moof({ first: SYNC }).length + 38}:key`,
      `frag:${prft.length + moof({}).length + 13}:delta`,
      `frag:${12 + moof({ tfhdDefault: SYNC }).length + 9}:key`,
    ]);
    expect(Buffer.concat(pieces.map((p) => p.data)).equals(stream)).toBe(true);
    const second = pieces[2].data;
    expect(second.toString('latin1', 4, 8)).toBe('prft');
  });

  it('gives the same pieces whatever the chunk boundaries (every two-way split, byte by byte)', () => {
    const whole = summary(parseAll([stream]));
    for (let i = 1; i < stream.length; i++) {
      expect(summary(parseAll([stream.subarray(0, i), stream.subarray(i)]))).toEqual(whole);
    }
    const bytes = [...stream].map((b) => Buffer.from([b]));
    const pieces = parseAll(bytes);
    expect(summary(pieces)).toEqual(whole);
    expect(Buffer.concat(pieces.map((p) => p.data)).equals(stream)).toBe(true);
  });

  it('reads a 64-bit box size', () => {
    const big = Buffer.concat([u32(1), Buffer.from('mdat'), u32(0, 16 + 3), Buffer.from([1, 2, 3])]);
    const pieces = parseAll([ftyp, moov(), moof({ first: SYNC }), big.subarray(0, 11), big.subarray(11)]);
    expect(summary(pieces)).toEqual([
      `init:${ftyp.length + moov().length}`,
      `frag:${moof({ first: SYNC }).length + 19}:key`,
    ]);
  });

  it('starts a new init segment at a new ftyp (a muxer that starts over)', () => {
    const pieces = parseAll([ftyp, moov(), moof({}), mdat(2), ftyp, moov(NON_SYNC), moof({}), mdat(2)]);
    expect(pieces.map((p) => (p.kind === 'init' ? 'init' : p.key))).toEqual(['init', true, 'init', false]);
  });

  it('refuses what is not MP4 rather than buffering it', () => {
    expect(() => new Fmp4Parser().push(Buffer.from('\0\0\0\u0004ftyp'))).toThrow(Fmp4Error);
    const huge = Buffer.alloc(8);
    huge.writeUInt32BE(MAX_BOX_BYTES + 1);
    huge.write('mdat', 4);
    expect(() => new Fmp4Parser().push(huge)).toThrow(Fmp4Error);
  });

  it('holds only the unfinished box', () => {
    const p = new Fmp4Parser();
    p.push(Buffer.concat([ftyp, moov(), moof({}), mdat(100).subarray(0, 50)]));
    expect(p.buffered).toBe(moof({}).length + 50);
  });
});

describe('Fmp4Parser on what the ingest ffmpeg writes', () => {
  it('the ingest arguments write HLS and, through the tee, fMP4 with a prft before every moof and key frames where forced', async () => {
    const dir = await tempDir('argus-fmp4-');
    // The ingest's own output arguments, with a short generated input in place of a camera.
    const args = ffmpegArgs(
      {
        kind: 'testsrc',
        encode: true,
        args: ['-f', 'lavfi', '-i', 'testsrc=size=160x90:rate=10:duration=3'],
      },
      { encode: true, segmentSecs: 1, bitrateKbps: 100, liveDir: dir, run: 1, fmp4Fd: 3 },
    );
    const child = spawn(ffmpegPath(), args, {
      stdio: ['ignore', 'ignore', 'ignore', 'pipe'],
      env: mediaToolEnv(ffmpegPath()),
    });
    const chunks: Buffer[] = [];
    child.stdio[3]!.on('data', (c: Buffer) => chunks.push(c));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code).toBe(0);
    const all = Buffer.concat(chunks);

    const pieces = parseAll(chunks);
    expect(pieces[0].kind).toBe('init');
    expect(pieces[0].data.toString('latin1', 4, 8)).toBe('ftyp');
    expect(pieces[0].data.includes(Buffer.from('avcC'))).toBe(true);
    const frags = pieces.slice(1);
    expect(frags.every((p) => p.kind === 'fragment')).toBe(true);
    // One frame per fragment: 3 s at 10 fps.
    expect(frags.length).toBe(30);
    for (const f of frags) {
      expect(f.data.toString('latin1', 4, 8)).toBe('prft');
      expect(f.data.toString('latin1', 32 + 4, 32 + 8)).toBe('moof');
    }
    // A key frame at every second (force_key_frames): fragments 0, 10 and 20.
    const keys = frags.flatMap((f, i) => (f.kind === 'fragment' && f.key ? [i] : []));
    expect(keys).toEqual([0, 10, 20]);
    // Every byte is in a piece, but for the index ffmpeg appends when it finishes (mfra), which no fragment follows.
    const cut = Buffer.concat(pieces.map((p) => p.data));
    expect(all.subarray(0, cut.length).equals(cut)).toBe(true);
    expect(all.toString('latin1', cut.length + 4, cut.length + 8)).toBe('mfra');

    // Odd chunk sizes give the same pieces.
    const odd: Buffer[] = [];
    for (let i = 0, n = 1; i < all.length; i += n, n = (n * 7 + 3) % 1000 || 1) odd.push(all.subarray(i, i + n));
    expect(summary(parseAll(odd))).toEqual(summary(pieces));

    // And the HLS beside it is what it always was.
    const playlist = await readFile(join(dir, 'index.m3u8'), 'utf8');
    expect(playlist).toContain('#EXT-X-PROGRAM-DATE-TIME:');
    expect(playlist).toMatch(/r1-0\.ts/);
  });
});
