/**
 * docs/architecture.md's picture, stage table and rules are generated from
 * docs/stages.json (scripts/docs/architecture.ts): the committed document is
 * what `npm run generate` writes, and the generated parts say the list.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { architectureMarkdown, pictureOf, tableOf } from '../../scripts/docs/architecture.ts';
import { parseStageList, readStageList } from '../../scripts/docs/stages.ts';

const LIST = readStageList();

describe('docs/architecture.md', () => {
  it('is generated from docs/stages.json (run `npm run generate` if this fails)', async () => {
    const committed = await readFile(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    expect(architectureMarkdown(committed, LIST)).toBe(committed);
  });

  it('draws one box per stage, chained from the CLI down to json, and the site rooms in their order', () => {
    const picture = pictureOf(LIST);
    expect(picture).toContain('  s11 --> s10 --> s9 --> s8 --> s7 --> s6 --> s5 --> s4 --> s3 --> s2 --> s1\n');
    expect(picture).toContain('    s9r5 --> s9r4 --> s9r3 --> s9r2 --> s9r1\n');
    expect(picture).toContain('s9r1["site/views<br/>');
    expect(picture).toContain('s9r5["site/build<br/>');
    expect(picture).toContain('s6["6 report, facts<br/>');
  });

  it('a change to the list changes the document: a stage added, a rule changed', async () => {
    const committed = await readFile(new URL('../../docs/architecture.md', import.meta.url), 'utf8');
    const text = JSON.parse(await readFile(new URL('../../docs/stages.json', import.meta.url), 'utf8')) as { stages: { rooms: string[] }[]; rules: { touch: { only: string[] }[] } };
    text.stages[0]!.rooms.push('sitemap.ts');
    text.rules.touch[2]!.only.push('cli');
    const changed = parseStageList(JSON.stringify(text));
    const out = architectureMarkdown(committed, changed);
    expect(out).not.toBe(committed);
    expect(tableOf(changed)).toContain('| 1 | `json`, `version.ts`, `errors.ts`, `files`, `sitemap.ts` |');
    expect(tableOf(changed)).toContain('- `node:child_process`: imported only by `cli`:');
    expect(tableOf(LIST)).toContain('- `node:child_process`: imported by no room:');
  });

  it('refuses a list with a path in two stages, a rule naming a room or path no stage has, or a document without its markers', () => {
    const text = JSON.parse(JSON.stringify(LIST)) as { stages: { rooms: string[] }[] };
    text.stages[1]!.rooms.push('json');
    expect(() => parseStageList(JSON.stringify(text))).toThrow('docs/stages.json: src/json is in stage "json" and in stage "schema"');
    expect(() => architectureMarkdown('# no markers\n', LIST)).toThrow('the markers of stages-picture are missing');
    const typo = JSON.parse(JSON.stringify(LIST)) as { rules: { touch: { only: string[] }[]; pure: { paths: string[] } } };
    typo.rules.touch[0]!.only.push('site/bulid');
    expect(() => parseStageList(JSON.stringify(typo))).toThrow('docs/stages.json: the rule names room site/bulid, which no stage has');
    const stray = JSON.parse(JSON.stringify(LIST)) as { rules: { pure: { paths: string[] } } };
    stray.rules.pure.paths.push('sitemodel');
    expect(() => parseStageList(JSON.stringify(stray))).toThrow('docs/stages.json: the rule names src/sitemodel, which no stage holds');
  });
});
