/**
 * Astro 5.18's `addAttribute` (astro/dist/runtime/server/render/util.js)
 * writes an attribute's value WITHOUT escaping when the value is a string
 * that contains `&` and parses as an http(s) URL: `"` included. Evidence text
 * reaches attributes (a plan title in `og:title` and the description meta, a
 * task's name in `title=`, `aria-label=`), and `new URL()` accepts
 * `http://x/"><script>...</script>&`, so a bundle could close the attribute
 * and write markup into every page that shows its title.
 *
 * This Vite plugin, in the inline config of the one Astro build
 * (src/site/build/render.ts), rewrites that one condition so every string
 * attribute value is escaped (`&` as `&#38;`, `"` as `&#34;`, as Astro does
 * for every other value). The build fails if the pattern is not found in
 * Astro's runtime module: an Astro update that moved it must be looked at
 * again, never passed over silently; a test builds a site from a plan
 * whose title is such a URL and reads every page
 * (test/site/attribute-escape.test.ts).
 */
/** The part of a Vite plugin this one uses (vite is astro's, not a dependency of ours). */
interface TransformPlugin {
  name: string;
  enforce: 'pre';
  transform: (code: string, id: string) => { code: string; map: null } | null;
}

/** The runtime module and the condition it holds in astro 5.18.2. */
export const ASTRO_ATTRIBUTE_MODULE = /[\\/]astro[\\/]dist[\\/]runtime[\\/]server[\\/]render[\\/]util\.js$/;
export const UNESCAPED_URL_CONDITION = 'if (typeof value === "string" && value.includes("&") && isHttpUrl(value)) {';

/** The module's code with the unescaped-URL branch never taken; throws when the branch is not there. */
export function escapeEveryAttribute(code: string): string {
  const at = code.indexOf(UNESCAPED_URL_CONDITION);
  if (at < 0 || code.indexOf(UNESCAPED_URL_CONDITION, at + 1) >= 0) {
    throw new Error(`astro's attribute renderer no longer holds the unescaped-URL branch ledgerboard disables (src/site/build/escape-attributes.ts): check the new astro version's addAttribute before building`);
  }
  return code.replace(UNESCAPED_URL_CONDITION, 'if (false) { // ledgerboard: every attribute value escaped (src/site/build/escape-attributes.ts)');
}

/** The plugin: rewrites Astro's attribute renderer as it is bundled. */
export function escapeAttributesPlugin(): TransformPlugin {
  return {
    name: 'ledgerboard-escape-attributes',
    enforce: 'pre',
    transform(code, id) {
      if (!ASTRO_ATTRIBUTE_MODULE.test(id.split('?')[0]!)) return null;
      return { code: escapeEveryAttribute(code), map: null };
    },
  };
}
