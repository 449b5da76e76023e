/**
 * With the in-browser yauzl stand-in, reading an .eval archive fails with the
 * NotInBrowserError itself (src/import/inspect/zip.ts passes it through), so
 * the re-derivation lists the import as "not re-derived here", never as an
 * archive that is not readable (IMPORT_MISMATCH).
 */
import { describe, expect, it, vi } from 'vitest';
import { isNotInBrowser } from '../../../src/rederive/browser/not-in-browser.ts';

vi.mock('yauzl', async () => await import('../../../src/rederive/browser/yauzl.ts'));

describe('zip.ts under the yauzl stand-in', () => {
  it('rethrows the NotInBrowserError unwrapped', async () => {
    const { readZipEntries } = await import('../../../src/import/inspect/zip.ts');
    const error = await readZipEntries(new Uint8Array([0x50, 0x4b, 0x05, 0x06, ...new Array(18).fill(0)]), () => true).catch((e: unknown) => e);
    expect(isNotInBrowser(error)).toBe(true);
    expect((error as Error).message).toMatch(/^re-importing an Inspect \.eval archive .*verify\.mjs/);
  });
});
