/**
 * Just enough ISO BMFF (MP4) reading for live fragmented MP4 over a WebSocket (issue 23): walking
 * boxes, the codec string of the initialisation segment's video track (what
 * `MediaSource.isTypeSupported` and `addSourceBuffer` need), the track's timescale and the `prft`
 * (producer reference time) boxes that map a fragment's media time to the ingest's wall clock.
 * Pure: bytes in, values out.
 */

export interface Box {
  type: string;
  /** offset of the box's first byte (its size field) */
  start: number;
  /** offset of its payload (after size, type and a 64-bit size when present) */
  body: number;
  /** offset just past the box */
  end: number;
}

const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
const fourcc = (b: Uint8Array, at: number) => String.fromCharCode(b[at]!, b[at + 1]!, b[at + 2]!, b[at + 3]!);

/**
 * The boxes laid one after another in `b[from, to)`. A box whose size runs past `to` or is too
 * small to be a box ends the walk: a fragment is read whole or not at all, so what is listed is
 * only ever whole boxes.
 */
export function boxes(b: Uint8Array, from = 0, to = b.length): Box[] {
  const dv = view(b);
  const out: Box[] = [];
  let at = from;
  while (at + 8 <= to) {
    let size = dv.getUint32(at);
    let header = 8;
    if (size === 1) {
      if (at + 16 > to) break;
      size = Number(dv.getBigUint64(at + 8));
      header = 16;
    } else if (size === 0) size = to - at;
    if (size < header || at + size > to) break;
    out.push({ type: fourcc(b, at + 4), start: at, body: at + header, end: at + size });
    at += size;
  }
  return out;
}

/** The first box of `type` among the children of `parent` (payload starting `skip` bytes in). */
export function child(b: Uint8Array, parent: Box, type: string, skip = 0): Box | undefined {
  return boxes(b, parent.body + skip, parent.end).find((x) => x.type === type);
}

/** The box at `path` (e.g. ['moov', 'trak']) from the top of `b`. */
export function boxAt(b: Uint8Array, path: string[]): Box | undefined {
  let box: Box | undefined = boxes(b).find((x) => x.type === path[0]);
  for (const type of path.slice(1)) box = box && child(b, box, type);
  return box;
}

/** What the initialisation segment says of its video track. */
export interface VideoTrack {
  trackId: number;
  /** ticks per second of the track's media time (mdhd) */
  timescale: number;
  /** RFC 6381 codec, e.g. `avc1.42C01E` or `hvc1.1.6.L93.B0` */
  codec: string;
  width: number;
  height: number;
}

// The visual sample entry's fixed fields before its child boxes (ISO/IEC 14496-12 12.1.3).
const VISUAL_ENTRY_FIELDS = 78;
const hex2 = (n: number) => n.toString(16).toUpperCase().padStart(2, '0');

/** The first video track of an initialisation segment (ftyp + moov); null when it has none we can name. */
export function videoTrack(init: Uint8Array): VideoTrack | null {
  const moov = boxAt(init, ['moov']);
  if (!moov) return null;
  const dv = view(init);
  for (const trak of boxes(init, moov.body, moov.end).filter((x) => x.type === 'trak')) {
    const mdia = child(init, trak, 'mdia');
    const hdlr = mdia && child(init, mdia, 'hdlr');
    if (!mdia || !hdlr || fourcc(init, hdlr.body + 8) !== 'vide') continue;
    const tkhd = child(init, trak, 'tkhd');
    const mdhd = child(init, mdia, 'mdhd');
    const stbl = pathFrom(init, mdia, ['minf', 'stbl']);
    const stsd = stbl && child(init, stbl, 'stsd');
    if (!tkhd || !mdhd || !stsd) continue;
    // stsd: version and flags, entry count, then the sample entries.
    const entry = boxes(init, stsd.body + 8, stsd.end)[0];
    if (!entry) continue;
    const codec = codecOf(init, entry);
    if (!codec) continue;
    const v1 = init[mdhd.body] === 1;
    const tkhdV1 = init[tkhd.body] === 1;
    return {
      trackId: dv.getUint32(tkhd.body + (tkhdV1 ? 20 : 12)),
      timescale: dv.getUint32(mdhd.body + (v1 ? 20 : 12)),
      codec,
      width: dv.getUint16(entry.body + 24),
      height: dv.getUint16(entry.body + 26),
    };
  }
  return null;
}

function pathFrom(b: Uint8Array, from: Box, path: string[]): Box | undefined {
  let box: Box | undefined = from;
  for (const type of path) box = box && child(b, box, type);
  return box;
}

/** The codec string of one visual sample entry (avc1/avc3 with avcC, hvc1/hev1 with hvcC). */
function codecOf(b: Uint8Array, entry: Box): string | null {
  if (entry.type === 'avc1' || entry.type === 'avc3') {
    const avcC = child(b, entry, 'avcC', VISUAL_ENTRY_FIELDS);
    if (!avcC || avcC.end - avcC.body < 4) return null;
    // configurationVersion, AVCProfileIndication, profile_compatibility, AVCLevelIndication
    return `${entry.type}.${hex2(b[avcC.body + 1]!)}${hex2(b[avcC.body + 2]!)}${hex2(b[avcC.body + 3]!)}`;
  }
  if (entry.type === 'hvc1' || entry.type === 'hev1') {
    const hvcC = child(b, entry, 'hvcC', VISUAL_ENTRY_FIELDS);
    if (!hvcC || hvcC.end - hvcC.body < 13) return null;
    return `${entry.type}.${hevcProfile(b.subarray(hvcC.body, hvcC.body + 13))}`;
  }
  return null;
}

/**
 * ISO/IEC 14496-15 annex E: profile space letter and profile, the compatibility flags with their
 * bits reversed (hex, no leading zeros), tier letter and level, then the constraint bytes without
 * the trailing zero ones.
 */
function hevcProfile(c: Uint8Array): string {
  const space = ['', 'A', 'B', 'C'][c[1]! >> 6]!;
  const tier = (c[1]! >> 5) & 1 ? 'H' : 'L';
  const profile = c[1]! & 0x1f;
  let compat = view(c).getUint32(2);
  let reversed = 0;
  for (let i = 0; i < 32; i++) {
    reversed = (reversed << 1) | (compat & 1);
    compat >>>= 1;
  }
  const constraints = Array.from(c.subarray(6, 12));
  while (constraints.length && constraints[constraints.length - 1] === 0) constraints.pop();
  const parts = [`${space}${profile}`, (reversed >>> 0).toString(16).toUpperCase(), `${tier}${c[12]}`];
  return [...parts, ...constraints.map((x) => x.toString(16).toUpperCase())].join('.');
}

/** One producer reference time: the media time of a fragment's first sample and the wall clock then. */
export interface ProducerTime {
  trackId: number;
  /** media time in the track's timescale */
  mediaTime: number;
  /** the producer's wall clock, ms since 1970 (from NTP format) */
  wallMs: number;
}

// Seconds from the NTP epoch (1900) to the Unix epoch (1970).
const NTP_UNIX = 2_208_988_800;

/** The `prft` box among the top-level boxes of a fragment, read; null when it carries none. */
export function producerTime(fragment: Uint8Array): ProducerTime | null {
  const prft = boxes(fragment).find((x) => x.type === 'prft');
  if (!prft || prft.end - prft.body < 20) return null;
  const dv = view(fragment);
  const version = fragment[prft.body]!;
  const ntpSecs = dv.getUint32(prft.body + 8);
  const ntpFrac = dv.getUint32(prft.body + 12);
  const mediaTime =
    version === 1 && prft.end - prft.body >= 24
      ? Number(dv.getBigUint64(prft.body + 16))
      : dv.getUint32(prft.body + 16);
  return {
    trackId: dv.getUint32(prft.body + 4),
    mediaTime,
    wallMs: (ntpSecs - NTP_UNIX) * 1000 + (ntpFrac * 1000) / 2 ** 32,
  };
}

/** Whether bytes start an initialisation segment (ftyp, or a bare moov) rather than a fragment. */
export function isInitSegment(b: Uint8Array): boolean {
  const first = boxes(b)[0]?.type;
  return first === 'ftyp' || first === 'moov';
}
