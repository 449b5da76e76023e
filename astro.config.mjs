// Astro renders the report model into the static site (issue 4). The
// verification and analysis pipeline never runs inside Astro: `ledgerboard
// build` runs it once and hands the report to the pages.
import { defineConfig } from 'astro/config';

export default defineConfig({
  output: 'static',
  trailingSlash: 'always',
  build: { format: 'directory' },
  // No network on the build machines; never phone home.
  devToolbar: { enabled: false },
});
