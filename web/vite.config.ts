import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { compression } from 'vite-plugin-compression2';

// The console is built into dist/console, which the plane serves at / (src/plane/console).
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  plugins: [
    react(),
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
