// Astro renders the site model into the static site (issue 4). The
// verification and analysis pipeline never runs inside Astro: `ledgerboard
// build` runs it once, builds the model from the report and what it
// publishes, and serves it to the pages as the module
// `virtual:ledgerboard/site-model` (a Vite plugin added to this config by
// src/site/build/build-site.ts for that one build).
import { defineConfig } from 'astro/config';

export default defineConfig({
  output: 'static',
  trailingSlash: 'always',
  build: { format: 'directory' },
  // No network on the build machines; never phone home.
  devToolbar: { enabled: false },
});
