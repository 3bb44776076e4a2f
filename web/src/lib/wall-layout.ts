/**
 * The live wall's rules without React (issue 23, docs/console.md "Live wall"): how many tiles a
 * layout has, which cameras a page of the wall shows, what the address says about the wall, and
 * the saved views' list as PUT /api/v1/me/preferences takes it (document 4 §12).
 */

export const LAYOUTS = ['1', '2x2', '3x3', '4x4', 'auto'] as const;
export type Layout = (typeof LAYOUTS)[number];

/** A saved view as the preferences hold it: camera ids in grid order. */
export interface View {
  name: string;
  layout: Layout;
  camera_ids: string[];
}

/** At most 4x4: the wall never shows more tiles than the 16 players the console lets play at once. */
export const MAX_SIDE = 4;

export const isLayout = (v: unknown): v is Layout =>
  typeof v === 'string' && (LAYOUTS as readonly string[]).includes(v);

/** The layout's name as a person reads it ("2×2", "Auto"). */
export const layoutWords = (l: Layout): string => (l === 'auto' ? 'Auto' : l.replace('x', '×'));

/**
 * Tiles per side: the layout's own, or for `auto` the smallest square that holds `count` cameras
 * (at least 1, at most 4x4; more cameras than that are paged). `phone` caps the side at 2, so a
 * tile stays readable on a 390 px screen (1 or 2x2).
 */
export function sideOf(layout: Layout, count: number, phone = false): number {
  const side = layout === 'auto' ? Math.min(MAX_SIDE, Math.max(1, Math.ceil(Math.sqrt(count)))) : Number(layout[0]);
  return phone ? Math.min(side, 2) : side;
}

/** One page of the wall: the cameras it shows (grid order), its side, its number (clamped) and the count of pages. */
export interface WallPage<T> {
  side: number;
  tiles: T[];
  page: number;
  pages: number;
}

/** The `page`th page (0-based, clamped into range) of `cameras` on `layout`. */
export function wallPage<T>(cameras: readonly T[], layout: Layout, page: number, phone = false): WallPage<T> {
  const side = sideOf(layout, cameras.length, phone);
  const per = side * side;
  const pages = Math.max(1, Math.ceil(cameras.length / per));
  const at = Math.min(Math.max(0, Math.floor(Number.isFinite(page) ? page : 0)), pages - 1);
  return { side, tiles: cameras.slice(at * per, at * per + per), page: at, pages };
}

/** What the address says about the wall: an open view, and the layout and cameras when they differ from it. */
export interface WallAddress {
  view: string | null;
  layout: Layout | null;
  cameras: string[] | null;
  /** 0-based; written 1-based in the address. */
  page: number;
}

/** `?view=&layout=&cameras=a,b&page=` read leniently: an unknown layout or a bad page is left out. */
export function parseWall(search: string): WallAddress {
  const q = new URLSearchParams(search);
  const layout = q.get('layout');
  const cameras = q.get('cameras');
  const page = Number(q.get('page') ?? '1');
  return {
    view: q.get('view') || null,
    layout: isLayout(layout) ? layout : null,
    cameras:
      cameras === null
        ? null
        : cameras
            .split(',')
            .map((c) => c.trim())
            .filter(Boolean),
    page: Number.isInteger(page) && page >= 1 ? page - 1 : 0,
  };
}

/** The address's query for `a` in a fixed order ('' for the plain wall), so one wall has one link. */
export function wallSearch(a: WallAddress): string {
  const q = new URLSearchParams();
  if (a.view) q.set('view', a.view);
  if (a.layout) q.set('layout', a.layout);
  if (a.cameras) q.set('cameras', a.cameras.join(','));
  if (a.page > 0) q.set('page', String(a.page + 1));
  const s = q.toString().replace(/%2C/g, ',');
  return s ? `?${s}` : '';
}

/** Names are told apart ignoring case, as the plane does (duplicate_view_name). */
export const sameName = (a: string, b: string): boolean => a.toLowerCase() === b.toLowerCase();

/** The wall to show: the layout and cameras after the address, the open view and the cameras the user may see. */
export interface ResolvedWall {
  view: View | null;
  /** The address names a view the user has not (deleted, or another browser's name). */
  missingView: string | null;
  layout: Layout;
  /** Only cameras the user may see now, each once, in the view's (or the address's) order. */
  cameras: string[];
  /** The layout or cameras shown differ from the open view's: there is something to save. */
  changed: boolean;
}

/**
 * Resolves the address against the saved views and `visible` (the ids of GET /cameras, in their
 * order). With neither a view nor cameras named, the wall shows every visible camera. A camera the
 * user can no longer see is left out (the plane already does so on read; the list may be newer).
 */
export function resolveWall(a: WallAddress, views: readonly View[], visible: readonly string[]): ResolvedWall {
  const view = a.view ? (views.find((v) => sameName(v.name, a.view!)) ?? null) : null;
  const seen = new Map(visible.map((id) => [id.toLowerCase(), id]));
  const wanted = a.cameras ?? view?.camera_ids ?? visible;
  const cameras = [...new Set(wanted.map((id) => seen.get(id.toLowerCase())).filter((id): id is string => !!id))];
  const layout = a.layout ?? view?.layout ?? 'auto';
  const viewCameras = view ? view.camera_ids.map((id) => seen.get(id.toLowerCase())).filter(Boolean) : [];
  const changed =
    !!view &&
    (layout !== view.layout || cameras.length !== viewCameras.length || cameras.some((c, i) => c !== viewCameras[i]));
  return { view, missingView: a.view && !view ? a.view : null, layout, cameras, changed };
}

/**
 * The views with `view` saved: in place of `replacing` (a rename) or of a view of the same name
 * (saving over it), else added at the end. The plane checks the count and the names.
 */
export function putView(views: readonly View[], view: View, replacing?: string): View[] {
  const at = views.findIndex((v) => sameName(v.name, replacing ?? view.name));
  if (at < 0) return [...views, view];
  return views.map((v, i) => (i === at ? view : v));
}

/** The views without the one named `name`. */
export const dropView = (views: readonly View[], name: string): View[] => views.filter((v) => !sameName(v.name, name));

/** `ids` with `id` added at the end (grid order) or taken out. */
export const toggleCamera = (ids: readonly string[], id: string, on: boolean): string[] =>
  on ? (ids.includes(id) ? [...ids] : [...ids, id]) : ids.filter((c) => c !== id);
