// Types of scripts/gen-api-types.mjs for its test (test/plane/http/openapi-types.test.ts).
export const GENERATED_FILE: string;
export function planeOpenApi(plane: {
  buildApp: typeof import('../src/plane/app.js').buildApp;
  makeLogger: typeof import('../src/plane/app.js').makeLogger;
  openDatabase: typeof import('../src/plane/db/database.js').openDatabase;
  parsePlaneConfig: typeof import('../src/plane/config/config.js').parsePlaneConfig;
}): Promise<object>;
export function apiTypesText(document: object): Promise<string>;
