import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

/**
 * The console is served by the gateway at `/console/` under a CSP without inline scripts: no module
 * preload polyfill (it would be code Vite injects), every asset a hashed file under `assets/`.
 */
export default defineConfig({
  base: '/console/',
  plugins: [preact()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
  },
});
