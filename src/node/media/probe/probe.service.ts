import type { Logger } from 'pino';
import type { NodeProbeReply, NodeSnapshotReply } from '../../../common/node-api.js';
import { maskUrlCredentials, maskUrlPassword } from '../../../common/redact.js';
import { runFfmpeg } from '../../../common/run-ffmpeg.js';
import { inputProblem } from '../../config/validate.js';
import { spawnMedia } from '../ffmpeg.js';
import { inputKind, planInput, probeInputArgs, testsrcOptions, withHttpProxy } from '../ingest/input.js';
import { gatedEnv, SourceGate } from '../ingest/source-gate.js';
import { failureWords, ProbeReader, unreachableWords, type ProbeFindings } from './probe.read.js';

/** Document 4 §12: the node gives a probe 10 s, then ends its ffmpeg. */
export const PROBE_TIMEOUT_MS = 10_000;
/** Probes at once: each is an ffmpeg (and a source connection); a node serving streams keeps its cores for them. */
const MAX_RUNNING = 4;
/** ffmpeg's last lines kept to tell why a source did not open. */
const TAIL_LINES = 12;
/** A line longer than this is cut: a source's metadata is not read here, and a stream of text must not grow the buffer. */
const MAX_LINE = 2048;

export interface SourceProbeOptions {
  ffmpeg: string;
  log: Pick<Logger, 'info' | 'warn'>;
  /** the bound of one probe (tests give a shorter one) */
  timeoutMs?: number;
  maxRunning?: number;
}

interface Run {
  found: ProbeFindings;
  tail: string[];
  timedOut: boolean;
  startFailed: boolean;
  /** what ffmpeg wrote to its standard output (the snapshot's JPEG), when it was given an output */
  image: Buffer | null;
}

/** A snapshot's picture: one frame, at most 640 pixels wide, as a JPEG on standard output. */
const SNAPSHOT_OUTPUT = [
  '-map',
  '0:v:0',
  '-frames:v',
  '1',
  '-vf',
  "scale='min(640,iw)':-2",
  '-f',
  'image2pipe',
  '-c:v',
  'mjpeg',
  '-q:v',
  '5',
  'pipe:1',
];
/** A JPEG of a 640-pixel frame is far below this; more is not a picture of ours. */
const MAX_IMAGE_BYTES = 4 << 20;

type SnapshotReply = NodeSnapshotReply;

const failed = (error: string): NodeProbeReply => ({ ok: false, video: null, audio: null, error });

/**
 * `POST /api/v1/probe` (document 4 §12): opens a camera source once with the node's ffmpeg and
 * says what it carries, or why it could not, in words. The source is held to a stream input's
 * rules: the same URL check (config/validate.ts `inputProblem`), the same ffmpeg input options
 * and protocol whitelist, and an http(s) source only through its own source gate, so a probe
 * reaches nothing a stream of that URL could not. ffmpeg is given no output: it opens the input,
 * reads its streams, prints them and exits; the bound kills it when the source never answers.
 */
export class SourceProbe {
  private running = 0;
  private readonly timeoutMs: number;
  private readonly maxRunning: number;

  constructor(private readonly o: SourceProbeOptions) {
    this.timeoutMs = o.timeoutMs ?? PROBE_TIMEOUT_MS;
    this.maxRunning = o.maxRunning ?? MAX_RUNNING;
  }

  async probe(url: string): Promise<NodeProbeReply> {
    const problem = inputProblem(url);
    if (problem !== null) return this.answer(url, failed(`the source URL ${problem}`));
    // A picture the node generates: what it serves is known without opening anything.
    if (inputKind(url) === 'testsrc') {
      const t = testsrcOptions(new URL(url));
      const video = { codec: 'h264', width: t.width, height: t.height, fps: t.rate };
      return this.answer(url, { ok: true, video, audio: null, error: null });
    }
    if (this.running >= this.maxRunning)
      return this.answer(url, failed('the node is testing other sources right now: try again in a few seconds'));
    this.running++;
    try {
      const [reply, detail] = await this.open(url);
      return this.answer(url, reply, detail);
    } finally {
      this.running--;
    }
  }

  /**
   * "Snapshot" before a camera is saved (issue 22): the source opened as a probe opens it (the
   * same checks, gate and bound), one frame written as a JPEG at most 640 pixels wide.
   */
  async snapshot(url: string): Promise<SnapshotReply> {
    const problem = inputProblem(url);
    const refused = (error: string): SnapshotReply => ({ ok: false, image: null, error });
    if (problem !== null) return refused(`the source URL ${problem}`);
    if (this.running >= this.maxRunning)
      return refused('the node is testing other sources right now: try again in a few seconds');
    this.running++;
    try {
      const [reply, detail, image] = await this.open(url, SNAPSHOT_OUTPUT);
      const picture = image && image.length > 3 && image[0] === 0xff && image[1] === 0xd8 ? image : null;
      const out: SnapshotReply = picture
        ? { ok: true, image: picture.toString('base64'), error: null }
        : refused(reply.ok ? 'the source sent no picture the node could decode' : reply.error!);
      this.answer(url, out.ok ? reply : { ...reply, ok: false, error: out.error }, detail);
      return out;
    } finally {
      this.running--;
    }
  }

  private async open(url: string, output: string[] = []): Promise<[NodeProbeReply, string?, Buffer?]> {
    let args: string[];
    try {
      // The node's own picture is made as its stream makes it (a snapshot of it; a probe never gets here).
      args = inputKind(url) === 'testsrc' ? planInput(url).args.filter((a) => a !== '-re') : probeInputArgs(url);
    } catch {
      return [failed('the source URL is not a file path of the node')];
    }
    let gateRefused = false;
    // The gate's refusal is logged (host only) and remembered: ffmpeg itself only sees a 403.
    const watch: Pick<Logger, 'warn'> = {
      warn: (obj: unknown, msg?: string) => {
        gateRefused = true;
        this.o.log.warn(obj, msg);
      },
    };
    const gate = inputKind(url) === 'http' ? new SourceGate(url, watch, 'probe') : null;
    try {
      const proxy = gate ? await gate.open().catch(() => null) : null;
      if (gate && !proxy) return [failed('the node could not open its source gate')];
      const run = await this.run(proxy ? withHttpProxy(args, proxy) : args, proxy !== null, output);
      const [reply, detail] = this.verdict(run, gateRefused, gate?.upstreamError ?? null);
      return [reply, detail, run.image ?? undefined];
    } finally {
      await gate?.close();
    }
  }

  /** `upstream`: why the source gate could not connect to the source, when it could not. */
  private verdict(run: Run, gateRefused: boolean, upstream: string | null): [NodeProbeReply, string?] {
    const { found, tail } = run;
    const detail = tail.filter((l) => !/^At least one output file/.test(l));
    const last = detail[detail.length - 1];
    if (run.startFailed) return [failed('the node could not start ffmpeg'), last];
    if (found.video) return [{ ok: true, video: found.video, audio: found.audio, error: null }];
    if (found.opened && found.videoWithoutSize)
      return [failed(`the source's ${found.videoWithoutSize} video could not be read (its picture size is unknown)`)];
    if (found.opened) return [failed(`the source has no video${found.audio ? ', only audio' : ''}`)];
    if (gateRefused) return [failed('the source sent the node to another host, which the node does not follow'), last];
    if (run.timedOut) return [failed(`the source sent no video within ${Math.round(this.timeoutMs / 1000)} s`), last];
    if (upstream !== null) return [failed(unreachableWords(upstream)), upstream];
    return [failed(failureWords(detail)), last];
  }

  /** One ffmpeg over the input side `input`, bounded; its stderr read as it comes. */
  private async run(input: string[], gated: boolean, output: string[]): Promise<Run> {
    const args = ['-hide_banner', '-nostdin', '-loglevel', 'info', ...input, ...output];
    const reader = new ProbeReader();
    const tail: string[] = [];
    let buf = '';
    const take = (raw: string): void => {
      const line = raw.trim().slice(0, MAX_LINE);
      if (!line) return;
      reader.line(line);
      // Camera credentials must not reach the logs through ffmpeg's text (it prints the URL).
      tail.push(maskUrlCredentials(line));
      if (tail.length > TAIL_LINES) tail.shift();
    };
    const onStderr = (chunk: string): void => {
      buf += chunk;
      let i;
      while ((i = buf.search(/[\r\n]/)) >= 0) {
        take(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
      if (buf.length > MAX_LINE) buf = buf.slice(0, MAX_LINE);
    };
    const run = await runFfmpeg(this.o.ffmpeg, args, {
      timeoutMs: this.timeoutMs,
      stdout: output.length > 0,
      maxStdoutBytes: MAX_IMAGE_BYTES,
      onStderr,
      ...(gated ? { env: gatedEnv(process.env) } : {}),
      spawn: spawnMedia,
    }).catch(() => null);
    if (buf) take(buf);
    const image = run?.stdout.length ? run.stdout : null;
    return { found: reader.found, tail, timedOut: run?.timedOut ?? false, startFailed: run === null, image };
  }

  /** Logs the probe (the source's credentials masked, the last line of ffmpeg's text masked) and answers it. */
  private answer(url: string, reply: NodeProbeReply, detail?: string): NodeProbeReply {
    const source = maskUrlPassword(url);
    if (reply.ok) this.o.log.info({ source, video: reply.video, audio: reply.audio }, 'source probed');
    else this.o.log.info({ source, error: reply.error, ...(detail ? { detail } : {}) }, 'source probe failed');
    return reply;
  }
}
