import { useEffect, useRef, useState, type ReactNode } from 'react';
import { errorSentence } from '../../api/error-words.js';
import { Field } from '../field.js';

/**
 * The name of a view to save or rename. A refusal of the plane is said beside the name as a
 * sentence; the name typed and the wall's unsaved layout and cameras stay as they were.
 */
export function ViewNameForm(props: {
  title: string;
  submit: string;
  initial: string;
  /** what the save will hold ("2×2, 3 cameras") */
  summary?: ReactNode;
  onSubmit(name: string): Promise<unknown>;
  onClose(): void;
}) {
  const [name, setName] = useState(props.initial);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.select(), []);
  return (
    <form
      className="wall-form"
      aria-label={props.title}
      onKeyDown={(e) => {
        if (e.key === 'Escape') props.onClose();
      }}
      onSubmit={async (e) => {
        e.preventDefault();
        if (busy) return;
        if (!name.trim()) {
          setError('Give the view a name.');
          return;
        }
        setBusy(true);
        try {
          await props.onSubmit(name.trim());
          props.onClose();
        } catch (err) {
          setError(errorSentence(err));
          setBusy(false);
        }
      }}
    >
      <Field label="Name of the view" error={error} hint={props.summary}>
        {(control) => (
          <input
            {...control}
            ref={input}
            name="view-name"
            value={name}
            maxLength={128}
            onChange={(e) => setName(e.target.value)}
          />
        )}
      </Field>
      <div className="actions">
        <button type="submit" disabled={busy}>
          {busy ? 'Saving…' : props.submit}
        </button>
        <button type="button" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </form>
  );
}
