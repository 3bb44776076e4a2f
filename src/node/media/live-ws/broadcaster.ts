import type { Fmp4Piece } from './fmp4-boxes.js';

/** What the broadcaster needs of a viewer's socket (a `ws` WebSocket has it; tests pass a plain object). */
export interface LiveSocket {
  /** Bytes queued on the socket and not yet written to the network. */
  readonly bufferedAmount: number;
  send(data: Buffer): void;
}

/**
 * A viewer whose socket holds more than this many unsent bytes is slow: its fragments are skipped
 * until the next key-frame fragment (a player can only resume at a key frame). 1 MiB is several
 * seconds of a camera's sub stream and about one second of a 8 Mbit/s main stream: enough to ride
 * out a brief stall of the network without letting one viewer hold the node's memory.
 */
export const SLOW_VIEWER_BYTES = 1024 * 1024;

/**
 * The fragments kept for new viewers (those since the last key frame) are dropped above this: a
 * source with very long key-frame intervals then lets a new viewer wait for the next key frame
 * instead of holding an unbounded group of pictures.
 */
export const MAX_CACHED_BYTES = 16 * 1024 * 1024;

interface ViewerState {
  /** Waiting for a key-frame fragment: just joined without a cache, fell behind, or a new init segment. */
  skipping: boolean;
  sent: number;
  skipped: number;
}

export interface ViewerStats {
  sent: number;
  skipped: number;
}

/**
 * One stream's live fMP4 for its WebSocket viewers. Keeps the initialisation segment and the
 * fragments since the last key frame, so a new viewer starts with a picture it can decode: the
 * init segment first, then those fragments, then each live fragment as it comes (one message
 * each). An ingest restart brings a new init segment, which every viewer is sent again.
 */
export class Broadcaster {
  private init: Buffer | null = null;
  private cache: Buffer[] = [];
  private cacheBytes = 0;
  private readonly viewers = new Map<LiveSocket, ViewerState>();

  get viewerCount(): number {
    return this.viewers.size;
  }

  /** Whether an init segment is at hand (the stream's ingest is running and has written one). */
  get ready(): boolean {
    return this.init !== null;
  }

  add(socket: LiveSocket): void {
    const state: ViewerState = { skipping: true, sent: 0, skipped: 0 };
    this.viewers.set(socket, state);
    if (!this.init) return;
    this.send(socket, state, this.init);
    if (this.cache.length === 0) return;
    state.skipping = false;
    for (const f of this.cache) this.send(socket, state, f);
  }

  remove(socket: LiveSocket): void {
    this.viewers.delete(socket);
  }

  stats(socket: LiveSocket): ViewerStats | null {
    const s = this.viewers.get(socket);
    return s ? { sent: s.sent, skipped: s.skipped } : null;
  }

  push(piece: Fmp4Piece): void {
    if (piece.kind === 'init') {
      this.init = piece.data;
      this.clearCache();
      for (const [socket, state] of this.viewers) {
        // The old run's fragments do not decode under the new init: wait for the new run's key frame.
        state.skipping = true;
        this.send(socket, state, piece.data);
      }
      return;
    }
    if (!this.init) return;
    this.remember(piece.data, piece.key);
    for (const [socket, state] of this.viewers) {
      if (socket.bufferedAmount > SLOW_VIEWER_BYTES) state.skipping = true;
      else if (piece.key) state.skipping = false;
      if (state.skipping) state.skipped++;
      else this.send(socket, state, piece.data);
    }
  }

  /** The ingest stopped: what was kept is stale. Viewers stay and get the next run's init segment. */
  reset(): void {
    this.init = null;
    this.clearCache();
  }

  private remember(data: Buffer, key: boolean): void {
    if (key) this.clearCache();
    else if (this.cache.length === 0) return; // no key frame kept to start from
    this.cache.push(data);
    this.cacheBytes += data.length;
    if (this.cacheBytes > MAX_CACHED_BYTES) this.clearCache();
  }

  private clearCache(): void {
    this.cache = [];
    this.cacheBytes = 0;
  }

  private send(socket: LiveSocket, state: ViewerState, data: Buffer): void {
    state.sent++;
    socket.send(data);
  }
}
