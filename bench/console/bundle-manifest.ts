/**
 * What a console page loads, read from the build's own account of its chunks (Vite's
 * dist/console/.vite/manifest.json, `build.manifest` in web/vite.config.ts): the entry that
 * index.html names, with every chunk it imports statically (its modulepreloads), then the chunks
 * of a page that is a chunk of its own, then what that page loads with import() before it shows
 * anything (the player's hls.js on the live grid). Shared by the bundle bench and the test that
 * the login page carries neither hls.js nor the chart library (issue 22).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Chunk {
  file: string;
  name?: string;
  src?: string;
  isEntry?: boolean;
  isDynamicEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
  css?: string[];
}
export type Manifest = Record<string, Chunk>;

export function readManifest(root: string): Manifest {
  return JSON.parse(readFileSync(join(root, '.vite', 'manifest.json'), 'utf8')) as Manifest;
}

/** The libraries loaded only where they are used: hls.js by a player, uPlot by a chart. */
export const LATE_LIBRARIES = { hls: /\/node_modules\/hls\.js\//, uplot: /\/node_modules\/uplot\// } as const;

/** The manifest key of the module `src` (a path under web/, or a library matched by a pattern). */
export function keyOf(manifest: Manifest, src: string | RegExp): string | undefined {
  return Object.keys(manifest).find((k) => (typeof src === 'string' ? k === src : src.test(`/${k}`)));
}

/** The manifest keys that loading `key` fetches before it runs: itself and its static imports, transitively. */
export function staticClosure(manifest: Manifest, key: string, into = new Set<string>()): Set<string> {
  if (into.has(key)) return into;
  const chunk = manifest[key];
  if (!chunk) throw new Error(`not in the manifest: ${key}`);
  into.add(key);
  for (const k of chunk.imports ?? []) staticClosure(manifest, k, into);
  return into;
}

export const entryKey = (manifest: Manifest): string => {
  const keys = Object.keys(manifest).filter((k) => manifest[k]!.isEntry);
  if (keys.length !== 1) throw new Error(`expected one entry, found ${keys.join(', ') || 'none'}`);
  return keys[0]!;
};

/**
 * The chunks that a page loads when opened directly: the entry's, then the page module's when
 * it is a chunk of its own (if it is part of the entry, the entry holds it), then `alsoLoads`,
 * the libraries it imports before its first paint (each matched like keyOf).
 */
export function pageChunks(manifest: Manifest, page: string, alsoLoads: RegExp[] = []): Set<string> {
  const keys = staticClosure(manifest, entryKey(manifest));
  const own = keyOf(manifest, page);
  if (own) staticClosure(manifest, own, keys);
  for (const lib of alsoLoads) {
    const key = keyOf(manifest, lib);
    if (!key) throw new Error(`${String(lib)} is not a chunk of the build`);
    staticClosure(manifest, key, keys);
  }
  return keys;
}

/** The JavaScript files (paths under dist/console) of a set of manifest keys. */
export const scriptsOf = (manifest: Manifest, keys: Iterable<string>): string[] =>
  [...keys].map((k) => manifest[k]!.file).filter((f) => f.endsWith('.js'));

/**
 * Which late library a chunk holds, if any: by its module's path, or by the chunk name that
 * web/vite.config.ts gives each (manualChunks), which a chunk without a module path of its own keeps.
 */
export function lateLibrary(manifest: Manifest, key: string): keyof typeof LATE_LIBRARIES | null {
  for (const name of ['hls', 'uplot'] as const)
    if (LATE_LIBRARIES[name].test(`/${key}`) || manifest[key]?.name === name) return name;
  return null;
}

/** The pages whose load the bench measures; `live` up to its first frame (the player's hls.js). */
export const MEASURED_PAGES = {
  login: { page: 'src/pages/login.tsx', alsoLoads: [] as RegExp[] },
  live: { page: 'src/pages/live.tsx', alsoLoads: [LATE_LIBRARIES.hls] },
};
