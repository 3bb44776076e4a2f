import { createServer } from 'node:net';

/**
 * A loopback port that was free a moment ago, for a server a bench or a test starts (and may start
 * again on it). Chosen below Linux's ephemeral range (32768-60999): a port the kernel handed out
 * for `listen(0)` can be taken in between as the local port of any outgoing connection, which made
 * a node restarted on its port, and a test's PostgreSQL standby, fail with EADDRINUSE on a loaded
 * CI machine. A server that must not fail on the rare clash left still retries on a new port.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; ; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const free = await new Promise<boolean>((res) => {
      const s = createServer();
      s.once('error', () => res(false));
      s.listen(port, '127.0.0.1', () => s.close(() => res(true)));
    });
    if (free) return port;
    if (i > 100) throw new Error('no free port below the ephemeral range');
  }
}
