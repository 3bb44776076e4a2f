import { useId, type ReactNode } from 'react';

/** What a field's control carries to be named by its label and described by its error. */
export interface FieldControl {
  id: string;
  'aria-invalid'?: true;
  'aria-describedby'?: string;
}

/**
 * A labelled form field with its error beside it (issue 22: errors beside the field they concern,
 * as sentences): the sentence is announced (role alert) and describes the control, so a screen
 * reader reads it with the field. The control is the caller's, given its id and aria attributes.
 */
export function Field(props: {
  label: ReactNode;
  /** The sentence the plane's refusal or the form's own check gives for this field, if any. */
  error?: string | null;
  hint?: ReactNode;
  children(control: FieldControl): ReactNode;
}) {
  const id = useId();
  const described = [props.hint ? `${id}-hint` : '', props.error ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div className={`field${props.error ? ' invalid' : ''}`}>
      <label htmlFor={id}>{props.label}</label>
      {props.children({
        id,
        ...(props.error ? { 'aria-invalid': true as const } : {}),
        ...(described ? { 'aria-describedby': described } : {}),
      })}
      {props.hint && (
        <small id={`${id}-hint`} className="meta">
          {props.hint}
        </small>
      )}
      {props.error && (
        <p id={`${id}-error`} className="error" role="alert">
          {props.error}
        </p>
      )}
    </div>
  );
}
