import { useEffect, useState } from 'react';

/**
 * The node's thumbnail of a moment, fetched and shown from a blob: URL. The console's content
 * policy lets media and XHR reach the registered nodes, not images (img-src is the plane, blob:
 * and data:), so the picture is read as a fetch (the node answers with CORS and a day's cache,
 * which the browser's cache keeps for the same URL) and the previous request is dropped when the
 * hover moves on, so a sweep across the bar leaves no line of downloads behind it.
 */
export function HoverThumb(props: { src: string; alt: string }) {
  const [shown, setShown] = useState<{ src: string; url: string } | null>(null);
  const [failed, setFailed] = useState(false);
  useEffect(() => {
    const abort = new AbortController();
    let url: string | null = null;
    setFailed(false);
    fetch(props.src, { signal: abort.signal })
      .then(async (r) => {
        if (!r.ok) throw new Error(String(r.status));
        url = URL.createObjectURL(await r.blob());
        if (abort.signal.aborted) URL.revokeObjectURL(url);
        else setShown({ src: props.src, url });
      })
      .catch(() => {
        if (!abort.signal.aborted) setFailed(true);
      });
    return () => {
      abort.abort();
      if (url) URL.revokeObjectURL(url);
    };
  }, [props.src]);
  if (failed) return <span className="no-rec">No picture</span>;
  // The last picture stays until the next one has come, so the hover does not flicker.
  return shown ? (
    <img src={shown.url} alt={props.alt} width={160} data-src={shown.src} />
  ) : (
    <span className="no-rec">…</span>
  );
}
