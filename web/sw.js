/* global self, caches, fetch, Response */
/**
 * The console's service worker (issue 22: installable, says so when offline). It keeps the shell
 * only: index.html and the hashed files of /assets/ (their names change with their content, so a
 * cached one is never stale). Everything else goes to the network as if it were not here: the API
 * (/api/, its event streams included) is never cached nor even answered from here, nor are the
 * players' media (the nodes' origins, blob:), the manifest or the icons.
 *
 * The build (web/vite.config.ts) writes this file to dist/console/sw.js with BUILD replaced by a
 * digest of the bundle: a new console is a new worker, which takes a new cache and drops the old.
 */
const BUILD = '__ARGUS_BUILD__';
const PREFIX = 'argus-shell-';
const SHELL = PREFIX + BUILD;
/** index.html as the plane answers any console page; kept under this one key. */
const INDEX = '/';

/** index.html and the files it loads itself (entry script, style sheet, preloaded chunks). */
async function precache() {
  const cache = await caches.open(SHELL);
  const index = await fetch(INDEX, { cache: 'no-cache' });
  if (!index.ok) throw new Error(`the console's index answered ${index.status}`);
  const html = await index.clone().text();
  const assets = new Set([...html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)].map((m) => m[1]));
  await cache.addAll([...assets]);
  await cache.put(INDEX, index);
}

self.addEventListener('install', (event) => {
  event.waitUntil(precache().then(() => self.skipWaiting()));
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith(PREFIX) && k !== SHELL).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

/** A page: the plane's index.html when it answers (a new console shows at once), the kept one when it does not. */
async function page(request) {
  const cache = await caches.open(SHELL);
  try {
    const fresh = await fetch(request);
    // Only the console's page is kept: a tab opened on the manifest or an icon is a navigation too.
    if (fresh.ok && (fresh.headers.get('content-type') ?? '').startsWith('text/html'))
      await cache.put(INDEX, fresh.clone());
    return fresh;
  } catch {
    return (await cache.match(INDEX)) ?? Response.error();
  }
}

/** A hashed asset: the kept copy, else the network's, kept for next time (a page's lazy chunk the first time it opens). */
async function asset(request) {
  const cache = await caches.open(SHELL);
  const kept = await cache.match(request);
  if (kept) return kept;
  const fresh = await fetch(request);
  if (fresh.ok) await cache.put(request, fresh.clone());
  return fresh;
}

self.addEventListener('fetch', (event) => {
  const request = event.request;
  if (request.method !== 'GET') return;
  const url = new URL(request.url);
  // Other origins (the nodes' media) and the API: not intercepted, always the network.
  if (url.origin !== self.location.origin || url.pathname.startsWith('/api/')) return;
  if (request.mode === 'navigate') event.respondWith(page(request));
  else if (url.pathname.startsWith('/assets/')) event.respondWith(asset(request));
});
