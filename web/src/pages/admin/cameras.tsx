import { useState } from 'react';
import { errorSentence } from '../../api/error-words.js';
import { useMe } from '../../api/me.js';
import type { Camera, CameraChange, CameraCreate } from '../../api/cameras.js';
import { IngestCell } from '../../components/ingest-figures.js';
import { useCameraEdits, useCameras, useIngestFigures } from '../../hooks/use-cameras.js';
import { useNodes } from '../../hooks/use-nodes.js';
import { useTags } from '../../hooks/use-users.js';
import { CameraForm, type NodeChoice } from '../../components/camera-form.js';
import { ConfirmButton } from '../../components/confirm.js';
import { Link } from '../../router.js';

const short = (id: string) => id.slice(0, 8);

/** How the viewer knows the nodes: a superadmin by the fleet's list, an administrator by the cameras it sees on each. */
function nodeChoices(cameras: Camera[], listed: Array<{ id: string; name: string }> | undefined): NodeChoice[] {
  if (listed) return listed.map((n) => ({ id: n.id, label: n.name }));
  const on = new Map<string, string[]>();
  for (const c of cameras) on.set(c.node_id, [...(on.get(c.node_id) ?? []), c.name]);
  return [...on].map(([id, names]) => ({ id, label: `the node of ${names.slice(0, 3).join(', ')} (${short(id)})` }));
}

/**
 * The cameras of the organisation (administrators; a superadmin sees every organisation's): each
 * with its live state (refreshed every 5 s: the sweeper sets it from the node), node, tags and
 * recording, and the ingest's frame rate and bitrate from the latest sweep; add, change, and
 * delete with the name typed. A camera saved here is pushed to its node
 * by the plane and is live there within seconds.
 */
export function CamerasPage() {
  const me = useMe();
  const superadmin = me?.role === 'superadmin';
  const cameras = useCameras({ refetchInterval: 5_000 });
  const nodes = useNodes({ enabled: superadmin });
  const tags = useTags();
  const edits = useCameraEdits();
  const [form, setForm] = useState<{ camera?: Camera } | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const rows = cameras.data ?? [];
  const figures = useIngestFigures(rows.map((c) => c.id));
  const choices = nodeChoices(rows, superadmin ? nodes.data?.rows : undefined);
  // An administrator knows a node by its id only (the node list is the superadmin's).
  const nodeName = (id: string) => nodes.data?.rows.find((n) => n.id === id)?.name ?? short(id);
  const tagName = (id: string) => tags.data?.rows.find((t) => t.id === id)?.name ?? short(id);
  const noNode = superadmin && nodes.data?.rows.length === 0;

  const save = async (body: CameraCreate | CameraChange) => {
    const c = form?.camera;
    const saved = c
      ? await edits.change.mutateAsync({ id: c.id, body })
      : await edits.create.mutateAsync(body as CameraCreate);
    setForm(null);
    setNotice(c ? `${saved.name} was changed.` : `${saved.name} was added: its node starts it within seconds.`);
  };

  return (
    <section className="admin cameras-page">
      <div className="page-head">
        <h2>Cameras</h2>
        {cameras.isSuccess && !form && !noNode && <button onClick={() => setForm({})}>Add camera</button>}
      </div>
      {notice && <p className="banner">{notice}</p>}
      {form && (
        <CameraForm
          key={form.camera?.id ?? 'new'}
          camera={form.camera}
          nodes={choices}
          nodesListed={superadmin}
          tags={tags.data?.rows ?? []}
          busy={edits.create.isPending || edits.change.isPending}
          onSave={save}
          onCancel={() => setForm(null)}
        />
      )}
      {cameras.isPending ? (
        <p className="empty">Loading…</p>
      ) : cameras.isError ? (
        <p className="error" role="alert">
          {errorSentence(cameras.error)}
        </p>
      ) : noNode ? (
        <div className="first-step">
          <h3>Add your first node</h3>
          <p>
            A camera is served by a streaming node. Register one on the <Link to="/admin/nodes">Nodes</Link> page, then
            add cameras here.
          </p>
        </div>
      ) : rows.length === 0 ? (
        !form && (
          <div className="first-step">
            <h3>Add your first camera</h3>
            <p>
              Give it a name, the node that serves it and its source (rtsp, rtmp or http); test the source, then save.
            </p>
          </div>
        )
      ) : (
        <table className="list cameras">
          <thead>
            <tr>
              <th>Name</th>
              <th>State</th>
              <th>Ingest</th>
              <th>Node</th>
              <th>Tags</th>
              <th>Recording</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {rows.map((c) => (
              <tr key={c.id} data-camera={c.name}>
                <td className="name">
                  <Link to={`/cameras/${c.id}`}>{c.name}</Link>
                  <div className="meta source">{c.sub_source ? 'main and sub source' : 'main source'}</div>
                </td>
                <td>
                  <span className={`badge ${c.status}`} data-testid="camera-state">
                    {c.status}
                  </span>
                </td>
                <td data-label="Ingest">
                  <IngestCell figures={figures.data?.get(c.id)} failed={figures.isError} />
                </td>
                <td data-label="Node">{nodeName(c.node_id)}</td>
                <td data-label="Tags">{c.tag_ids.map(tagName).join(', ') || 'none'}</td>
                <td data-label="Recording">{c.recording ? `kept ${c.recording.retention}` : 'off'}</td>
                <td className="actions">
                  <button onClick={() => setForm({ camera: c })} aria-label={`Edit ${c.name}`}>
                    Edit
                  </button>
                  <ConfirmButton
                    name={c.name}
                    consequence="Its streams leave its node; its tags and grants go with it."
                    onConfirm={() => edits.remove.mutateAsync(c.id).then(() => setNotice(`${c.name} was deleted.`))}
                  />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
