// The web UI's build: one page, its bundle under assets/ with content-hashed names (the server
// caches those forever and revalidates index.html). Everything ships in the bundle: no CDN.
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/',
  oxc: {
    jsx: { runtime: 'automatic', importSource: 'preact' },
  },
  build: {
    target: 'es2022',
    // Small enough to read in the jar; maps would double it for no user.
    sourcemap: false,
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 400,
  },
});
