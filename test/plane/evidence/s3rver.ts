import { spawn, type ChildProcess } from 'node:child_process';

/** s3rver (a real S3-protocol server) in a process of its own on 127.0.0.1:port, with bucket `evidence`; it can be killed like a server dies. */
export async function startS3rver(port: number, dir: string): Promise<ChildProcess> {
  const code = `const S3rver = require('s3rver'); new S3rver({ port: ${port}, address: '127.0.0.1', silent: true, directory: ${JSON.stringify(dir)}, configureBuckets: [{ name: 'evidence' }] }).run().then(() => console.log('ready'));`;
  const proc = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((resolve, reject) => {
    proc.stdout!.once('data', () => resolve());
    proc.once('exit', (c) => reject(new Error(`s3rver exited ${c}`)));
  });
  return proc;
}
