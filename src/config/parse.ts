/**
 * The config and its score card from their bytes: pure (no disk, no
 * environment), like schema.ts. The loader (config.ts) reads the files and
 * hands their bytes here; the CLI's `init`, a test or a re-derivation can
 * parse bytes they already hold without it.
 */
import { digestCanonical } from '../json/canonical.ts';
import { formatJsonPath } from '../json/json-path.ts';
import { parseStrictJson } from '../json/strict-json.ts';
import { parseScorecard } from '../schema/scorecard.ts';
import { ConfigError } from './errors.ts';
import { Config, type LoadedScorecard } from './schema.ts';

/** The config file name, at the repository root. */
export const CONFIG_FILE = 'ledgerboard.config.json';

/** Parses config bytes strictly; throws ConfigError listing every problem with its JSON path. */
export function parseConfig(bytes: Uint8Array, file: string): Config {
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) {
    const { line, column, message } = parsed.error;
    throw new ConfigError(`${file}: line ${line}, column ${column}: ${message}`);
  }
  const result = Config.safeParse(parsed.value);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => {
      const where = formatJsonPath(issue.path);
      if (issue.code === 'unrecognized_keys') return `${where}: unknown member${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')}`;
      return `${where}: ${issue.message}`;
    });
    throw new ConfigError(`${file} is not a valid config:\n  ${problems.join('\n  ')}`);
  }
  return result.data;
}

/** A score card from its bytes (see config.ts readScorecard); `file` and `configFile` name them in a message. */
export function scorecardFromBytes(bytes: Uint8Array, file: string, configFile: string): LoadedScorecard {
  const parsed = parseStrictJson(bytes);
  if (!parsed.ok) {
    const { line, column, message } = parsed.error;
    throw new ConfigError(`${configFile}: scorecard: ${file}: line ${line}, column ${column}: ${message}`);
  }
  const checked = parseScorecard(parsed.value);
  if (!checked.ok) throw new ConfigError(`${configFile}: scorecard: ${file} is not a valid score card:\n  ${checked.problems.join('\n  ')}`);
  return { card: checked.card, bytes, digest: digestCanonical(parsed.value), file };
}
