import type { Db } from '../../db/database.js';
import type { ReadRoute } from '../../db/database.types.js';
import type { Job } from '../../jobs/jobs.js';

/** What a page needs of the event log: the stream position (EventLog.headCursor). */
interface StreamHead {
  headCursor(): Promise<string>;
}

/** Where a page of events reads, and the stream cursor it answers with. */
export interface PageRead {
  db: Db;
  cursor: string;
}

const MARK_EVERY_MS = 1000;
const MARKS_KEPT = 64;

/**
 * Where feed pages, searches and analytics batches read, with the event stream cursor they give
 * back. The stream resumes after that cursor, so the page must hold every event up to it: on the
 * primary the cursor is taken just before the page (as without replicas); on a replica it is a
 * cursor taken on the primary earlier, at a WAL position the replica has replayed past (so it sees
 * every event up to that cursor). Events after it that the page shows too come again on the
 * stream, as events committed during a primary page always could: clients keep them by id.
 */
export class ReadMarks {
  /** Cursors of the primary, oldest first, each with the WAL position right after it was taken. */
  private readonly marks: Array<{ lsn: bigint; cursor: string }> = [];

  constructor(
    private readonly reads: ReadRoute,
    private readonly head: StreamHead,
    private readonly primary: Db,
  ) {}

  /** A replica in use and a cursor it has read past; else the primary with a cursor taken now. */
  async read(): Promise<PageRead> {
    const pin = this.reads.pin();
    if (pin)
      for (let i = this.marks.length - 1; i >= 0; i--)
        if (this.marks[i]!.lsn <= pin.replayed) return { db: pin.db, cursor: this.marks[i]!.cursor };
    return { db: this.primary, cursor: await this.head.headCursor() };
  }

  /** With replicas: a cursor of the primary each second (without, pages take theirs on the primary). */
  jobs(): Job[] {
    if (!this.reads.replicated) return [];
    return [
      {
        name: 'events.read_marks',
        everyMs: MARK_EVERY_MS,
        budgetMs: MARK_EVERY_MS * 3,
        fixedRate: true,
        run: async () => {
          const cursor = await this.head.headCursor();
          // After the cursor: every event up to it committed before this position.
          const lsn = await this.reads.primaryLsn();
          this.marks.push({ lsn, cursor });
          if (this.marks.length > MARKS_KEPT) this.marks.shift();
        },
      },
    ];
  }
}
