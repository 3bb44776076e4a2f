import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { defineConfig, type Plugin } from 'vite';
import react from '@vitejs/plugin-react';
import { compression } from 'vite-plugin-compression2';

/**
 * The service worker (web/sw.js, hand-written: it keeps the shell and nothing else, see
 * docs/console.md) written to dist/console/sw.js with its build stamped in: a digest of the
 * bundle's file names (hashed by content) and of index.html. A console built anew is a worker
 * whose bytes differ, so the browser installs it, and it replaces the previous shell's cache.
 */
function serviceWorker(): Plugin {
  return {
    name: 'argus-service-worker',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const digest = createHash('sha256');
      for (const name of Object.keys(bundle).sort()) {
        const file = bundle[name]!;
        digest.update(name);
        if (name === 'index.html' && file.type === 'asset') digest.update(file.source);
      }
      const source = readFileSync(new URL('./sw.js', import.meta.url), 'utf8');
      if (!source.includes('__ARGUS_BUILD__')) throw new Error('web/sw.js lost its build placeholder');
      this.emitFile({
        type: 'asset',
        fileName: 'sw.js',
        source: source.replace('__ARGUS_BUILD__', digest.digest('hex').slice(0, 16)),
      });
    },
  };
}

// The console is built into dist/console, which the plane serves at / (src/plane/console).
// web/public/ (the manifest and the icons) is copied there as it is.
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  plugins: [
    react(),
    serviceWorker(),
    // Every text asset gets a .br and a .gz beside it, compressed once here at the highest levels
    // (brotli 11, gzip 9) rather than per request: the plane sends the variant the browser accepts
    // (preCompressed in src/plane/console). A variant no smaller than its file is not written.
    // The manifest (.vite/) is read by the tests and the bundle bench, never served.
    compression({
      algorithms: ['brotliCompress', 'gzip'],
      include: /\.(html|css|js|mjs|json|svg|webmanifest|map)$/,
      exclude: /(^|\/)\.vite\//,
      logLevel: 'silent',
    }),
  ],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    // .vite/manifest.json: which chunks each entry and dynamic import loads (bench/console/bundle.ts).
    manifest: true,
    rollupOptions: {
      output: {
        // The player's and the charts' libraries, each a chunk of its own name, loaded by import()
        // where a player or a chart is drawn; a test reads the manifest for these names (issue 22).
        manualChunks: (id) =>
          id.includes('/node_modules/hls.js/') ? 'hls' : id.includes('/node_modules/uplot/') ? 'uplot' : undefined,
      },
    },
    chunkSizeWarningLimit: 600,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
