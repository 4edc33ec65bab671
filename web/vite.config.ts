import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The dashboard. `node scripts/build-web.ts` builds it into web/dist, which the gateway serves at `/`.
 * For development with hot reload: start the gateway (npm start), then `npx vite web` (port 5173),
 * which forwards the API to it.
 */
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
    // Keep everything in files (no inline data: URLs), so the page's CSP needs no exceptions.
    assetsInlineLimit: 0,
    target: 'es2022',
  },
  server: {
    proxy: {
      '/api': 'http://127.0.0.1:8080',
      '/admin/v1': 'http://127.0.0.1:8080',
      '/files': 'http://127.0.0.1:8080',
    },
  },
});
