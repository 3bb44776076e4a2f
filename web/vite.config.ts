import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';

// The console is built into dist/console, which the plane serves at / (src/plane/console).
export default defineConfig({
  root: new URL('.', import.meta.url).pathname,
  plugins: [react()],
  build: {
    outDir: '../dist/console',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    chunkSizeWarningLimit: 600,
  },
  server: { proxy: { '/api': 'http://127.0.0.1:8080' } },
});
