import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type AddressInfo } from 'node:net';
import { Heartbeat, SilentDatabaseError } from '../../../src/plane/db/heartbeat.js';

// The heartbeat tells a silent server from a stalled plane process: an answer that arrived while
// this process could not run is not silence (CI saw a loaded test process sever every connection).
const url = process.env.TEST_DATABASE_URL;

function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // a process that gets no CPU, or runs a long synchronous task
  }
}

describe.skipIf(!url)('the database heartbeat (PostgreSQL server)', () => {
  let hb: Heartbeat | undefined;
  afterEach(() => hb?.drop());

  it('passes when the answer came while the process was stalled past the time-out', async () => {
    hb = new Heartbeat({ connectionString: url }, 100);
    await hb.check(); // connected
    const check = hb.check();
    stall(1000); // the query is on the wire; the server answers well within this
    await expect(check).resolves.toBeUndefined();
  });

  it('fails a server that says nothing within the time-out', async () => {
    // Accepts the connection and never answers, as a server behind a lost NAT entry.
    const silent = createServer(() => {});
    await new Promise<void>((res) => silent.listen(0, '127.0.0.1', res));
    const { port } = silent.address() as AddressInfo;
    try {
      hb = new Heartbeat({ host: '127.0.0.1', port, user: 'postgres' }, 100);
      await expect(hb.check()).rejects.toBeInstanceOf(SilentDatabaseError);
    } finally {
      silent.close();
    }
  });
});
