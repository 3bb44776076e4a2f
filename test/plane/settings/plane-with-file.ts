import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PLANE_TOML, parsePlaneConfig, type PlaneConfig } from '../../../src/plane/config/config.js';
import { startPlane } from '../harness.js';

export const FOREIGN = "\n# kept by hand: not the plane's\n[vendor.extra]\nanswer = 42   # why not\n";

/** A plane on a plane.toml of its own (the default text and foreign lines) in a temp data dir; `over`: more configuration. */
export async function planeWithFile(
  env: Record<string, string> = {},
  lockWaitMs?: number,
  over: Partial<PlaneConfig> = {},
) {
  const dir = await mkdtemp(join(tmpdir(), 'argus-settings-'));
  const file = join(dir, 'plane.toml');
  const text = DEFAULT_PLANE_TOML + FOREIGN;
  await writeFile(file, text);
  const parsed = parsePlaneConfig({ text, configFile: file, env });
  const config: Partial<PlaneConfig> = {
    configFile: file,
    dataDir: dir,
    publicUrl: parsed.publicUrl,
    listen: parsed.listen,
    logLevel: parsed.logLevel,
    logLevelEnv: parsed.logLevelEnv,
    logLevelSource: parsed.logLevelSource,
    evidence: parsed.evidence,
    evidencePressure: parsed.evidencePressure,
    dvrExportMaxSecs: parsed.dvrExportMaxSecs,
    ...over,
  };
  const t = await startPlane({ config, settingsLockWaitMs: lockWaitMs });
  return {
    t,
    dir,
    file,
    text,
    close: async () => {
      await t.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
