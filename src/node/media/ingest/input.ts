import { fileURLToPath } from 'node:url';

/** How a stream's `input` URL is read; each kind gets its own ffmpeg input options. */
export type InputKind = 'testsrc' | 'file' | 'rtsp' | 'rtmp' | 'http';

export interface TestsrcOptions {
  width: number;
  height: number;
  rate: number;
  /** kbit/s of the synthetic H.264. */
  bitrate: number;
}

export interface InputPlan {
  kind: InputKind;
  /** ffmpeg arguments up to and including `-i <source>`. */
  args: string[];
  /** Frames per second the source promises, when it says so up front (testsrc); else learnt from ffmpeg. */
  nominalFps?: number;
  /** testsrc is generated, so always encoded; every other input is copied unless its codec forbids it. */
  encode: boolean;
}

/** What an http(s) source may open: plain and TLS HTTP, their transport, AES-128 segments, the CONNECT tunnel of the source gate. */
const HTTP_PROTOCOLS = 'http,https,tcp,tls,crypto,httpproxy';

/** `args` (an input side) with ffmpeg sent through the HTTP proxy `proxy` (the source gate, source-gate.ts). */
export function withHttpProxy(args: string[], proxy: string): string[] {
  const i = args.lastIndexOf('-i');
  return [...args.slice(0, i), '-http_proxy', proxy, ...args.slice(i)];
}

const SIZE = /^([1-9][0-9]{1,3})x([1-9][0-9]{1,3})$/;

/**
 * `testsrc://<label>?size=320x180&rate=10&bitrate=150`: a synthetic picture (ffmpeg's testsrc,
 * whose picture carries a running clock) for demos, tests and benchmarks. Small defaults so
 * several fit on two cores.
 */
export function testsrcOptions(url: URL): TestsrcOptions {
  const q = url.searchParams;
  const size = SIZE.exec(q.get('size') ?? '320x180');
  const rate = Number(q.get('rate') ?? 10);
  const bitrate = Number(q.get('bitrate') ?? 150);
  return {
    width: size ? Math.min(+size[1], 1920) & ~1 : 320,
    height: size ? Math.min(+size[2], 1080) & ~1 : 180,
    rate: Number.isInteger(rate) && rate >= 1 && rate <= 60 ? rate : 10,
    bitrate: Number.isInteger(bitrate) && bitrate >= 16 && bitrate <= 20_000 ? bitrate : 150,
  };
}

export function inputKind(input: string): InputKind {
  const scheme = input.slice(0, input.indexOf(':')).toLowerCase();
  if (scheme === 'testsrc' || scheme === 'file' || scheme === 'rtsp' || scheme === 'rtmp') return scheme;
  if (scheme === 'http' || scheme === 'https') return 'http';
  throw new Error(`unsupported input scheme "${scheme}"`);
}

/**
 * The ffmpeg input side for `input`. Sources that are not live by nature (testsrc, files) are
 * read at their native rate (`-re`) so that the live edge moves in real time; files loop.
 */
export function planInput(input: string): InputPlan {
  const kind = inputKind(input);
  switch (kind) {
    case 'testsrc': {
      const o = testsrcOptions(new URL(input));
      return {
        kind,
        encode: true,
        nominalFps: o.rate,
        args: ['-re', '-f', 'lavfi', '-i', `testsrc=size=${o.width}x${o.height}:rate=${o.rate}`],
      };
    }
    case 'file':
      return { kind, encode: false, args: ['-re', '-stream_loop', '-1', '-i', fileURLToPath(input)] };
    case 'rtsp':
      // TCP first: cameras behind NAT and lossy links lose UDP packets, and copied video cannot
      // conceal them. A camera (or relay) that refuses interleaved TCP gets UDP instead.
      return { kind, encode: false, args: ['-rtsp_flags', 'prefer_tcp', '-i', input] };
    case 'rtmp':
      return { kind, encode: false, args: ['-i', input] };
    case 'http':
      // Only network protocols: an HLS playlist may name `file:` segments, which ffmpeg's hls
      // demuxer opens (with a media extension) unless the whitelist says no (issue 25, item 3).
      return {
        kind,
        encode: false,
        args: [
          '-reconnect',
          '1',
          '-reconnect_streamed',
          '1',
          '-reconnect_delay_max',
          '4',
          '-protocol_whitelist',
          HTTP_PROTOCOLS,
          '-i',
          input,
        ],
      };
  }
}
