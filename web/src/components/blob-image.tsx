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
