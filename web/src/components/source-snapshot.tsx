import { errorSentence } from '../api/error-words.js';
import { useSnapshotSource } from '../hooks/use-cameras.js';

/**
 * "Snapshot" in the camera form (issue 22: a snapshot before saving): the chosen node reads one
 * frame of the typed source (`POST /cameras/probe/snapshot`, the probe's rules and 10 s) and the
 * picture is shown under the form, or why not in words. A stored password shown as *** is not
 * sent: the node would try it literally.
 */
export function SourceSnapshot(props: { node: string; url: string }) {
  const snap = useSnapshotSource();
  const masked = props.url.includes(':***@');
  const image = snap.data?.ok && snap.data.image ? `data:image/jpeg;base64,${snap.data.image}` : null;
  return (
    <>
      <button
        type="button"
        disabled={!props.node.trim() || !props.url.trim() || masked || snap.isPending}
        title={masked ? "The source's password is hidden (***): type it again to take a snapshot." : undefined}
        onClick={() => snap.mutate({ node_id: props.node.trim(), url: props.url.trim() })}
      >
        Snapshot
      </button>
      <div className="wide snapshot" role="status" aria-live="polite" aria-label="Snapshot">
        {snap.isPending
          ? 'Reading a picture from the source on the node (up to 10 s)…'
          : snap.isError
            ? errorSentence(snap.error)
            : snap.data && !snap.data.ok
              ? `No picture: ${snap.data.error ?? 'the node gave no reason'}.`
              : null}
        {image && <img src={image} alt="Snapshot of the main source" />}
      </div>
    </>
  );
}
