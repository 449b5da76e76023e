/**
 * The stage list (docs/stages.json), read strictly: the one source of the
 * stages of src/ and the rules of its import graph. test/architecture/
 * checks the code against it; docs/architecture.md's picture and stage table
 * are generated from it (scripts/docs/architecture.ts, `npm run generate`).
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const Path = z.string().regex(/^[a-z0-9][a-z0-9._-]*(\/[a-z0-9][a-z0-9._-]*)*$/, 'a path under src/, no leading or trailing slash');
const Module = z.string().regex(/^node:[a-z_/]+$/, 'a Node built-in, as node:<name>');

const Room = z.strictObject({ room: Path, paths: z.array(Path).min(1), summary: z.string().min(1) });

const Stage = z.strictObject({
  name: z.string().min(1),
  rooms: z.array(Path).min(1),
  summary: z.string().min(1),
  holds: z.string().min(1),
  ordered: z.array(Room).optional(),
});

export const StageList = z.strictObject({
  $comment: z.string(),
  stages: z.array(Stage).min(1),
  rules: z.strictObject({
    touch: z.array(z.strictObject({ modules: z.array(Module).min(1), only: z.array(Path), why: z.string().min(1) })),
    never: z.array(z.strictObject({ from: z.array(Path).min(1), to: z.array(Path).min(1), why: z.string().min(1) })),
    pure: z.strictObject({ paths: z.array(Path).min(1), modules: z.array(Module).min(1), why: z.string().min(1) }),
    noGlobal: z.strictObject({ paths: z.array(Path).min(1), word: z.string().min(1), why: z.string().min(1) }),
  }),
});
export type StageList = z.infer<typeof StageList>;
export type Stage = z.infer<typeof Stage>;

export const STAGES_FILE = new URL('../../docs/stages.json', import.meta.url);

/** Parses a stage list and checks what the schema cannot: no path in two stages, no ordered room outside its stage. */
export function parseStageList(text: string): StageList {
  const list = StageList.parse(JSON.parse(text));
  const seen = new Map<string, string>();
  for (const stage of list.stages) {
    for (const path of stage.rooms) {
      const other = seen.get(path);
      if (other !== undefined) throw new Error(`docs/stages.json: src/${path} is in stage "${other}" and in stage "${stage.name}"`);
      seen.set(path, stage.name);
    }
    for (const room of stage.ordered ?? []) {
      for (const path of room.paths) {
        if (!stage.rooms.some((r) => path === r || path.startsWith(`${r}/`))) {
          throw new Error(`docs/stages.json: room ${room.room} of stage "${stage.name}" holds src/${path}, which is not in that stage`);
        }
      }
    }
  }
  // a rule naming a room or a path no stage holds would check nothing: a typo is refused, not ignored
  const rooms = new Set(list.stages.flatMap((stage) => [...stage.rooms, ...(stage.ordered ?? []).map((room) => room.room)]));
  const held = (path: string): boolean => list.stages.some((stage) => stage.rooms.some((r) => path === r || path.startsWith(`${r}/`)));
  const { touch, never, pure, noGlobal } = list.rules;
  for (const room of touch.flatMap((rule) => rule.only)) {
    if (!rooms.has(room)) throw new Error(`docs/stages.json: the rule names room ${room}, which no stage has`);
  }
  for (const path of [...never.flatMap((rule) => [...rule.from, ...rule.to]), ...pure.paths, ...noGlobal.paths]) {
    if (!held(path)) throw new Error(`docs/stages.json: the rule names src/${path}, which no stage holds`);
  }
  return list;
}

/** The stage list of this repository. */
export function readStageList(): StageList {
  return parseStageList(readFileSync(STAGES_FILE, 'utf8'));
}
