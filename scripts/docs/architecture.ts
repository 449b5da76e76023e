/**
 * Writes docs/architecture.md's picture (mermaid), stage table and rules from
 * the one stage list, docs/stages.json: each between its markers, the rest of
 * the document left as written. `npm run generate` writes it; a test fails
 * while the document is stale (test/architecture/doc.test.ts).
 */
import type { Stage, StageList } from './stages.ts';

export const PICTURE = 'stages-picture';
export const TABLE = 'stages-table';

const code = (path: string): string => `\`${path}\``;
const label = (text: string): string => `"${text.replace(/"/g, '#quot;')}"`;

/** The mermaid picture: one box per stage, the site's rooms in their order inside its box, each arrow reading "may import". */
export function pictureOf(list: StageList): string {
  const lines = ['```mermaid', 'flowchart TD'];
  const ids = list.stages.map((_, i) => `s${i + 1}`);
  list.stages.forEach((stage, i) => {
    const title = `${i + 1} ${stage.rooms.join(', ')}`;
    if (!stage.ordered) {
      lines.push(`  ${ids[i]}[${label(`${title}<br/>${stage.summary}`)}]`);
      return;
    }
    lines.push(`  subgraph ${ids[i]}[${label(`${title}: ${stage.summary}`)}]`, '    direction TB');
    const rooms = stage.ordered.map((room, r) => ({ id: `${ids[i]}r${r + 1}`, text: `${room.paths.join(', ')}<br/>${room.summary}` }));
    for (const room of rooms) lines.push(`    ${room.id}[${label(room.text)}]`);
    lines.push(`    ${[...rooms].reverse().map((r) => r.id).join(' --> ')}`);
    lines.push('  end');
  });
  lines.push(`  ${[...ids].reverse().join(' --> ')}`, '```');
  return lines.join('\n');
}

function roomsCell(stage: Stage): string {
  const rooms = stage.rooms.map(code).join(', ');
  if (!stage.ordered) return rooms;
  return `${rooms}; rooms, lowest first: ${stage.ordered.map((room) => room.paths.map(code).join(', ')).join(' < ')}`;
}

/** The stage table and the rules, as the test checks them. */
export function tableOf(list: StageList): string {
  const { touch, never, pure, noGlobal } = list.rules;
  const modules = (names: readonly string[]): string => names.map(code).join(', ');
  return [
    '| stage | rooms of `src/` | what it holds |',
    '|---|---|---|',
    ...list.stages.map((stage, i) => `| ${i + 1} | ${roomsCell(stage)} | ${stage.holds} |`),
    '',
    'The rules, besides "the same stage or a lower one" and "no cycle" (both for',
    'type-only imports too):',
    '',
    ...touch.map((rule) => `- ${modules(rule.modules)}: imported ${rule.only.length ? `only by ${rule.only.map(code).join(', ')}` : 'by no room'}: ${rule.why}.`),
    ...never.map((rule) => `- ${rule.from.map(code).join(', ')} never import ${rule.to.map(code).join(', ')}, and never reach them at runtime through other files: ${rule.why}.`),
    `- The pure rooms, ${pure.paths.map(code).join(', ')}, reach none of ${modules(pure.modules)}: ${pure.why}.`,
    `- ${noGlobal.paths.map(code).join(', ')} never use \`${noGlobal.word}\`: ${noGlobal.why}.`,
  ].join('\n');
}

const begin = (name: string): string => `<!-- ${name}: generated from docs/stages.json by \`npm run generate\`; do not edit by hand -->`;
const end = (name: string): string => `<!-- /${name} -->`;

function replaceBetween(text: string, name: string, body: string): string {
  const from = text.indexOf(begin(name));
  const to = text.indexOf(end(name));
  if (from < 0 || to < from || text.indexOf(begin(name), from + 1) >= 0) {
    throw new Error(`docs/architecture.md: the markers of ${name} are missing or out of order (${begin(name)} ... ${end(name)})`);
  }
  return `${text.slice(0, from)}${begin(name)}\n${body}\n${text.slice(to)}`;
}

/** docs/architecture.md with its generated parts made from the stage list. */
export function architectureMarkdown(current: string, list: StageList): string {
  return replaceBetween(replaceBetween(current, PICTURE, pictureOf(list)), TABLE, tableOf(list));
}
