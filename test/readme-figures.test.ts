/**
 * The counts the README states are the demo's (issue 29 point 8): the boards
 * of the report the demo config builds, the imported runs and their formats,
 * the UNACCOUNTED_SLOT warnings the build shows and why. The tarball's size
 * is checked where the package is packed (test/package/pack.test.ts); the
 * CLI output the README shows, by test/readme.test.ts.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { IMPORTERS } from '../src/import/registry.ts';
import { DEFAULT_TIMEOUT_SECONDS, DOCUMENT_BYTES, MAX_REDIRECTS } from '../src/rederive/bounded-fetch.ts';
import { REDERIVE_IN_BROWSER_MAX_BYTES } from '../src/site/model/rederive-limit.ts';
import type { Report } from '../src/report/schema.ts';
import { runCli } from './helpers/cli.ts';

const root = fileURLToPath(new URL('..', import.meta.url));
const readme = await readFile(join(root, 'README.md'), 'utf8');
/** The README's text with its line breaks as spaces, so a phrase is found wherever the paragraph wraps. */
const prose = readme.replace(/\s+/g, ' ');
const WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
/** A number as the README writes it: digits or a word. */
const numberOf = (text: string): number => (WORDS.includes(text.toLowerCase()) ? WORDS.indexOf(text.toLowerCase()) : Number(text.replace(/,/g, '')));
/** The number the README states in `pattern` (its one group), failing when the README no longer says it that way. */
function stated(pattern: RegExp): number {
  const match = pattern.exec(prose);
  expect(match, `README states ${pattern}`).not.toBeNull();
  return numberOf(match![1]!);
}

let report: Report;
const importedDir = join(root, 'content', 'imported', 'bundles');
let imported: { dir: string; format: string }[];
beforeAll(async () => {
  // The report the demo config builds (`npm run build` publishes this one): frozen and imported evidence.
  const run = await runCli(['report', '--json']);
  expect(run.code).toBe(0);
  report = JSON.parse(run.stdout) as Report;
  imported = [];
  for (const dir of (await readdir(importedDir)).sort()) {
    const plan = JSON.parse(await readFile(join(importedDir, dir, 'plan.json'), 'utf8')) as { origin: { kind: string; format: string } };
    expect(plan.origin.kind).toBe('imported');
    imported.push({ dir, format: plan.origin.format });
  }
}, 120_000);

describe('the figures the README states', () => {
  it('the boards of the report the site publishes', () => {
    expect(stated(/with no directory reads the config's directories, frozen and imported, as `npm run build` does: ([0-9,]+) boards, the report the site publishes/)).toBe(report.boards.length);
  });

  it('the imported runs: how many, real and synthetic, of how many harnesses; all counted', async () => {
    const synthetic = imported.filter((i) => i.dir.includes('synthetic')).length;
    const formats = new Set(imported.map((i) => i.format)).size;
    expect(stated(/`content\/imported\/bundles` \(([0-9]+) real runs of [a-z]+ harnesses and [a-z]+ synthetic, imported\)/)).toBe(imported.length - synthetic);
    expect(stated(/`content\/imported\/bundles` \([0-9]+ real runs of ([a-z]+) harnesses/)).toBe(formats);
    expect(stated(/real runs of [a-z]+ harnesses and ([a-z]+) synthetic, imported\)/)).toBe(synthetic);
    expect(stated(/shows ([0-9]+) imported runs from `content\/imported\/`/)).toBe(imported.length);
    expect(stated(/on their own boards \(([0-9]+) real public runs and [a-z]+ synthetic Harbor job/)).toBe(imported.length - synthetic);
    expect(stated(/real public runs and ([a-z]+) synthetic Harbor job/)).toBe(synthetic);
    expect(synthetic).toBeGreaterThan(0);
    const counted = new Set(report.bundles.filter((b) => b.counted).map((b) => b.bundle_id));
    for (const { dir } of imported) {
      const manifest = JSON.parse(await readFile(join(importedDir, dir, 'manifest.json'), 'utf8')) as { bundle_id: string };
      expect(counted.has(manifest.bundle_id), dir).toBe(true);
    }
  });

  it('the import formats: as many as the importers, each named', () => {
    expect(stated(/([A-Z][a-z]+) formats: `inspect`/)).toBe(IMPORTERS.length);
    for (const importer of IMPORTERS) expect(prose).toContain(`\`${importer.name}\` (`);
  });

  it("the build's UNACCOUNTED_SLOT warnings: how many, their subject, and why", async () => {
    const warnings = report.bundles.flatMap((b) => b.findings.filter((f) => f.code === 'UNACCOUNTED_SLOT').map((f) => ({ bundle: b.bundle_id, message: f.message })));
    expect(stated(/The build's console shows ([a-z]+) `UNACCOUNTED_SLOT` warnings \(subject `\.\.\.`\)/)).toBe(warnings.length);
    expect(warnings.length).toBeGreaterThan(0);
    for (const w of warnings) expect(w.message).toContain('subject "..."');
    // One bundle, the import of the log the README names, whose NOTES.md says the slots are left unaccounted.
    expect(new Set(warnings.map((w) => w.bundle)).size).toBe(1);
    const dir = imported.find((i) => i.dir.startsWith('log-tool-call-error-'))!.dir;
    const manifest = JSON.parse(await readFile(join(importedDir, dir, 'manifest.json'), 'utf8')) as { bundle_id: string };
    expect(warnings[0]!.bundle).toBe(manifest.bundle_id);
    expect(prose).toContain("Inspect AI's own test log `log_tool_call_error.json`");
    const slots = stated(/so ([0-9]+) of its [0-9]+ slots \(task x epoch\) hold no attempt/);
    expect(slots).toBe(warnings.length);
    const notes = await readFile(join(importedDir, dir, 'NOTES.md'), 'utf8');
    expect(notes).toContain(`${slots} slots (task x epoch) without a sample: left unaccounted`);
    expect(notes).toContain(`${slots} of ${stated(/so [0-9]+ of its ([0-9]+) slots/)} planned sample runs`);
  });

  it('the bounds and limits it states are the code\'s', async () => {
    expect(stated(/\(`--timeout SECONDS`, ([0-9]+) without a byte;/)).toBe(DEFAULT_TIMEOUT_SECONDS);
    expect(stated(/without a byte; ([0-9]+) redirects;/)).toBe(MAX_REDIRECTS);
    expect(stated(/`--max-document-bytes`, ([0-9]+) MiB\)/) * 1024 ** 2).toBe(DOCUMENT_BYTES);
    expect(stated(/Up to ([0-9]+) MiB of evidence it re-derives everything/) * 1024 ** 2).toBe(REDERIVE_IN_BROWSER_MAX_BYTES);
    // The screenshots' heights, as scripts/screenshots.ts cuts them (1280 px wide, then 390 px).
    const script = await readFile(join(root, 'scripts', 'screenshots.ts'), 'utf8');
    const heights = /const MAX_HEIGHT: Record<number, number> = \{ 1280: ([0-9]+), 390: ([0-9]+) \}/.exec(script);
    expect(heights).not.toBeNull();
    expect(stated(/each is cut at ([0-9,]+) or [0-9,]+ px of height/)).toBe(Number(heights![1]));
    expect(stated(/each is cut at [0-9,]+ or ([0-9,]+) px of height/)).toBe(Number(heights![2]));
  });
});
