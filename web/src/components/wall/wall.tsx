import { useEffect, useRef, useState } from 'react';
import type { Camera } from '../../api/cameras.js';
import { toggleFullscreen, useFullscreenElement } from '../../hooks/use-wall.js';
import {
  dropView,
  layoutWords,
  putView,
  resolveWall,
  sameName,
  wallPage,
  type View,
  type WallAddress,
} from '../../lib/wall-layout.js';
import { CameraPicker } from './camera-picker.js';
import { ViewNameForm } from './view-form.js';
import { WallBar } from './wall-bar.js';
import { WallGrid } from './wall-grid.js';
import './wall.css';

/**
 * The live wall (issue 23, docs/console.md "Live wall"): the cameras of the address or of the open
 * saved view on a layout, paged; a tile maximised in place; the wall or a tile in full screen;
 * views saved, renamed and deleted in the user's preferences. The address holds what is shown
 * (`go` moves it), so a reload or a link shows the same wall.
 */
export function LiveWall(props: {
  cameras: Camera[];
  /** the saved views; null until read */
  views: View[] | null;
  /** why the views could not be read, in words */
  viewsProblem: string | null;
  address: WallAddress;
  go(a: WallAddress): void;
  saveViews(views: View[]): Promise<unknown>;
  phone: boolean;
}) {
  const { address, go, cameras } = props;
  const views = props.views ?? [];
  // A renamed view is saved before the address follows: meanwhile the old name in the address
  // means the new one (else the wall would flash every camera, the old name being gone).
  const [rename, setRename] = useState<{ from: string; to: string } | null>(null);
  const renaming =
    rename && address.view && sameName(address.view, rename.from) && !views.some((v) => sameName(v.name, rename.from));
  useEffect(() => {
    if (rename && address.view && sameName(address.view, rename.to)) setRename(null);
  }, [rename, address.view]);
  const wall = resolveWall(
    renaming ? { ...address, view: rename.to } : address,
    views,
    cameras.map((c) => c.id),
  );
  const byId = new Map(cameras.map((c) => [c.id, c]));
  const shown = wallPage(
    wall.cameras.map((id) => byId.get(id)!),
    wall.layout,
    address.page,
    props.phone,
  );
  const [maximised, setMaximised] = useState<string | null>(null);
  const [panel, setPanel] = useState<'picker' | 'save' | 'rename' | null>(null);
  const ref = useRef<HTMLElement>(null);
  const full = useFullscreenElement();
  const wallFull = full !== null && full === ref.current;

  // Escape leaves full screen first (a browser whose own Escape reaches the page: a kiosk, a
  // headless one; elsewhere the browser has left it already), then gives the wall back from a
  // maximised tile. Inside a field or a dialog Escape is theirs.
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const field = (e.target as Element | null)?.closest?.('input, select, textarea, [role=dialog]');
      if (e.key !== 'Escape' || field) return;
      if (document.fullscreenElement && ref.current?.contains(document.fullscreenElement)) toggleFullscreen(null);
      else setMaximised(null);
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  }, []);

  // A view opened plain: the address's edits and page go.
  const open = (name: string | null) => go({ view: name, layout: null, cameras: null, page: 0 });
  // An edit of the open view (or of the plain wall) stays in the address until saved.
  const edit = (change: Partial<WallAddress>) => go({ ...address, view: wall.view?.name ?? null, page: 0, ...change });
  const summary = `${layoutWords(wall.layout)}, ${wall.cameras.length} camera${wall.cameras.length === 1 ? '' : 's'}`;

  return (
    <section ref={ref} className={`live-wall${props.phone ? ' phone' : ''}`} aria-label="Live wall">
      <WallBar
        layout={wall.layout}
        side={shown.side}
        onLayout={(layout) => edit({ layout })}
        views={props.views}
        view={wall.view}
        changed={wall.changed}
        onOpenView={open}
        pickerOpen={panel === 'picker'}
        onPicker={() => setPanel(panel === 'picker' ? null : 'picker')}
        onSave={() => setPanel('save')}
        onRename={() => setPanel('rename')}
        onDelete={async () => {
          await props.saveViews(dropView(views, wall.view!.name));
          open(null);
        }}
        fullscreen={wallFull}
        onFullscreen={() => toggleFullscreen(ref.current)}
        page={shown.page}
        pages={shown.pages}
        onPage={(page) => go({ ...address, page })}
      />
      {props.viewsProblem && <p className="error">{props.viewsProblem}</p>}
      {wall.missingView && (
        <p className="note" role="status">{`You have no saved view named “${wall.missingView}”.`}</p>
      )}
      {panel === 'picker' && (
        <CameraPicker
          cameras={cameras}
          chosen={wall.cameras}
          onChange={(ids) => edit({ cameras: ids })}
          onClose={() => setPanel(null)}
        />
      )}
      {panel === 'save' && (
        <ViewNameForm
          title="Save view"
          submit="Save"
          initial={wall.view?.name ?? ''}
          summary={`${summary}. A view of the same name is saved over.`}
          onSubmit={async (name) => {
            await props.saveViews(putView(views, { name, layout: wall.layout, camera_ids: wall.cameras }));
            open(name);
          }}
          onClose={() => setPanel(null)}
        />
      )}
      {panel === 'rename' && wall.view && (
        <ViewNameForm
          title="Rename view"
          submit="Rename"
          initial={wall.view.name}
          onSubmit={async (name) => {
            const from = wall.view!.name;
            setRename({ from, to: name });
            await props.saveViews(putView(views, { ...wall.view!, name }, from)).catch((err: unknown) => {
              setRename(null);
              throw err;
            });
            go({ ...address, view: name });
          }}
          onClose={() => setPanel(null)}
        />
      )}
      {shown.tiles.length ? (
        <WallGrid tiles={shown.tiles} side={shown.side} maximised={maximised} onMaximise={setMaximised} />
      ) : (
        <p className="empty">No camera on this wall: choose some with Cameras.</p>
      )}
    </section>
  );
}
