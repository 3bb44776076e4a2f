import { afterEach, describe, expect, it, vi } from 'vitest';
import { browserLanguages, clip, eventTitle, localised, text, when } from '../../web/src/lib/text.js';

describe('localised titles (document 2: a string or an object of localisations)', () => {
  const title = { de: 'Kamera offline', en: 'Camera offline', fr: 'Caméra hors ligne' };
  it("the browser's language first, then its base language, then en, then the first entry", () => {
    expect(localised(title, ['fr-CH', 'de'])).toBe('Caméra hors ligne');
    expect(localised(title, ['de-AT'])).toBe('Kamera offline');
    expect(localised(title, ['ja'])).toBe('Camera offline');
    expect(localised({ ja: '東京', ko: '서울' }, ['pt'])).toBe('東京');
    expect(localised({ 'EN-gb': 'Colour' }, ['en-GB'])).toBe('Colour');
  });
  it('a string is itself; nothing usable is empty', () => {
    expect(localised('Plate read', ['de'])).toBe('Plate read');
    for (const v of [null, undefined, 3, [], ['en'], {}, { en: 7 }]) expect(localised(v, ['en'])).toBe('');
    expect(localised({ en: 7, de: 'Sieben' }, ['en'])).toBe('Sieben');
  });
  it("an event's title falls back to its detector, then a word", () => {
    expect(eventTitle({ detector_title: { en: 'Offline' }, detector: 'system.camera_offline' })).toBe('Offline');
    expect(eventTitle({ detector_title: {}, detector: 'system.camera_offline' })).toBe('system.camera_offline');
    expect(eventTitle({})).toBe('event');
  });
});

describe('any value as text', () => {
  it('scalars written out, objects as their localisation or JSON, nothing as empty', () => {
    expect(text(null)).toBe('');
    expect(text(0)).toBe('0');
    expect(text(false)).toBe('false');
    expect(text({ en: 'Gate' })).toBe('Gate');
    expect(text({ n: 1 })).toBe('{"n":1}');
    expect(text([1, 'a'])).toBe('[1,"a"]');
    const loop: Record<string, unknown> = {};
    loop.self = loop;
    expect(text(loop)).toBe('[object Object]');
  });
  it('long text is cut with an ellipsis; bad times are a dash', () => {
    expect(clip('x'.repeat(16 * 1024), 10)).toBe(`${'x'.repeat(9)}…`);
    expect(clip('short', 10)).toBe('short');
    expect(when('not a date')).toBe('—');
    expect(when(undefined)).toBe('—');
  });
});

describe("the browser's languages", () => {
  afterEach(() => vi.unstubAllGlobals());
  it('a POSIX locale the browser reports becomes a tag Intl takes, and a time is still written', () => {
    // The npm-shipped Chromium under LANG=C reports "en-US@posix": Intl threw, and /live, /review
    // and every page with a time showed "This item could not be shown".
    vi.stubGlobal('navigator', { languages: ['en-US@posix', 'de_DE.UTF-8', 'C', 'en-US'] });
    expect(browserLanguages()).toEqual(['en-US', 'de-DE']);
    expect(() => new Intl.DateTimeFormat([...browserLanguages()])).not.toThrow();
    expect(when('2026-11-26T10:00:00Z', { zone: 'UTC', clock: '24h' })).toMatch(/10:00:00/);
    vi.stubGlobal('navigator', { language: 'C' });
    expect(browserLanguages()).toEqual([]);
  });
});
