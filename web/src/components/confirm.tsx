import { useEffect, useId, useRef, useState, type ReactNode } from 'react';
import { errorSentence } from '../api/error-words.js';

/**
 * A destructive action confirmed with the object's name (issue 22): the button opens a dialog in
 * which the user types `name`; the action runs only when it matches (surrounding spaces aside).
 * The dialog stays open while `onConfirm` runs; a refusal of the plane is said in words beside the
 * name field, the typed name kept, and the dialog closes only when the action is done.
 */
export function ConfirmButton(props: {
  /** The button's text, "Delete" by default; the dialog's confirm button repeats it. */
  label?: string;
  /** The object's name the user must type. */
  name: string;
  /** What the action does, said in the dialog ("Its module can no longer send."). */
  consequence?: ReactNode;
  /** The action (a mutation's promise); what it throws is said by errorSentence. */
  onConfirm(): Promise<unknown>;
  className?: string;
}) {
  const label = props.label ?? 'Delete';
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" className={props.className} onClick={() => setOpen(true)}>
        {label}
      </button>
      {open && <ConfirmDialog {...props} label={label} onClose={() => setOpen(false)} />}
    </>
  );
}

function ConfirmDialog(props: {
  label: string;
  name: string;
  consequence?: ReactNode;
  onConfirm(): Promise<unknown>;
  onClose(): void;
}) {
  const [typed, setTyped] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  useEffect(() => input.current?.focus(), []);
  const matches = typed.trim() === props.name;
  return (
    <div className="confirm-backdrop">
      <form
        className="confirm"
        role="dialog"
        aria-modal="true"
        aria-labelledby={`${id}-title`}
        onKeyDown={(e) => {
          if (e.key === 'Escape') props.onClose();
        }}
        onSubmit={async (e) => {
          e.preventDefault();
          if (!matches || busy) return;
          setBusy(true);
          setError(null);
          try {
            await props.onConfirm();
            props.onClose();
          } catch (err) {
            setError(errorSentence(err));
            setBusy(false);
          }
        }}
      >
        <h3 id={`${id}-title`}>
          {props.label} {props.name}?
        </h3>
        {props.consequence && <p>{props.consequence}</p>}
        <label htmlFor={`${id}-name`}>
          Type <b className="confirm-name">{props.name}</b> to confirm
        </label>
        <input
          id={`${id}-name`}
          ref={input}
          name="confirm-name"
          autoComplete="off"
          value={typed}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${id}-error` : undefined}
          onChange={(e) => setTyped(e.target.value)}
        />
        {error && (
          <p id={`${id}-error`} className="error" role="alert">
            {error}
          </p>
        )}
        <div className="actions">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
          <button type="submit" className="danger" disabled={!matches || busy}>
            {props.label}
          </button>
        </div>
      </form>
    </div>
  );
}
