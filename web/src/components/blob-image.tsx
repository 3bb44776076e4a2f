import { useEffect, useState } from 'react';
import { sessionToken } from '../api/client.js';

/** Bytes the API serves behind the bearer header, fetched and shown through an object URL. */
export async function fetchBlob(path: string): Promise<Blob | null> {
  const res = await fetch(path, { headers: { authorization: `Bearer ${sessionToken() ?? ''}` } });
  return res.ok ? res.blob() : null;
}

export function BlobImage(props: { path: string; alt: string; className?: string }) {
  const [url, setUrl] = useState<string | null>(null);
  const [missing, setMissing] = useState(false);
  useEffect(() => {
    let made: string | null = null,
      gone = false;
    fetchBlob(props.path).then(
      (b) => {
        if (gone) return;
        if (!b) {
          setMissing(true);
          return;
        }
        made = URL.createObjectURL(b);
        setUrl(made);
      },
      () => setMissing(true),
    );
    return () => {
      gone = true;
      if (made) URL.revokeObjectURL(made);
    };
  }, [props.path]);
  if (missing) return <div className={`${props.className ?? ''} no-preview`}>No preview</div>;
  return url ? (
    <img src={url} alt={props.alt} className={props.className} />
  ) : (
    <div className={`${props.className ?? ''} no-preview`}>…</div>
  );
}

/**
 * The plane answers attachments and previews on 4 response slots shared by every reader (429
 * `event_response_busy` beyond them): the feed's thumbnails take at most 2 at once, so a card's
 * download still finds one free.
 */
const THUMBS_AT_ONCE = 2;
let thumbsRunning = 0;
const waiting: Array<() => void> = [];
async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (thumbsRunning >= THUMBS_AT_ONCE) await new Promise<void>((go) => waiting.push(go));
  thumbsRunning++;
  try {
    return await work();
  } finally {
    thumbsRunning--;
    waiting.shift()?.();
  }
}

/** Thumbnails already fetched, by path (a row scrolled away and back is not fetched again); the oldest URL is let go past 300. */
const thumbs = new Map<string, Promise<string | null>>();
function thumbnailUrl(path: string): Promise<string | null> {
  let url = thumbs.get(path);
  if (!url) {
    url = inTurn(() => fetchBlob(path)).then(
      (b) => (b ? URL.createObjectURL(b) : null),
      () => null,
    );
    thumbs.set(path, url);
    if (thumbs.size > 300) {
      const [oldest, gone] = thumbs.entries().next().value!;
      thumbs.delete(oldest);
      void gone.then((u) => u && URL.revokeObjectURL(u));
    }
  }
  return url;
}

/**
 * A small preview for a feed row. The feed mounts only the rows on screen (and a few beyond), so
 * mounting is being seen; the fetch waits 200 ms of it, and a list scrolled past quickly asks for
 * nothing. Nothing is shown when the plane has no preview.
 */
export function Thumbnail(props: { path: string; alt: string }) {
  const [url, setUrl] = useState<string | null>(null);
  useEffect(() => {
    let gone = false;
    const timer = setTimeout(() => void thumbnailUrl(props.path).then((u) => !gone && setUrl(u)), 200);
    return () => {
      gone = true;
      clearTimeout(timer);
    };
  }, [props.path]);
  return <span className="thumb">{url && <img src={url} alt={props.alt} />}</span>;
}

export async function download(path: string, name: string): Promise<void> {
  const b = await fetchBlob(path);
  if (!b) return;
  const url = URL.createObjectURL(b);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
