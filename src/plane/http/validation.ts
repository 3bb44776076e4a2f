import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import type { PlaneApp } from './typed.js';

/**
 * Query strings and paths arrive as text and are coerced to the schema's types; bodies are
 * JSON and are checked exactly as sent: coercing bodies turned `{"disabled": null}` into
 * `false` and `""` into an unlimited quota.
 */
export function installValidators(app: PlaneApp): void {
  const make = (coerceTypes: Options['coerceTypes']) => {
    const ajv = new Ajv({ coerceTypes, removeAdditional: false, useDefaults: true, allErrors: false, strict: false });
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    return ajv;
  };
  const exact = make(false);
  const coercing = make('array');
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? exact : coercing).compile(schema));
}
