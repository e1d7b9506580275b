// @ts-check
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * Builds the operator dashboard into ./dist, served by the admin module at
 * `<adminPath>/dashboard/`. Relative asset URLs because that path is chosen by each app.
 * In dev the page is served at /admin/dashboard/ so that the API base derived from the page's
 * URL (`..`) is /admin, proxied to a demo on :3100.
 */
export default defineConfig(({ command }) => ({
  root,
  base: command === 'serve' ? '/admin/dashboard/' : './',
  // Preact through Vite's own JSX transform (no Babel preset needed).
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  resolve: {
    alias: { react: 'preact/compat', 'react-dom': 'preact/compat' },
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // One small JS and one CSS file: nothing to gain from module preload polyfills.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  server: {
    port: 5173,
    strictPort: false,
    proxy: {
      // Everything under /admin except the dashboard itself goes to the API.
      '^/admin/(?!dashboard/)': { target: 'http://localhost:3100', changeOrigin: false },
    },
  },
}));
