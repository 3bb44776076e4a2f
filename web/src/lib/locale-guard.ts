import { browserLanguages } from './text.js';

/**
 * A browser started under a POSIX locale reports it as its language ("en-US@posix": the
 * npm-shipped Chromium under LANG=C does), and Intl refuses such a tag. The console's own
 * formatting reads the languages through browserLanguages(), but a library may take
 * `navigator.language` as it is: uPlot builds `new Intl.NumberFormat(navigator.language)` when
 * its module loads, so the module threw and every page with a chart could not be shown. Here the
 * navigator's own `language` and `languages` become the well-formed tags, before any such module
 * loads (main.tsx imports this first). A browser that reports well-formed tags is left alone.
 */
export function guardBrowserLanguage(): void {
  const nav = (globalThis as { navigator?: Navigator }).navigator;
  if (!nav) return;
  const reported = Array.isArray(nav.languages) && nav.languages.length ? [...nav.languages] : [nav.language];
  const tags = browserLanguages();
  if (reported.length === tags.length && reported.every((l, i) => l === tags[i])) return;
  const languages = Object.freeze(tags.length ? [...tags] : ['en-US']);
  try {
    Object.defineProperty(nav, 'language', { value: languages[0], configurable: true });
    Object.defineProperty(nav, 'languages', { value: languages, configurable: true });
  } catch {
    // A navigator that cannot be changed keeps what it reports; the console's own text is safe anyway.
  }
}

guardBrowserLanguage();
