import { describe, expect, it } from 'vitest';
import { IMPORTERS } from '../../src/import/registry.ts';
import { SOURCE_READERS, sourceReaderOfOrigin } from '../../src/import/source-registry.ts';

const READ_MEMBERS = ['sourceMetrics', 'transcripts', 'rerunFlags', 'passRule', 'configurationDifferences'] as const;

describe('the read side registry (src/import/source-registry.ts)', () => {
  it('lists the formats of IMPORTERS, in order, with the same names, origins, labels and inputs', () => {
    const ident = (f: { name: string; origin: string; label: string; input: string }) => [f.name, f.origin, f.label, f.input];
    expect(SOURCE_READERS.map(ident)).toEqual(IMPORTERS.map(ident));
    expect(SOURCE_READERS.map((r) => r.origin)).toEqual(['inspect-eval-log', 'lm-eval-harness', 'helm-run', 'swe-bench-run', 'terminal-bench-run', 'every-eval-ever']);
  });
  it("each importer's read members are its source reader's own functions", () => {
    for (const [i, importer] of IMPORTERS.entries()) {
      for (const m of READ_MEMBERS) expect(importer[m], `${importer.name}.${m}`).toBe(SOURCE_READERS[i]![m]);
    }
  });
  it('finds a reader by origin.format, and none for an unknown one', () => {
    expect(sourceReaderOfOrigin('helm-run')?.name).toBe('helm');
    expect(sourceReaderOfOrigin('no-such-format')).toBeUndefined();
  });
});
