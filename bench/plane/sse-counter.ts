/**
 * A worker thread of the telemetry bench's client: opens its share of SSE streams and records,
 * per chunk read, when it arrived (epoch ms, performance.timeOrigin + now: comparable across
 * threads) and how many frames it carried (one `data: ` line each), without parsing. The client
 * is split over threads so that reading 1,024 sockets is not itself the bottleneck on a 2-core
 * machine (one thread read ~200 MB per sweep at 500 nodes).
 */
import { Agent, request, type IncomingMessage } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';

export interface CounterTarget {
  host: string;
  port: number;
  path: string;
  token: string;
}
export interface CounterReport {
  arrivals: number[];
  counts: number[];
}

const { targets } = workerData as { targets: CounterTarget[] };
const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
const needle = Buffer.from('data: ');
const arrivals: number[] = [];
const counts: number[] = [];
let recording = false;

function count(buf: Buffer): number {
  let n = 0;
  for (let i = buf.indexOf(needle); i !== -1; i = buf.indexOf(needle, i + 6)) n++;
  return n;
}

function open(t: CounterTarget): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { accept: 'text/event-stream' };
    if (t.token) headers.authorization = `Bearer ${t.token}`;
    const req = request({ host: t.host, port: t.port, path: t.path, agent, headers }, (res) => {
      if (res.statusCode !== 200) {
        reject(new Error(`stream ${res.statusCode}`));
        return;
      }
      res.on('data', (chunk: Buffer) => {
        if (!recording) return;
        const n = count(chunk);
        if (!n) return;
        arrivals.push(performance.timeOrigin + performance.now());
        counts.push(n);
      });
      resolve(res);
    });
    req.on('error', reject);
    req.end();
  });
}

const streams = await Promise.all(targets.map(open));
parentPort!.on('message', (m: 'record' | 'stop') => {
  if (m === 'record') {
    recording = true;
    return;
  }
  for (const s of streams) s.destroy();
  parentPort!.postMessage({ arrivals, counts } satisfies CounterReport);
  parentPort!.close();
});
parentPort!.postMessage('ready');
