import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A minimal S3 endpoint on 127.0.0.1 that keeps objects in memory and records every request's
 * headers: enough for the settings' probe (put, get, delete) and an empty listing.
 */
export async function fakeS3(): Promise<{ endpoint: string; requests: IncomingHttpHeaders[]; close(): Promise<void> }> {
  const objects = new Map<string, Buffer>();
  const requests: IncomingHttpHeaders[] = [];
  const server: Server = createServer((req, res) => {
    requests.push(req.headers);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://x').pathname;
      if (req.method === 'PUT') {
        objects.set(path, Buffer.concat(chunks));
        res.writeHead(200, { etag: '"1"' }).end();
        return;
      }
      if (req.method === 'DELETE') {
        objects.delete(path);
        res.writeHead(204).end();
        return;
      }
      const body = objects.get(path);
      if (body) {
        res.writeHead(200, { 'content-length': body.length, 'content-type': 'application/octet-stream' }).end(body);
        return;
      }
      if (req.url?.includes('list-type=2')) {
        res
          .writeHead(200, { 'content-type': 'application/xml' })
          .end(
            '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>evidence</Name><IsTruncated>false</IsTruncated><KeyCount>0</KeyCount></ListBucketResult>',
          );
        return;
      }
      res
        .writeHead(404, { 'content-type': 'application/xml' })
        .end('<?xml version="1.0" encoding="UTF-8"?><Error><Code>NoSuchKey</Code></Error>');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    endpoint: `127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
