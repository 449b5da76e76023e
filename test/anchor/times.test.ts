/**
 * FORMAT.md 12's times, as pure functions over RFC 3339 strings compared as
 * instants: the earliest genTime of the tokens that check,
 * `before_first_attempt` (strictly before the earliest `started_at`; no
 * attempts: true) and ANCHOR_BEFORE_CREATED (a genTime before the plan's
 * `created_at`). Timestamps are the format's: UTC with Z; any other throws.
 */
import { describe, expect, it } from 'vitest';
import type { AnchorCheck } from '../../src/anchor/check.ts';
import { beforeCreated, beforeFirstAttempt, bundleAnchor, earliestAnchor, earliestGenTime } from '../../src/anchor/times.ts';

const ok = (genTime: string, authority = 'CN=TSA', pinned = true): AnchorCheck => ({ ok: true, genTime, authority, pinned });
const mismatch: AnchorCheck = { ok: false, code: 'ANCHOR_MISMATCH', detail: 'the imprint is SHA-1, not SHA-256 of the plan id' };
const unreadable: AnchorCheck = { ok: false, code: 'ANCHOR_UNREADABLE', detail: 'the signature does not verify' };

describe('the earliest genTime', () => {
  it('of the tokens that check only, compared as instants (a fraction, a leap second)', () => {
    expect(earliestGenTime([])).toBeUndefined();
    expect(earliestGenTime([mismatch, unreadable])).toBeUndefined();
    expect(earliestGenTime([ok('2026-03-01T10:00:00Z'), mismatch, ok('2026-02-28T23:59:59.5Z'), unreadable])).toBe('2026-02-28T23:59:59.5Z');
    // 10:00:00Z is before 10:00:00.001Z, though '.' sorts before 'Z' as characters.
    expect(earliestGenTime([ok('2026-03-01T10:00:00.001Z'), ok('2026-03-01T10:00:00Z')])).toBe('2026-03-01T10:00:00Z');
    expect(earliestGenTime([ok('2016-12-31T23:59:60Z'), ok('2017-01-01T00:00:00Z')])).toBe('2016-12-31T23:59:60Z');
  });

  it('at one instant: a pinned token first, then the authority in UTF-8 byte order, whatever the tokens order', () => {
    const tokens = [ok('2026-03-01T10:00:00Z', 'CN=B', false), ok('2026-03-01T10:00:00Z', 'CN=C', true), ok('2026-03-01T10:00:00Z', 'CN=A', true)];
    expect(earliestAnchor(tokens)).toEqual(ok('2026-03-01T10:00:00Z', 'CN=A', true));
    expect(earliestAnchor([...tokens].reverse())).toEqual(ok('2026-03-01T10:00:00Z', 'CN=A', true));
    expect(earliestAnchor([ok('2026-03-01T10:00:00Z', 'CN=\u{1F600}'), ok('2026-03-01T10:00:00Z', 'CN=\uFF21')])).toEqual(ok('2026-03-01T10:00:00Z', 'CN=\uFF21'));
  });
});

describe('before_first_attempt', () => {
  it('is strictly before the earliest started_at; equal is not before; no attempts is true', () => {
    const starts = ['2026-03-02T09:00:00Z', '2026-03-01T12:00:00Z', '2026-03-03T00:00:00Z'];
    expect(beforeFirstAttempt('2026-03-01T11:59:59Z', starts)).toBe(true);
    expect(beforeFirstAttempt('2026-03-01T12:00:00Z', starts)).toBe(false);
    expect(beforeFirstAttempt('2026-03-01T12:00:00.000Z', starts)).toBe(false);
    expect(beforeFirstAttempt('2026-03-01T11:59:59.999Z', starts)).toBe(true);
    expect(beforeFirstAttempt('2026-03-01T12:00:01Z', starts)).toBe(false);
    expect(beforeFirstAttempt('2026-03-01T12:00:00Z', ['2026-03-01T12:00:00.000001Z'])).toBe(true);
    expect(beforeFirstAttempt('2030-01-01T00:00:00Z', [])).toBe(true);
  });

  it("bundleAnchor: null without a token that checks, else the earliest token's members", () => {
    expect(bundleAnchor([mismatch], ['2026-03-01T12:00:00Z'])).toBeNull();
    expect(bundleAnchor([ok('2026-03-01T13:00:00Z', 'CN=Late', true), ok('2026-03-01T11:00:00Z', 'CN=Early', false)], ['2026-03-01T12:00:00Z'])).toEqual({
      gen_time: '2026-03-01T11:00:00Z',
      authority: 'CN=Early',
      pinned: false,
      before_first_attempt: true,
    });
    expect(bundleAnchor([ok('2026-03-01T13:00:00Z')], ['2026-03-01T12:00:00Z'])).toMatchObject({ before_first_attempt: false });
  });
});

describe('ANCHOR_BEFORE_CREATED', () => {
  it('when the genTime is strictly before created_at, compared as instants', () => {
    expect(beforeCreated('2026-03-01T09:59:59Z', '2026-03-01T10:00:00Z')).toBe(true);
    expect(beforeCreated('2026-03-01T10:00:00Z', '2026-03-01T10:00:00Z')).toBe(false);
    expect(beforeCreated('2026-03-01T10:00:00Z', '2026-03-01T10:00:00.1Z')).toBe(true);
    expect(beforeCreated('2026-03-01T10:00:00.10Z', '2026-03-01T10:00:00.1Z')).toBe(false);
    expect(beforeCreated('2026-03-02T00:00:00Z', '2026-03-01T23:59:59.999Z')).toBe(false);
    expect(() => beforeCreated('2026-03-01T10:00:00+01:00', '2026-03-01T10:00:00Z')).toThrow(TypeError);
  });
});
