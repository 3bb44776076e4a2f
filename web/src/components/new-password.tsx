import type { ReactNode } from 'react';
import { Field } from './field.js';

/**
 * A new password typed twice (issue 22: no clear-text prompt), for the own password and for an
 * administrator's reset: the page checks the two agree before sending and says `mismatch` beside
 * the confirmation; the plane's refusal (`error`) stays beside the password with what was typed.
 */
export function NewPasswordFields(props: {
  password: string;
  again: string;
  onPassword(value: string): void;
  onAgain(value: string): void;
  mismatch: boolean;
  error: string | null;
  hint?: ReactNode;
  /** The inputs' names: distinct per form, so a password manager tells the forms apart. */
  names: { password: string; confirm: string };
}) {
  return (
    <>
      <Field label="New password" error={props.error} hint={props.hint}>
        {(a) => (
          <input
            {...a}
            name={props.names.password}
            type="password"
            autoComplete="new-password"
            value={props.password}
            onChange={(e) => props.onPassword(e.target.value)}
            required
          />
        )}
      </Field>
      <Field
        label="Confirm the new password"
        error={props.mismatch ? 'The two passwords differ: type the same one twice.' : null}
      >
        {(a) => (
          <input
            {...a}
            name={props.names.confirm}
            type="password"
            autoComplete="new-password"
            value={props.again}
            onChange={(e) => props.onAgain(e.target.value)}
            required
          />
        )}
      </Field>
    </>
  );
}
