import { LAYOUTS, layoutWords, type Layout, type View } from '../../lib/wall-layout.js';
import { ConfirmButton } from '../confirm.js';

/**
 * The wall's controls in one bar (wrapping into a compact one on a phone): layout, saved view,
 * cameras, save / rename / delete the view, paging and full screen.
 */
export function WallBar(props: {
  layout: Layout;
  /** the side actually shown (a phone caps it at 2) */
  side: number;
  onLayout(l: Layout): void;
  /** null until the preferences are read (or when they cannot be) */
  views: View[] | null;
  view: View | null;
  changed: boolean;
  onOpenView(name: string | null): void;
  pickerOpen: boolean;
  onPicker(): void;
  onSave(): void;
  onRename(): void;
  onDelete(): Promise<unknown>;
  fullscreen: boolean;
  onFullscreen(): void;
  page: number;
  pages: number;
  onPage(page: number): void;
}) {
  const capped = props.layout !== 'auto' && Number(props.layout[0]) > props.side;
  return (
    <div className="wall-bar" role="toolbar" aria-label="Live wall">
      <label>
        Layout
        <select value={props.layout} onChange={(e) => props.onLayout(e.target.value as Layout)}>
          {LAYOUTS.map((l) => (
            <option key={l} value={l}>
              {layoutWords(l)}
            </option>
          ))}
        </select>
      </label>
      {capped && <small className="meta">{`${props.side}×${props.side} here`}</small>}
      <label>
        View
        <select
          value={props.view?.name ?? ''}
          disabled={!props.views}
          onChange={(e) => props.onOpenView(e.target.value || null)}
        >
          <option value="">All cameras</option>
          {props.views?.map((v) => (
            <option key={v.name} value={v.name}>
              {v.name}
            </option>
          ))}
        </select>
      </label>
      {props.changed && <small className="note">not saved</small>}
      <button type="button" aria-expanded={props.pickerOpen} onClick={props.onPicker}>
        Cameras
      </button>
      <button type="button" disabled={!props.views} onClick={props.onSave}>
        Save view
      </button>
      {props.view && (
        <>
          <button type="button" onClick={props.onRename}>
            Rename view
          </button>
          <ConfirmButton
            label="Delete view"
            name={props.view.name}
            consequence="The view is gone for you in every browser; the cameras stay."
            onConfirm={props.onDelete}
          />
        </>
      )}
      {props.pages > 1 && (
        <span className="wall-pager">
          <button
            type="button"
            aria-label="Previous page"
            disabled={props.page === 0}
            onClick={() => props.onPage(props.page - 1)}
          >
            ‹ Previous
          </button>
          <span aria-live="polite">{`Page ${props.page + 1} of ${props.pages}`}</span>
          <button
            type="button"
            aria-label="Next page"
            disabled={props.page >= props.pages - 1}
            onClick={() => props.onPage(props.page + 1)}
          >
            Next ›
          </button>
        </span>
      )}
      <button type="button" className="wall-full" onClick={props.onFullscreen}>
        {props.fullscreen ? 'Leave full screen' : 'Full screen'}
      </button>
    </div>
  );
}
