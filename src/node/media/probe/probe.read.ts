import type { NodeProbeReply } from '../../../common/node-api.js';

type Video = NonNullable<NodeProbeReply['video']>;

/** What ffmpeg said about the input it opened: the first video and audio streams of `Input #0`. */
export interface ProbeFindings {
  /** `Input #0` was printed: the source was opened and its streams read. */
  opened: boolean;
  video: Video | null;
  /** A video stream whose size ffmpeg could not tell (the probe answers it as unreadable). */
  videoWithoutSize: string | null;
  audio: { codec: string } | null;
}

/**
 * Reads ffmpeg's description of its input (`-loglevel info`), the lines the ingest reads too
 * (ingest.process.ts): `Stream #0:0[0x100]: Video: h264 (High) (...), yuv420p, 1920x1080 [SAR 1:1
 * DAR 16:9], 25 fps, 25 tbr, 90k tbn`. The frame rate is the one the source declares: `fps` (the
 * average rate of the stream), else `tbr` (ffmpeg's guess from the timestamps) when it is a frame
 * rate at all (not a `90k` time base).
 */
export class ProbeReader {
  private inInput = false;
  readonly found: ProbeFindings = { opened: false, video: null, videoWithoutSize: null, audio: null };

  line(line: string): void {
    if (/^Input #0/.test(line)) {
      this.inInput = true;
      this.found.opened = true;
      return;
    }
    if (/^(Input #[1-9]|Output #|Stream mapping|At least one output)/.test(line)) this.inInput = false;
    if (!this.inInput) return;
    const video = /^Stream #0:\d+.*?: Video: (\w+)/.exec(line);
    if (video && !this.found.video) {
      const size = /, (\d{1,5})x(\d{1,5})/.exec(line);
      if (!size || +size[1] === 0 || +size[2] === 0) {
        this.found.videoWithoutSize ??= video[1];
        return;
      }
      this.found.video = { codec: video[1], width: +size[1], height: +size[2], fps: frameRate(line) };
      return;
    }
    const audio = /^Stream #0:\d+.*?: Audio: (\w+)/.exec(line);
    if (audio && !this.found.audio) this.found.audio = { codec: audio[1] };
  }
}

function frameRate(line: string): number | null {
  const fps = /, (\d+(?:\.\d+)?)(k?) fps/.exec(line);
  if (fps && fps[2] === '') return Number(fps[1]);
  const tbr = /, (\d+(?:\.\d+)?)(k?) tbr/.exec(line);
  if (tbr && tbr[2] === '' && Number(tbr[1]) > 0 && Number(tbr[1]) <= 240) return Number(tbr[1]);
  return null;
}

/**
 * ffmpeg's failure as an operator reads it, from its (already masked) last lines. The first rule
 * that matches a line wins, so the more telling ones come first: a refused login before the
 * closed connection that follows it.
 */
const FAILURES: Array<[RegExp, string]> = [
  [
    /401 Unauthorized|authorization failed|Authentication failed|authentication required/i,
    'the source refused the login: check the user name and password',
  ],
  [/403 Forbidden/i, 'the source refused access to this address (403 Forbidden)'],
  [/404 Not Found|Stream not found/i, 'the source has nothing at this path (404 Not Found)'],
  [/Protocol not found|not on whitelist|Protocol not supported/i, 'the node does not read this kind of source'],
  [/No such file or directory/i, 'there is no such file on the node'],
  [/Permission denied/i, 'the node may not read this file'],
  [
    /Failed to resolve hostname|Name or service not known|Temporary failure in name resolution|No address associated/i,
    "the node cannot resolve the source's host name",
  ],
  [/Connection refused/i, 'nothing answers at this address and port (connection refused)'],
  [/No route to host|Network is unreachable|Host is unreachable/i, 'the node has no route to this address'],
  [/timed out/i, 'the source did not answer in time'],
  [/\b5(?:\d\d|XX) [A-Z]/, 'the source failed with a server error'],
  [/Connection reset|Broken pipe|End of file|Connection closed/i, 'the source closed the connection before any video'],
  [
    /Invalid data found|could not find codec parameters|Unknown input format|Invalid argument/i,
    'the source answered, but not with a video stream the node can read',
  ],
];

/** Words for a source that did not open; `lines` are ffmpeg's last lines, already masked. */
export function failureWords(lines: readonly string[]): string {
  for (const [pattern, words] of FAILURES) if (lines.some((l) => pattern.test(l))) return words;
  return 'the node could not open the source';
}

/** The system's words for a connection the source gate could not make (ffmpeg sees only the gate's 502). */
const ERRNO_TEXT: Record<string, string> = {
  ECONNREFUSED: 'Connection refused',
  ENOTFOUND: 'Name or service not known',
  EAI_AGAIN: 'Temporary failure in name resolution',
  EHOSTUNREACH: 'No route to host',
  ENETUNREACH: 'Network is unreachable',
  ETIMEDOUT: 'timed out',
  ECONNRESET: 'Connection reset',
};

/** Words for a source the gate could not reach, by the connection's errno code. */
export function unreachableWords(code: string): string {
  return failureWords([ERRNO_TEXT[code] ?? '']);
}
