/**
 * The cohorts' badges (/badges/<cohort-hex>.svg, src/site/views/badge.ts)
 * made again from the re-derived report and compared with what the site
 * serves, byte for byte: a badge whose rate, interval or rank range is not
 * the re-derived report's, or that names another report than /report.json,
 * is a MISMATCH naming the badge and the figure, with both texts.
 *
 * The signed state is not in the report: a badge may say "signed" or "not
 * signed", and one that says "signed" must be on a site that publishes an
 * attestation of this report (/attestations/<report-hex>/<keyid>.json) by a
 * key its /keys.json lists, or it is a MISMATCH. Whether that signature holds
 * is the signature check's (verify.mjs names who signed, and with --key
 * requires a valid signature by a pinned key).
 */
import type { Report } from '../report/schema.ts';
import { BADGE_FIGURES, badgeFigures, badgePath, badgeSvg, readBadgeFigures } from '../site/views/badge.ts';
import { hexOf } from '../site/views/format.ts';
import type { RederiveLine, SiteGet } from './types.ts';

const decoder = new TextDecoder();

/** The key ids /keys.json lists (64 hex digits each), or none when it is absent or not a key list. */
async function listedKeys(get: SiteGet): Promise<string[]> {
  const bytes = await get('/keys.json');
  if (bytes === null) return [];
  try {
    const value = JSON.parse(decoder.decode(bytes)) as { keys?: { keyid?: unknown }[] };
    return (Array.isArray(value.keys) ? value.keys : []).map((k) => k?.keyid).filter((k): k is string => typeof k === 'string' && /^[0-9a-f]{64}$/.test(k));
  } catch {
    return [];
  }
}

/**
 * Checks every cohort's badge the site serves against the re-derived report
 * (`rederived`): its figures are the re-derived report's, the report id it
 * names is the one the site publishes (`publishedId`, whose own check is the
 * report's: a report that does not re-derive is said once there, not again
 * on every badge).
 */
export async function checkBadges(get: SiteGet, rederived: Report, publishedId: string): Promise<RederiveLine[]> {
  const lines: RederiveLine[] = [];
  const report: Report = { ...rederived, report_id: publishedId };
  const reportHex = hexOf(report.report_id);
  let attested: boolean | null = null;
  const hasAttestation = async (): Promise<boolean> => {
    if (attested === null) {
      attested = false;
      for (const keyid of await listedKeys(get)) {
        if ((await get(`/attestations/${reportHex}/${keyid}.json`)) !== null) {
          attested = true;
          break;
        }
      }
    }
    return attested;
  };
  let served = 0;
  let matching = 0;
  for (const cohort of report.cohorts) {
    const path = badgePath(cohort.cohort_id);
    const bytes = await get(path);
    if (bytes === null) continue;
    served++;
    const published = decoder.decode(bytes);
    const says = readBadgeFigures(published).get('signed');
    const signed = says === 'signed';
    if (published === badgeSvg(report, cohort, signed)) {
      if (signed && !(await hasAttestation())) {
        lines.push({ status: 'MISMATCH', check: 'badge', subject: path, detail: `says "signed", but the site publishes no attestation of report ${reportHex.slice(0, 12)} by a key in /keys.json` });
        continue;
      }
      matching++;
      continue;
    }
    // Which figure differs: the re-derived report's text beside the badge's.
    const expected = badgeFigures(report, cohort, signed);
    const shown = readBadgeFigures(published);
    const differing = BADGE_FIGURES.filter((name) => shown.get(name) !== expected[name]);
    const detail =
      differing.length === 0
        ? 'its figures are the re-derived report\'s, but not its bytes (another badge than the one the report gives)'
        : differing.map((name) => `${name}: the badge shows ${shown.has(name) ? JSON.stringify(shown.get(name)!.slice(0, 80)) : 'nothing'}, the re-derived report gives ${JSON.stringify(expected[name])}`).join('; ');
    lines.push({ status: 'MISMATCH', check: 'badge', subject: path, detail });
  }
  if (served === 0) lines.push({ status: 'info', check: 'badge', subject: '/badges/', detail: 'no badge published (a site built before badges existed): nothing to compare' });
  else if (matching === served) lines.push({ status: 'ok', check: 'badge', subject: '/badges/', detail: `all ${served} badges show the re-derived report's rate, interval and rank range and name /report.json's id, byte for byte` });
  if (served > 0 && served < report.cohorts.length) lines.push({ status: 'info', check: 'badge', subject: '/badges/', detail: `${report.cohorts.length - served} of ${report.cohorts.length} cohorts have no badge published: nothing to compare there` });
  return lines;
}
