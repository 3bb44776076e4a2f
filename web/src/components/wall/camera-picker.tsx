import type { Camera } from '../../api/cameras.js';
import { toggleCamera } from '../../lib/wall-layout.js';

/**
 * The cameras on the wall, a checkbox each: a camera checked goes to the end of the wall, one
 * unchecked leaves it. The wall follows at once; "Save view" keeps the choice.
 */
export function CameraPicker(props: {
  cameras: Camera[];
  chosen: string[];
  onChange(ids: string[]): void;
  onClose(): void;
}) {
  const chosen = new Set(props.chosen);
  return (
    <fieldset
      className="wall-picker"
      onKeyDown={(e) => {
        if (e.key === 'Escape') props.onClose();
      }}
    >
      <legend>Cameras on the wall ({props.chosen.length})</legend>
      <div className="wall-picker-list">
        {props.cameras.map((c) => (
          <label key={c.id} title={c.name}>
            <input
              type="checkbox"
              checked={chosen.has(c.id)}
              onChange={(e) => props.onChange(toggleCamera(props.chosen, c.id, e.target.checked))}
            />
            <span>{c.name}</span>
          </label>
        ))}
      </div>
      <div className="actions">
        <button type="button" onClick={() => props.onChange(props.cameras.map((c) => c.id))}>
          All cameras
        </button>
        <button type="button" onClick={() => props.onChange([])}>
          None
        </button>
        <button type="button" onClick={props.onClose}>
          Done
        </button>
      </div>
    </fieldset>
  );
}
