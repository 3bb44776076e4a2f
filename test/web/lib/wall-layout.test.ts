/**
 * The live wall's pure rules (issue 23): tiles per layout, paging, the phone's cap, the address
 * and its reading, a view resolved against the cameras the user may see, and the saved views' list.
 */
import { describe, expect, it } from 'vitest';
import {
  dropView,
  isLayout,
  layoutWords,
  parseWall,
  putView,
  resolveWall,
  sideOf,
  toggleCamera,
  wallPage,
  wallSearch,
  type View,
} from '../../../web/src/lib/wall-layout.js';

const ids = (n: number) => Array.from({ length: n }, (_, i) => `c${i + 1}`);

describe('sideOf', () => {
  it('fixed layouts keep their side whatever the count', () => {
    expect([sideOf('1', 9), sideOf('2x2', 1), sideOf('3x3', 0), sideOf('4x4', 40)]).toEqual([1, 2, 3, 4]);
  });

  it('auto: the smallest square that holds the cameras, 1 to 4', () => {
    const sides = [0, 1, 2, 4, 5, 9, 10, 16, 17, 100].map((n) => sideOf('auto', n));
    expect(sides).toEqual([1, 1, 2, 2, 3, 3, 4, 4, 4, 4]);
  });

  it('a phone shows 1 or 2x2', () => {
    expect([sideOf('1', 5, true), sideOf('3x3', 5, true), sideOf('4x4', 1, true), sideOf('auto', 9, true)]).toEqual([
      1, 2, 2, 2,
    ]);
  });
});

describe('wallPage', () => {
  it('pages when there are more cameras than tiles, the last page holding the rest', () => {
    const first = wallPage(ids(10), '2x2', 0);
    expect(first).toEqual({ side: 2, tiles: ['c1', 'c2', 'c3', 'c4'], page: 0, pages: 3 });
    expect(wallPage(ids(10), '2x2', 2).tiles).toEqual(['c9', 'c10']);
  });

  it('a page past the end is the last one, a negative or broken one the first', () => {
    expect(wallPage(ids(10), '3x3', 7).page).toBe(1);
    expect(wallPage(ids(10), '3x3', -2).page).toBe(0);
    expect(wallPage(ids(10), '3x3', Number.NaN).page).toBe(0);
  });

  it('auto fits up to 16 on one page and never shows more than 16 tiles', () => {
    expect(wallPage(ids(16), 'auto', 0)).toMatchObject({ side: 4, pages: 1 });
    const big = wallPage(ids(40), 'auto', 0);
    expect(big.tiles.length).toBe(16);
    expect(big.pages).toBe(3);
  });

  it('no camera: one empty page', () => {
    expect(wallPage([], 'auto', 0)).toEqual({ side: 1, tiles: [], page: 0, pages: 1 });
  });
});

describe('the address', () => {
  it('reads a view, a layout, cameras and a 1-based page', () => {
    expect(parseWall('?view=Gate&layout=3x3&cameras=a,b&page=2')).toEqual({
      view: 'Gate',
      layout: '3x3',
      cameras: ['a', 'b'],
      page: 1,
    });
  });

  it('leaves out what it cannot read', () => {
    expect(parseWall('?layout=5x5&page=zero')).toEqual({ view: null, layout: null, cameras: null, page: 0 });
    expect(parseWall('')).toEqual({ view: null, layout: null, cameras: null, page: 0 });
    expect(parseWall('?cameras=')).toMatchObject({ cameras: [] });
  });

  it('writes a fixed order that reads back the same', () => {
    const a = { view: 'North & south', layout: '2x2' as const, cameras: ['a', 'b'], page: 2 };
    const s = wallSearch(a);
    expect(s).toBe('?view=North+%26+south&layout=2x2&cameras=a,b&page=3');
    expect(parseWall(s)).toEqual(a);
    expect(wallSearch({ view: null, layout: null, cameras: null, page: 0 })).toBe('');
  });
});

describe('resolveWall', () => {
  const views: View[] = [{ name: 'Gate', layout: '2x2', camera_ids: ['c2', 'c9', 'c1'] }];
  const visible = ids(4);

  it('no view, no cameras: every visible camera, auto', () => {
    expect(resolveWall(parseWall(''), views, visible)).toEqual({
      view: null,
      missingView: null,
      layout: 'auto',
      cameras: visible,
      changed: false,
    });
  });

  it("a view's cameras in its order, one no longer visible left out, unchanged", () => {
    const r = resolveWall(parseWall('?view=gate'), views, visible);
    expect(r).toMatchObject({ layout: '2x2', cameras: ['c2', 'c1'], changed: false });
    expect(r.view?.name).toBe('Gate');
  });

  it('the address overrides the view: a change to save', () => {
    expect(resolveWall(parseWall('?view=Gate&layout=1'), views, visible)).toMatchObject({ layout: '1', changed: true });
    expect(resolveWall(parseWall('?view=Gate&cameras=c1,c2'), views, visible)).toMatchObject({
      cameras: ['c1', 'c2'],
      changed: true,
    });
  });

  it('a view that is not there is said, the wall shown without it', () => {
    expect(resolveWall(parseWall('?view=Dock'), views, visible)).toMatchObject({
      view: null,
      missingView: 'Dock',
      cameras: visible,
    });
  });

  it('ids compare without case and each camera shows once', () => {
    expect(resolveWall(parseWall('?cameras=C3,c3,c1'), [], visible).cameras).toEqual(['c3', 'c1']);
  });
});

describe('the saved views', () => {
  const a: View = { name: 'Gate', layout: '2x2', camera_ids: ['c1'] };
  const b: View = { name: 'Dock', layout: '1', camera_ids: [] };

  it('a new name is added at the end; the same name (any case) is saved over in place', () => {
    expect(putView([a], b)).toEqual([a, b]);
    const over = { ...a, name: 'GATE', layout: '3x3' as const };
    expect(putView([a, b], over)).toEqual([over, b]);
  });

  it('a rename replaces the view it renames', () => {
    expect(putView([a, b], { ...a, name: 'Gate east' }, 'Gate')).toEqual([{ ...a, name: 'Gate east' }, b]);
  });

  it('a deletion takes the named view out', () => {
    expect(dropView([a, b], 'gate')).toEqual([b]);
  });

  it('cameras are added at the end and taken out', () => {
    expect(toggleCamera(['c1'], 'c2', true)).toEqual(['c1', 'c2']);
    expect(toggleCamera(['c1', 'c2'], 'c2', true)).toEqual(['c1', 'c2']);
    expect(toggleCamera(['c1', 'c2'], 'c1', false)).toEqual(['c2']);
  });

  it('layouts', () => {
    expect(['1', '2x2', 'auto', '5x5', 2].map(isLayout)).toEqual([true, true, true, false, false]);
    expect(layoutWords('3x3')).toBe('3×3');
    expect(layoutWords('auto')).toBe('Auto');
  });
});
