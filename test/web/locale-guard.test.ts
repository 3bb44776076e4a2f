import { afterEach, describe, expect, it, vi } from 'vitest';
import { guardBrowserLanguage } from '../../web/src/lib/locale-guard.js';

// A browser under a POSIX locale reports "en-US@posix"; a library that hands navigator.language
// to Intl (uPlot, at load) threw, and the pages with charts were not shown (issue 25, fresh machine).
describe("the browser's reported language", () => {
  afterEach(() => vi.unstubAllGlobals());

  it('becomes a tag Intl takes, for every library that reads the navigator', () => {
    const nav = { language: 'en-US@posix', languages: ['en-US@posix', 'fr_FR.UTF-8'] };
    vi.stubGlobal('navigator', nav);
    expect(() => new Intl.NumberFormat(nav.language)).toThrow(RangeError);
    guardBrowserLanguage();
    expect([nav.language, [...nav.languages]]).toEqual(['en-US', ['en-US', 'fr-FR']]);
    expect(() => new Intl.NumberFormat(nav.language).format(1234.5)).not.toThrow();
  });

  it('is en-US when nothing reported is a language, and leaves well-formed languages alone', () => {
    const posix = { language: 'C', languages: [] as string[] };
    vi.stubGlobal('navigator', posix);
    guardBrowserLanguage();
    expect([posix.language, [...posix.languages]]).toEqual(['en-US', ['en-US']]);
    const fine = { language: 'de-CH', languages: ['de-CH', 'en'] };
    vi.stubGlobal('navigator', fine);
    guardBrowserLanguage();
    expect(Object.getOwnPropertyDescriptor(fine, 'language')).toMatchObject({ value: 'de-CH', writable: true });
    expect(fine.languages).toEqual(['de-CH', 'en']);
  });
});
