import { Ajv, type Options } from 'ajv';
import addFormats from 'ajv-formats';
import { Format } from 'typebox/format';
import { isTimestamp } from '../../common/time.js';
import type { PlaneApp } from './typed.js';

/**
 * Query strings and paths arrive as text and are coerced to the schema's types; bodies are
 * JSON and are checked exactly as sent: coercing bodies turned `{"disabled": null}` into
 * `false` and `""` into an unlimited quota.
 */
export function installValidators(app: PlaneApp): void {
  // One timestamp rule for every route (issue 25, finding 7): `date-time` is checked by
  // src/common/time.ts in both validators (strictBody uses TypeBox's), not by their own looser
  // checks (year 0000, 9999-12-31T23:59:59-01:00 and RFC 9557 suffixes passed and reached SQL).
  Format.Set('date-time', isTimestamp);
  const make = (coerceTypes: Options['coerceTypes']) => {
    const ajv = new Ajv({ coerceTypes, removeAdditional: false, useDefaults: true, allErrors: false, strict: false });
    (addFormats as unknown as (a: Ajv) => void)(ajv);
    ajv.addFormat('date-time', isTimestamp);
    return ajv;
  };
  const exact = make(false);
  const coercing = make('array');
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? exact : coercing).compile(schema));
}
