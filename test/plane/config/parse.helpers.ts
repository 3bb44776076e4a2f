import { ConfigError, parsePlaneConfig } from '../../../src/plane/config/config.js';

/** plane.toml text parsed as the plane does, the file being /srv/argus/plane.toml. */
export const parse = (text: string, env: Record<string, string> = {}) =>
  parsePlaneConfig({ text, configFile: '/srv/argus/plane.toml', env });

/** Every problem the text has, reported together (none: []). */
export function problems(text: string, env: Record<string, string> = {}): string[] {
  try {
    parse(text, env);
  } catch (err) {
    if (err instanceof ConfigError) return err.problems;
    throw err;
  }
  return [];
}
