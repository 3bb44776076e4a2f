import { lstat, mkdir, opendir, readFile, realpath, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomic } from '../../common/atomic-file.js';
import { resolveInside } from '../../common/resolve-inside.js';
import { refusedEvidenceDir } from '../config/evidence-dir.js';

/**
 * The evidence folder belongs to the plane (issue 25): the local storage lists, moves and
 * deletes only objects in its own key layout, and only in a folder that carries its marker.
 * A folder that holds anything else is refused as an evidence folder, so `argus-plane evidence
 * migrate` can never empty a data dir or /etc that was once named as one.
 */
export const EVIDENCE_MARKER = '.argus-evidence';
const MARKER_TEXT =
  'argus-evidence-folder 1\n# This folder holds the evidence objects of an Argus control plane; the plane lists and moves\n' +
  '# only objects in its own layout (<org uuid>/<yyyy-mm-dd>/<ref uuid>), and only in a folder that holds this file.\n';

const UUID = '[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}';
const ORG = new RegExp(`^${UUID}$`);
const DAY = /^\d{4}-\d{2}-\d{2}$/;
const OBJECT = new RegExp(`^${UUID}(\\.preview\\.jpg)?$`);
/** The plane's own files beside the objects: the marker, temp files of atomic writes, settings probes. */
const OWN = '.argus-';

/** `<org>/<yyyy-mm-dd>/<ref>` or its preview: the only keys the plane writes (storageKey, previewKey). */
export function isEvidenceKey(key: string): boolean {
  const [org, day, object, ...rest] = key.split('/');
  return rest.length === 0 && ORG.test(org ?? '') && DAY.test(day ?? '') && OBJECT.test(object ?? '');
}

/** A folder the plane will not use for evidence; `reason` is for the operator (no secret in it). */
export class EvidenceFolderRefused extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

type Found = { kind: 'object'; key: string; path: string } | { kind: 'foreign'; rel: string };

/**
 * Walks the key layout only: three levels of folders and regular files whose names match it.
 * Symbolic links are never followed or listed (a link in the layout could name any file on the
 * machine). Everything else is reported as foreign, and never descended into.
 */
async function* walk(root: string): AsyncGenerator<Found> {
  const levels = [ORG, DAY, OBJECT];
  async function* level(dir: string, rel: string[], depth: number): AsyncGenerator<Found> {
    let d;
    try {
      d = await opendir(dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for await (const e of d) {
      if (e.name.startsWith(OWN)) continue;
      if (depth === 0 && e.name === 'lost+found' && e.isDirectory()) continue; // a dedicated volume's root
      const path = join(dir, e.name);
      const inLayout = levels[depth]!.test(e.name) && (depth < 2 ? e.isDirectory() : e.isFile());
      if (!inLayout) yield { kind: 'foreign', rel: [...rel, e.name].join('/') };
      else if (depth < 2) yield* level(path, [...rel, e.name], depth + 1);
      else yield { kind: 'object', key: [...rel, e.name].join('/'), path };
    }
  }
  yield* level(root, [], 0);
}

/** The objects of an owned folder, in the layout; whatever else is there is not the plane's and is skipped. */
export async function* layoutObjects(root: string): AsyncGenerator<{ key: string; path: string }> {
  for await (const f of walk(root)) if (f.kind === 'object') yield f;
}

async function hasMarker(dir: string): Promise<boolean> {
  const path = resolveInside(dir, EVIDENCE_MARKER);
  try {
    // lstat: a link named like the marker does not make a folder the plane's
    if (!(await lstat(path)).isFile()) return false;
    return (await readFile(path, 'utf8')).startsWith('argus-evidence-folder ');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw err;
  }
}

/** Up to `max` entries of `dir` outside the plane's layout (empty: the folder holds only what the plane writes). */
async function foreignEntries(dir: string, max = 3): Promise<string[]> {
  const out: string[] = [];
  for await (const f of walk(dir)) if (f.kind === 'foreign' && out.push(f.rel) >= max) break;
  return out;
}

export type FolderState = 'missing' | 'owned' | 'adoptable';

/**
 * What `dir` is as an evidence folder: missing, owned (its marker), adoptable (no marker, but
 * nothing in it outside the layout: empty, or written by a version before the marker). Throws
 * EvidenceFolderRefused for a system folder (by its path or where a link leads), the data dir,
 * a file, or a folder holding anything else.
 */
export async function inspectEvidenceFolder(dir: string, dataDir: string | null): Promise<FolderState> {
  const byPath = refusedEvidenceDir(dir, dataDir);
  if (byPath) throw new EvidenceFolderRefused(`evidence_storage.dir: ${byPath}`);
  let real: string;
  try {
    real = await realpath(dir);
  } catch (err) {
    // A file on the way (ENOTDIR) is missing too: making the folder then says what is wrong.
    if (['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '')) return 'missing';
    throw err;
  }
  const byTarget = refusedEvidenceDir(real, dataDir);
  if (byTarget) throw new EvidenceFolderRefused(`evidence_storage.dir: ${dir} leads to ${byTarget}`);
  if (!(await stat(real)).isDirectory())
    throw new EvidenceFolderRefused(`evidence_storage.dir: ${dir} is not a folder`);
  if (await hasMarker(dir)) return 'owned';
  const foreign = await foreignEntries(dir);
  if (foreign.length) {
    throw new EvidenceFolderRefused(
      `evidence_storage.dir: ${dir} holds files the plane did not write (${foreign.join(', ')}${foreign.length >= 3 ? ', ...' : ''}); ` +
        'give the evidence an empty folder of its own',
    );
  }
  return 'adoptable';
}

/**
 * Makes `dir` the plane's evidence folder: its marker is written when it is missing and the
 * folder holds nothing outside the layout (a new folder, or one from before the marker: adopted).
 * `create`: a missing folder is made (with its parents: the configured folder, as writes did
 * before); otherwise a missing folder is left missing. Refused folders throw.
 */
export async function claimEvidenceFolder(dir: string, dataDir: string | null, create: boolean): Promise<FolderState> {
  let state = await inspectEvidenceFolder(dir, dataDir);
  if (state === 'missing') {
    if (!create) return state;
    await mkdir(dir, { recursive: true, mode: 0o700 });
    state = await inspectEvidenceFolder(dir, dataDir); // made, or made meanwhile by another process
  }
  if (state === 'adoptable') await writeFileAtomic(resolveInside(dir, EVIDENCE_MARKER), MARKER_TEXT, 0o600);
  return 'owned';
}
