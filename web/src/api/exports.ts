import { rawFetch } from './client.js';
import type { paths } from './openapi.gen.js';

/**
 * An export of a camera's recording through the plane (issue 23, document 4 §14):
 * `GET /api/v1/cameras/{id}/export?from=&duration=&stream=main|sub[&manifest=1]` answers the MP4
 * (or, with `manifest=1`, a zip of the MP4 and its signed manifest) with a Content-Disposition
 * file name. The console's session is a bearer token, so this is a fetch, not a link: the body
 * is read as a stream to say the progress, then saved under the plane's file name. Refusals are
 * the plane's `{error: code}` (an ApiFailure thrown by rawFetch, said with errorSentence).
 */
export interface ExportRequest {
  cameraId: string;
  /** epoch ms; sent as RFC 3339 */
  from: number;
  /** seconds */
  duration: number;
  stream: 'main' | 'sub';
  /** the signed zip (export.mp4, manifest.json, manifest.sig) rather than the bare MP4 */
  manifest: boolean;
}

/** Where a download is: `received` bytes of `total` (null when the plane did not say, as with a chunked reply). */
export interface ExportProgress {
  received: number;
  total: number | null;
}

export interface ExportFile {
  name: string;
  blob: Blob;
}

/** The route in the plane's OpenAPI document: a route renamed or gone fails the type check. */
const EXPORT_ROUTE = '/api/v1/cameras/{id}/export' satisfies keyof paths;
/** Its query as the plane's schema declares it (openapi-fetch would read the body as JSON or text, not as a stream). */
type ExportQuery = paths[typeof EXPORT_ROUTE]['get']['parameters']['query'];

/** The export's address. */
function exportPath(r: ExportRequest): string {
  const query: ExportQuery = {
    from: new Date(r.from).toISOString(),
    duration: Math.round(r.duration),
    stream: r.stream,
    ...(r.manifest ? { manifest: 1 } : {}),
  };
  const q = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  return `${EXPORT_ROUTE.replace('{id}', encodeURIComponent(r.cameraId))}?${q.toString()}`;
}

/**
 * The file name of a Content-Disposition header: `filename*` (RFC 5987, UTF-8) before `filename`;
 * null when it names none. Path separators are taken out: the name is the plane's, but a file
 * name is no place for a folder.
 */
export function fileNameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const star = /filename\*\s*=\s*([^']*)'[^']*'([^;]+)/i.exec(disposition);
  let name: string | null = null;
  if (star) {
    try {
      name = decodeURIComponent(star[2]!.trim().replace(/^"|"$/g, ''));
    } catch {
      name = null;
    }
  }
  if (name === null) {
    const plain = /filename\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^;]+))/i.exec(disposition);
    if (plain) name = plain[1] !== undefined ? plain[1].replace(/\\(.)/g, '$1') : plain[2]!.trim();
  }
  const safe = name?.replace(/[/\\]/g, '_').trim();
  return safe ? safe : null;
}

/**
 * Downloads the export: `onProgress` is told once the first byte arrived and after each chunk
 * (the node builds the whole file before its first byte, so until then the caller says
 * "Preparing…"). `signal` cancels it at any point.
 */
export async function downloadExport(
  r: ExportRequest,
  onProgress: (p: ExportProgress) => void,
  signal?: AbortSignal,
): Promise<ExportFile> {
  const res = await rawFetch(exportPath(r), { signal });
  const length = Number(res.headers.get('content-length'));
  const total = Number.isFinite(length) && length > 0 ? length : null;
  const type = res.headers.get('content-type') ?? (r.manifest ? 'application/zip' : 'video/mp4');
  const name = fileNameOf(res.headers.get('content-disposition')) ?? `export.${r.manifest ? 'zip' : 'mp4'}`;
  const chunks: Uint8Array[] = [];
  let received = 0;
  if (res.body) {
    const reader = res.body.getReader();
    // Cancelled while the body comes: the reader is cancelled too (a fetch whose body another
    // layer hands over, a service worker's, does not always end it on the signal alone).
    const stop = () => void reader.cancel().catch(() => {});
    signal?.addEventListener('abort', stop, { once: true });
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        chunks.push(value);
        received += value.byteLength;
        onProgress({ received, total });
      }
    } finally {
      signal?.removeEventListener('abort', stop);
    }
    signal?.throwIfAborted();
  } else {
    const whole = new Uint8Array(await res.arrayBuffer());
    chunks.push(whole);
    received = whole.byteLength;
    onProgress({ received, total });
  }
  return { name, blob: new Blob(chunks as BlobPart[], { type }) };
}

/** Hands a downloaded file to the browser's downloads under `name` (an object URL and a link with `download`). */
export function saveFile(file: ExportFile): void {
  const url = URL.createObjectURL(file.blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = file.name;
  a.rel = 'noopener';
  document.body.append(a);
  a.click();
  a.remove();
  // The download has taken the blob once the click is handled; the URL is freed a little later.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
