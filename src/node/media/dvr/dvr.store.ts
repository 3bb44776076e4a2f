import { appendFile, mkdir, readFile, readdir, rm, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { removeOrphanTempFiles, writeFileAtomic } from '../../../common/atomic-file.js';
import { resolveInside } from '../../../common/resolve-inside.js';

/** One recorded segment: `<storage>/<stream>/<YYYY-MM-DD>/<start_ms>-<duration_ms>.ts`. */
export interface RecordedSegment {
  start: number;
  duration: number;
  bytes: number;
  /** Path relative to the stream folder. */
  file: string;
}

const DAY = /^[0-9]{4}-[0-9]{2}-[0-9]{2}$/;
const NAME = /^([0-9]{10,16})-([0-9]{1,9})\.ts$/;
export const INDEX_FILE = 'index.jsonl';

export function segmentEnd(s: RecordedSegment): number {
  return s.start + s.duration;
}

/**
 * The recording of one stream on one storage. Segment files are written whole (temp file,
 * fsync, rename) so a crash leaves a finished segment or none; their names carry the start and
 * duration, so the folder itself is the truth and `index.jsonl` (one JSON line per segment, for
 * tools and quick reading) is rebuilt from it at start and after every removal.
 */
export class DvrStore {
  private segments: RecordedSegment[] = [];
  private total = 0;
  readonly dir: string;

  constructor(
    readonly storagePath: string,
    readonly stream: string,
  ) {
    this.dir = resolveInside(storagePath, stream);
  }

  get bytes(): number {
    return this.total;
  }

  get count(): number {
    return this.segments.length;
  }

  list(): readonly RecordedSegment[] {
    return this.segments;
  }

  async load(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o750 });
    const found: RecordedSegment[] = [];
    for (const day of (await readdir(this.dir)).filter((d) => DAY.test(d)).sort()) {
      const dayDir = join(this.dir, day);
      await removeOrphanTempFiles(dayDir);
      for (const name of await readdir(dayDir)) {
        const m = NAME.exec(name);
        if (!m) continue;
        const st = await stat(join(dayDir, name)).catch(() => null);
        if (!st?.isFile()) continue;
        found.push({ start: Number(m[1]), duration: Number(m[2]), bytes: st.size, file: `${day}/${name}` });
      }
    }
    found.sort((a, b) => a.start - b.start);
    this.segments = found;
    this.total = found.reduce((a, s) => a + s.bytes, 0);
    await this.writeIndex();
  }

  /** Copies a finished live segment into the recording; returns the number of file writes made. */
  async add(start: number, durationMs: number, data: Uint8Array): Promise<number> {
    if (this.find(start)) return 0;
    const day = new Date(start).toISOString().slice(0, 10);
    const rel = `${day}/${start}-${durationMs}.ts`;
    await mkdir(join(this.dir, day), { recursive: true, mode: 0o750 });
    await writeFileAtomic(resolveInside(this.dir, rel), data, 0o640);
    const seg: RecordedSegment = { start, duration: durationMs, bytes: data.length, file: rel };
    await appendFile(join(this.dir, INDEX_FILE), JSON.stringify(seg) + '\n', { mode: 0o640 });
    // Segments arrive in order; a restarted ffmpeg can only start later, so append keeps the order.
    const last = this.segments[this.segments.length - 1];
    this.segments.push(seg);
    if (last && last.start > start) this.segments.sort((a, b) => a.start - b.start);
    this.total += seg.bytes;
    return 2;
  }

  /** Segments that overlap [fromMs, toMs). */
  range(fromMs: number, toMs: number): RecordedSegment[] {
    return this.segments.filter((s) => segmentEnd(s) > fromMs && s.start < toMs);
  }

  find(start: number): RecordedSegment | undefined {
    return this.segments.find((s) => s.start === start);
  }

  path(seg: RecordedSegment): string {
    return resolveInside(this.dir, seg.file);
  }

  oldest(): RecordedSegment | undefined {
    return this.segments[0];
  }

  /** Removes every segment that ended before `beforeMs`; returns how many. */
  async pruneBefore(beforeMs: number): Promise<number> {
    const doomed = this.segments.filter((s) => segmentEnd(s) <= beforeMs);
    if (doomed.length > 0) await this.remove(doomed);
    return doomed.length;
  }

  async removeOldest(n: number): Promise<void> {
    await this.remove(this.segments.slice(0, n));
  }

  private async remove(doomed: RecordedSegment[]): Promise<void> {
    const gone = new Set(doomed);
    this.segments = this.segments.filter((s) => !gone.has(s));
    for (const s of doomed) {
      this.total -= s.bytes;
      await rm(this.path(s), { force: true });
    }
    // Empty day folders go too, so the folder count stays bounded by the retention.
    for (const day of new Set(doomed.map((s) => s.file.slice(0, 10)))) {
      if (!this.segments.some((s) => s.file.startsWith(day))) await rmdir(join(this.dir, day)).catch(() => undefined);
    }
    await this.writeIndex();
  }

  private async writeIndex(): Promise<void> {
    await writeFileAtomic(
      join(this.dir, INDEX_FILE),
      this.segments.map((s) => JSON.stringify(s) + '\n').join(''),
      0o640,
    );
  }

  /** The index as written on disk (tests and tools). */
  async readIndex(): Promise<RecordedSegment[]> {
    const text = await readFile(join(this.dir, INDEX_FILE), 'utf8');
    return text
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as RecordedSegment);
  }
}
