import { resolve, sep } from 'node:path';

/**
 * Folders that are never an evidence folder (issue 25): `argus-plane evidence migrate` once
 * emptied a folder that had been named as one. Refused by their path alone, before any file is
 * read: the configuration at start, a settings PATCH, the storage test.
 */
const SYSTEM_FOLDERS = new Set([
  '/',
  '/etc',
  '/usr',
  '/var',
  '/proc',
  '/sys',
  '/dev',
  '/boot',
  '/bin',
  '/sbin',
  '/lib',
  '/lib64',
  '/root',
  '/home',
  '/run',
  '/tmp',
  '/opt',
  '/srv',
  '/mnt',
  '/media',
  '/usr/local',
  '/var/lib',
  '/var/log',
]);
/** Kernel file systems: nothing under them holds files. */
const VIRTUAL_TREES = ['/proc', '/sys', '/dev'];

/**
 * Why `dir` cannot be the evidence folder of a plane whose data dir is `dataDir`, or null when
 * its path is acceptable (its content is checked separately: src/plane/evidence/evidence-folder.ts).
 * The data dir and every folder that holds it are refused: they hold the database, the keys and
 * plane.toml.
 */
export function refusedEvidenceDir(dir: string, dataDir: string | null): string | null {
  const d = resolve(dir);
  if (SYSTEM_FOLDERS.has(d)) return `${d} is a system folder`;
  const tree = VIRTUAL_TREES.find((v) => d.startsWith(v + sep));
  if (tree) return `${d} is inside ${tree}, a system folder`;
  if (dataDir === null) return null;
  const data = resolve(dataDir);
  if (d === data) return `${d} is the plane's data dir`;
  if (data.startsWith(d + sep)) return `${d} holds the plane's data dir`;
  return null;
}
