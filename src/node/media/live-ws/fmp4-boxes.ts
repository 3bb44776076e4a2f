/**
 * Fragmented MP4 as ffmpeg writes it to a pipe, cut into what a Media Source Extensions player is
 * sent: the initialisation segment (ftyp + moov) and fragments (moof + mdat, with whatever boxes
 * come between the previous fragment and the moof: the `prft` that stamps the fragment with the
 * ingest's wall clock, a `styp` or `sidx` if a muxer writes them). Pure: bytes in, pieces out.
 */

/** What a player needs first (`init`), then one `fragment` after another; `key`: it starts with a sync sample. */
export type Fmp4Piece = { kind: 'init'; data: Buffer } | { kind: 'fragment'; data: Buffer; key: boolean };

/** A box larger than this is not a live fragment of a camera stream: the stream is refused, not buffered. */
export const MAX_BOX_BYTES = 64 * 1024 * 1024;

/** ISO/IEC 14496-12 sample flags: `sample_is_non_sync_sample`. */
const NON_SYNC = 0x0001_0000;

export class Fmp4Error extends Error {}

interface BoxHeader {
  type: string;
  /** Whole box, header included. */
  size: number;
  headerSize: number;
}

/** The header of the box at `at`, or null when `buf` does not hold all of it yet. */
function boxHeader(buf: Buffer, at: number): BoxHeader | null {
  if (buf.length - at < 8) return null;
  const size32 = buf.readUInt32BE(at);
  const type = buf.toString('latin1', at + 4, at + 8);
  if (size32 === 1) {
    if (buf.length - at < 16) return null;
    const big = buf.readBigUInt64BE(at + 8);
    if (big > BigInt(MAX_BOX_BYTES)) throw new Fmp4Error(`box ${type} of ${big} bytes is too large`);
    return { type, size: Number(big), headerSize: 16 };
  }
  // Size 0 ("to the end of the file") cannot end on a pipe that stays open.
  if (size32 < 8) throw new Fmp4Error(`box ${JSON.stringify(type)} has an invalid size ${size32}`);
  if (size32 > MAX_BOX_BYTES) throw new Fmp4Error(`box ${type} of ${size32} bytes is too large`);
  return { type, size: size32, headerSize: 8 };
}

/** The child boxes of the container whose payload is `buf[from, to)`. */
function* children(buf: Buffer, from: number, to: number): Generator<{ type: string; start: number; end: number }> {
  let at = from;
  while (at + 8 <= to) {
    const h = boxHeader(buf.subarray(0, to), at);
    if (!h || at + h.size > to) return;
    yield { type: h.type, start: at + h.headerSize, end: at + h.size };
    at += h.size;
  }
}

function child(buf: Buffer, from: number, to: number, type: string): { start: number; end: number } | null {
  for (const c of children(buf, from, to)) if (c.type === type) return c;
  return null;
}

/** moov > mvex > trex's default_sample_flags (the fragments' fallback), 0 when absent. */
export function trexDefaultFlags(moov: Buffer): number {
  const mvex = child(moov, 8, moov.length, 'mvex');
  const trex = mvex && child(moov, mvex.start, mvex.end, 'trex');
  // version/flags 4, track_ID 4, description index 4, duration 4, size 4, flags 4
  return trex && trex.end - trex.start >= 24 ? moov.readUInt32BE(trex.start + 20) : 0;
}

/**
 * Whether a moof's first sample (of its first track) is a sync sample: trun's first_sample_flags,
 * else the first sample's own flags, else tfhd's default_sample_flags, else trex's default.
 */
export function moofStartsWithKey(moof: Buffer, trexFlags = 0): boolean {
  const traf = child(moof, 8, moof.length, 'traf');
  if (!traf) return true;
  let flags = trexFlags;
  const tfhd = child(moof, traf.start, traf.end, 'tfhd');
  if (tfhd && tfhd.end - tfhd.start >= 8) {
    const tf = moof.readUInt32BE(tfhd.start) & 0xffffff;
    let at = tfhd.start + 8; // version/flags, track_ID
    if (tf & 0x01) at += 8; // base_data_offset
    if (tf & 0x02) at += 4; // sample_description_index
    if (tf & 0x08) at += 4; // default_sample_duration
    if (tf & 0x10) at += 4; // default_sample_size
    if (tf & 0x20 && at + 4 <= tfhd.end) flags = moof.readUInt32BE(at);
  }
  const trun = child(moof, traf.start, traf.end, 'trun');
  if (trun && trun.end - trun.start >= 8) {
    const tr = moof.readUInt32BE(trun.start) & 0xffffff;
    const count = moof.readUInt32BE(trun.start + 4);
    let at = trun.start + 8;
    if (tr & 0x01) at += 4; // data_offset
    if (tr & 0x04 && at + 4 <= trun.end) return (moof.readUInt32BE(at) & NON_SYNC) === 0;
    if (tr & 0x04) at += 4;
    if (tr & 0x400 && count > 0) {
      if (tr & 0x100) at += 4; // sample_duration
      if (tr & 0x200) at += 4; // sample_size
      if (at + 4 <= trun.end) flags = moof.readUInt32BE(at);
    }
  }
  return (flags & NON_SYNC) === 0;
}

/**
 * Reads the pipe's chunks, cut anywhere, and hands back whole pieces. A new `ftyp` (a muxer that
 * starts over) begins a new initialisation segment. Boxes it has no use for before the first
 * moov are kept in the init segment; between fragments, they ride with the next fragment.
 */
export class Fmp4Parser {
  private buf: Buffer = Buffer.alloc(0);
  /** Boxes read since the last piece was handed out. */
  private pending: Buffer[] = [];
  private inInit = true;
  private moof: Buffer | null = null;
  private trexFlags = 0;

  /** Feeds a chunk; returns the pieces it completed, in order. Throws Fmp4Error on a stream that is not MP4. */
  push(chunk: Buffer): Fmp4Piece[] {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk]);
    const out: Fmp4Piece[] = [];
    let at = 0;
    for (;;) {
      const h = boxHeader(this.buf, at);
      if (!h || this.buf.length - at < h.size) break;
      const box = this.buf.subarray(at, at + h.size);
      at += h.size;
      const piece = this.box(h.type, box);
      if (piece) out.push(piece);
    }
    // Keep only the unread tail, copied so the chunks already handed out are not held by it.
    this.buf = at === 0 ? this.buf : Buffer.from(this.buf.subarray(at));
    return out;
  }

  /** Bytes held that do not yet make a whole box (what a slow producer costs in memory). */
  get buffered(): number {
    return this.buf.length + this.pending.reduce((n, b) => n + b.length, 0);
  }

  private box(type: string, box: Buffer): Fmp4Piece | null {
    if (type === 'ftyp') {
      this.inInit = true;
      this.moof = null;
      this.pending = [box];
      return null;
    }
    if (this.inInit) {
      this.pending.push(box);
      if (type !== 'moov') return null;
      this.trexFlags = trexDefaultFlags(box);
      this.inInit = false;
      return { kind: 'init', data: this.take() };
    }
    this.pending.push(box);
    if (type === 'moof') this.moof = box;
    if (type !== 'mdat' || !this.moof) return null;
    const key = moofStartsWithKey(this.moof, this.trexFlags);
    this.moof = null;
    return { kind: 'fragment', data: this.take(), key };
  }

  private take(): Buffer {
    const data = this.pending.length === 1 ? Buffer.from(this.pending[0]) : Buffer.concat(this.pending);
    this.pending = [];
    return data;
  }
}
