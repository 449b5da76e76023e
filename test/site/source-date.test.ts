/** SOURCE_DATE_EPOCH: strict parsing, and it dates a site only when no evidence does. */
import { describe, expect, it } from 'vitest';
import { Config } from '../../src/config/config.ts';
import { buildReport } from '../../src/report/build-report.ts';
import { atomFeed } from '../../src/site/build/data-files.ts';
import { modelOf } from '../helpers/site-model.ts';
import { publishedOf } from '../../src/site/build/publish.ts';
import { parseSourceDateEpoch, SourceDateError } from '../../src/config/source-date.ts';

describe('parseSourceDateEpoch', () => {
  it('unset or empty: no date', () => {
    expect(parseSourceDateEpoch(undefined)).toBeNull();
    expect(parseSourceDateEpoch('')).toBeNull();
  });

  it('whole seconds since the epoch, as RFC 3339 UTC', () => {
    expect(parseSourceDateEpoch('0')).toBe('1970-01-01T00:00:00Z');
    expect(parseSourceDateEpoch('1764460800')).toBe('2025-11-30T00:00:00Z');
    expect(parseSourceDateEpoch('253402300799')).toBe('9999-12-31T23:59:59Z');
  });

  it.each(['-1', '1.5', ' 1', '1 ', '+1', '1e9', '0x10', 'yesterday', '253402300800', '9999999999999', '１２'])('malformed %j is an error naming the variable', (value) => {
    expect(() => parseSourceDateEpoch(value)).toThrow(SourceDateError);
    expect(() => parseSourceDateEpoch(value)).toThrow(/SOURCE_DATE_EPOCH/);
  });
});

describe('the site date', () => {
  const config = Config.parse({});
  const empty = buildReport([], config);

  it('with no dated evidence the site takes SOURCE_DATE_EPOCH, in the model and the feed', async () => {
    expect(empty.evidence_date).toBeNull();
    const model = await modelOf(empty, [], publishedOf(empty, []), config, { sourceDate: '2025-11-30T00:00:00Z' });
    expect(model.date).toBe('2025-11-30T00:00:00Z');
    expect(atomFeed(model)).toContain('<updated>2025-11-30T00:00:00Z</updated>');
  });

  it('without either, no date (never the clock): the feed says 1970-01-01', async () => {
    const model = await modelOf(empty, [], publishedOf(empty, []), config);
    expect(model.date).toBeNull();
    expect(atomFeed(model)).toContain('<updated>1970-01-01T00:00:00Z</updated>');
  });

  it('evidence dates win over SOURCE_DATE_EPOCH', async () => {
    const dated = { ...empty, evidence_date: '2026-11-18T10:00:00Z' };
    const model = await modelOf(dated, [], publishedOf(dated, []), config, { sourceDate: '2025-11-30T00:00:00Z' });
    expect(model.date).toBe('2026-11-18T10:00:00Z');
  });
});
