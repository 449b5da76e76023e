/**
 * Renders docs/config.md from the config's JSON Schema (itself generated from
 * the zod schema in src/config/config.ts): every member, its type, default
 * and meaning, so the reference cannot drift from what the code accepts.
 */
import { jsonSchemaText } from '../../src/report/json-schemas.ts';

interface Property {
  type?: string;
  description?: string;
  default?: unknown;
  anyOf?: Property[];
  items?: Property;
  properties?: Record<string, Property>;
  required?: string[];
  minimum?: number;
  maximum?: number;
  format?: string;
}

/** A short type text: `string`, `integer >= 1`, `string or array of string`, `object or null`. */
function typeOf(p: Property): string {
  if (p.anyOf) return p.anyOf.map(typeOf).join(' or ');
  if (p.type === 'array') return `array of ${p.items ? typeOf(p.items) : 'any'}`;
  if (p.type === 'integer') {
    const bounds = [p.minimum !== undefined ? `>= ${p.minimum}` : '', p.maximum !== undefined && p.maximum < Number.MAX_SAFE_INTEGER ? `<= ${p.maximum}` : ''].filter(Boolean);
    return ['integer', ...bounds].join(' ');
  }
  if (p.format === 'uri') return 'URL';
  return p.type ?? 'any';
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function defaultText(p: Property, required: boolean): string {
  if (p.default !== undefined) return `\`${JSON.stringify(p.default)}\``;
  return required ? 'required' : 'absent';
}

function table(properties: Record<string, Property>, prefix: string, required: readonly string[] = []): string[] {
  const rows = ['| member | type | default | meaning |', '|---|---|---|---|'];
  for (const [name, p] of Object.entries(properties)) rows.push(`| \`${prefix}${name}\` | ${cell(typeOf(p))} | ${cell(defaultText(p, required.includes(name)))} | ${cell(p.description ?? '')} |`);
  return rows;
}

/** The objects inside the config whose members get a table of their own (an array's items as `name[].member`). */
function nested(p: Property): { members: Record<string, Property>; required: string[]; suffix: string } | null {
  if (p.properties) return { members: p.properties, required: p.required ?? [], suffix: '' };
  if (p.items?.properties) return { members: p.items.properties, required: p.items.required ?? [], suffix: '[]' };
  const object = p.anyOf?.find((a) => a.properties);
  return object?.properties ? { members: object.properties, required: object.required ?? [], suffix: '' } : null;
}

/** The Markdown text of docs/config.md. */
export function configMarkdown(): string {
  const schema = JSON.parse(jsonSchemaText('config')) as { properties: Record<string, Property> };
  const lines = [
    '# The config: `ledgerboard.config.json`',
    '',
    '<!-- Generated from src/config/config.ts by `npm run generate`; do not edit by hand. -->',
    '',
    '`ledgerboard build`, `report` and `retain` read `ledgerboard.config.json` in',
    'the working directory (or the file `--config FILE` names). It is parsed',
    'strictly: an unknown member, a duplicate member or a wrong type stops the',
    'command (exit 2) with every problem named by its JSON path. Every member is',
    'optional, so `{}` is a valid config. Relative paths are relative to the',
    'config file, never to the directory the command runs in. Its JSON Schema is',
    '`public/schema/config.json` (published at `/schema/config.json`).',
    '',
    '## Members',
    '',
    ...table(schema.properties, ''),
  ];
  for (const [name, p] of Object.entries(schema.properties)) {
    const inner = nested(p);
    if (!inner) continue;
    lines.push('', `## \`${name}${inner.suffix}\``, '', ...table(inner.members, `${name}${inner.suffix}.`, inner.required));
  }
  lines.push(
    '',
    '## What the report keeps of it',
    '',
    'The config in force is part of the report (`config`, and its digest',
    '`config_digest`), so a different acceptance rule, grading pin, title,',
    'site URL or set of limits is a different report. The paths (`bundles_dir`,',
    '`retained_reports_dir`) and `$schema` are left out: where the files sit is',
    'not what the numbers mean. A score card (`scorecard`) is kept as the',
    'RFC 8785 digest of the card in place of its path: a changed level,',
    'ceiling or threshold is a different report, a moved or re-indented card',
    'is not. [analysis.md](analysis.md#the-config) explains each choice.',
    '',
    '## Example',
    '',
    'The demo\'s config (this repository\'s `ledgerboard.config.json`):',
    '',
    '```json',
    '{',
    '  "$schema": "./public/schema/config.json",',
    '  "title": "widget-bugs leaderboard (demo)",',
    '  "site_url": "https://ledgerboard.example/",',
    '  "bundles_dir": ["content/bundles", "content/imported/bundles"],',
    '  "retained_reports_dir": "content/reports",',
    '  "acceptance": { "min_improved": 1 },',
    '  "grading_pin": null,',
    '  "scorecard": "content/scorecard.json",',
    '  "timestamp_roots": ["content/timestamp-roots/demo-tsa-root.pem"],',
    '  "freeze_log": "content/history/freeze-log.jsonl"',
    '}',
    '```',
    '',
  );
  return lines.join('\n');
}
