import type { Db } from '../../db/database.js';
import { channels, rightsNoticesQueued, type LiveBus } from '../../live/bus.js';
import { visibleCameraIds, type CameraScope } from '../../rights/camera-rights.js';

// A view older than this is re-read before its next frame: the backstop for a rights notice that
// was lost (a LISTEN connection that dropped and came back re-reads every view anyway).
const MAX_AGE_MS = 5000;

/**
 * The cameras an operator may see, shared by that operator's live streams and taken from THE
 * camera-rights rule (visibleCameraIds). While a view is re-read (a grant changed, or it aged)
 * its streams hold their frames and then check them against the new rights, so a frame of a
 * camera no longer granted is never sent.
 */
export class RightsView {
  set: Set<string> | null = null;
  refs = 0;
  private loadedAt = 0;
  /** this process's rights notices queued when the set was read (bus.ts rightsNoticesQueued) */
  private notices = 0;
  private loading: Promise<void> | null = null;
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly db: Db,
    readonly scope: Extract<CameraScope, { kind: 'granted' }>,
  ) {}

  /** The visible set when it is current; null while it is being re-read. */
  current(): Set<string> | null {
    if (this.set && (performance.now() - this.loadedAt > MAX_AGE_MS || this.notices !== rightsNoticesQueued()))
      this.invalidate();
    return this.set;
  }

  invalidate(): void {
    this.invalidatedAt = performance.now();
    this.set = null;
    void this.load();
  }

  /** Calls `fn` once the view is current again. */
  whenCurrent(fn: () => void): void {
    this.waiters.add(fn);
    void this.load();
  }

  load(): Promise<void> {
    if (!this.loading) {
      this.loading = (async () => {
        for (;;) {
          const startedAt = performance.now();
          const notices = rightsNoticesQueued();
          try {
            const ids = await visibleCameraIds(this.db, this.scope);
            // An invalidation during the read means the read may predate the change: read again.
            if (startedAt <= this.invalidatedAt) continue;
            this.set = ids === 'all' ? new Set() : ids;
            this.loadedAt = startedAt;
            this.notices = notices;
            break;
          } catch {
            await new Promise((r) => setTimeout(r, 500));
          }
        }
        this.loading = null;
        for (const fn of [...this.waiters]) {
          this.waiters.delete(fn);
          fn();
        }
      })();
    }
    return this.loading;
  }

  private invalidatedAt = 0;
}

export class StreamRights {
  private readonly views = new Map<string, RightsView>();

  constructor(private readonly db: Db) {}

  /**
   * Follows rights notices from every plane process: a user's grants (`user_id`), or anything
   * that moves rights for a whole organisation (`org_id`: a camera's tags, a camera or tag deleted).
   */
  start(bus: LiveBus): void {
    bus.subscribe(
      channels.rights,
      (payload) => {
        const { user_id, org_id } = JSON.parse(payload) as { user_id?: string; org_id?: string };
        for (const [key, v] of this.views) {
          if (user_id ? key === user_id : org_id ? v.scope.orgId === org_id : true) v.invalidate();
        }
      },
      () => {
        for (const v of this.views.values()) v.invalidate();
      },
    );
  }

  /** The view of a `granted` scope, loaded; release it when the stream ends. */
  async acquire(scope: Extract<CameraScope, { kind: 'granted' }>): Promise<{ view: RightsView; release: () => void }> {
    let v = this.views.get(scope.userId);
    if (!v) {
      v = new RightsView(this.db, scope);
      this.views.set(scope.userId, v);
    }
    v.refs++;
    const view = v;
    if (!view.current()) await view.load();
    let held = true;
    return {
      view,
      release: () => {
        if (!held) return;
        held = false;
        if (--view.refs === 0 && this.views.get(scope.userId) === view) this.views.delete(scope.userId);
      },
    };
  }
}
