// First: a library reading navigator.language at load must see a tag Intl takes (lib/locale-guard.ts).
import './lib/locale-guard.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { RouterProvider } from 'react-router';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { consoleRoutes } from './app.js';
import { startRouter } from './router.js';
import { OfflineBanner } from './components/offline-banner.js';
import './styles.css';

const client = new QueryClient({
  defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false, staleTime: 10_000 } },
});

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={client}>
      <RouterProvider router={startRouter(consoleRoutes())} />
      {/* Beside the router, not in the shell: it shows over the sign-in and the shell's own failures too. */}
      <OfflineBanner />
    </QueryClientProvider>
  </StrictMode>,
);

// The service worker keeps the console's shell for offline starts and makes it installable
// (web/sw.js, built to /sw.js). Only in the build: the dev server's modules are not hashed assets.
// A browser without it, or a refusal (a private window), leaves the console as it was.
if (import.meta.env.PROD && 'serviceWorker' in navigator) {
  window.addEventListener('load', () => {
    navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch(() => {});
  });
}
