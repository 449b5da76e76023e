/**
 * The rules of docs/stages.json held against an import graph (graph.ts).
 * Every broken rule is one line; no line means the graph keeps them all.
 */
import type { Arrow, Graph } from './graph.ts';
import type { StageList } from '../../scripts/docs/stages.ts';

/** Where a file lives: its stage (0 = lowest), its room, and its rank among the stage's ordered rooms (null when in none). */
export interface Place {
  stage: number;
  room: string;
  order: number | null;
}

const under = (file: string, path: string): boolean => file === path || file.startsWith(`${path}/`);

/** The place of a file of src/: the room of the longest path that holds it. */
export function placeOf(list: StageList, file: string): Place | null {
  let best: (Place & { length: number }) | null = null;
  list.stages.forEach((stage, index) => {
    for (const path of stage.rooms) {
      if (under(file, path) && (!best || path.length > best.length)) best = { stage: index, room: path, order: null, length: path.length };
    }
    (stage.ordered ?? []).forEach((room, order) => {
      for (const path of room.paths) {
        // an ordered room wins a tie with its stage's room of the same path (pages)
        if (under(file, path) && (!best || path.length >= best.length)) best = { stage: index, room: room.room, order, length: path.length };
      }
    });
  });
  if (!best) return null;
  const { stage, room, order } = best as Place & { length: number };
  return { stage, room, order };
}

/**
 * Runtime paths from any of `starts` into what `hit` accepts, following runtime arrows only: one shortest path for each
 * arrow that crosses into it (so each file that imports a forbidden target is named once), in order of discovery.
 */
function runtimeReach(graph: Graph, starts: string[], hit: (to: string) => boolean): string[][] {
  const next = new Map<string, string[]>();
  for (const arrow of graph.arrows) {
    if (arrow.kind !== 'runtime') continue;
    const list = next.get(arrow.from) ?? [];
    if (!list.includes(arrow.to)) list.push(arrow.to);
    next.set(arrow.from, list);
  }
  const parent = new Map<string, string | null>();
  const queue: string[] = [];
  for (const start of starts) {
    if (parent.has(start)) continue;
    parent.set(start, null);
    queue.push(start);
  }
  const paths: string[][] = [];
  for (let at = 0; at < queue.length; at++) {
    const node = queue[at]!;
    for (const to of next.get(node) ?? []) {
      if (hit(to)) {
        // a forbidden target is reported, never walked through
        const path = [to];
        for (let p: string | null | undefined = node; p !== null && p !== undefined; p = parent.get(p)) path.unshift(p);
        paths.push(path);
        continue;
      }
      if (parent.has(to)) continue;
      parent.set(to, node);
      queue.push(to);
    }
  }
  return paths;
}

/** Every rule of the stage list the graph breaks, one line each (empty: none). */
export function check(graph: Graph, list: StageList): string[] {
  const problems: string[] = [];
  for (const u of graph.unresolved) problems.push(`${u} resolves to no file`);

  const places = new Map<string, Place>();
  for (const file of graph.files) {
    const place = placeOf(list, file);
    if (place) places.set(file, place);
    else problems.push(`${file}: in no stage of docs/stages.json`);
  }
  const stageName = (i: number): string => `stage ${i + 1} (${list.stages[i]!.name})`;
  const tag = (arrow: Arrow): string => (arrow.kind === 'type' ? ' (import type)' : '');

  // (a) every arrow to the same room or lower: stages, then ordered rooms within a stage
  for (const arrow of graph.arrows) {
    const from = places.get(arrow.from);
    const to = places.get(arrow.to);
    if (!from || !to) continue;
    if (to.stage > from.stage) problems.push(`${arrow.from} -> ${arrow.to}${tag(arrow)}: up from ${stageName(from.stage)} to ${stageName(to.stage)}`);
    else if (to.stage === from.stage && from.order !== null && to.order !== null && to.order > from.order) {
      problems.push(`${arrow.from} -> ${arrow.to}${tag(arrow)}: up from room ${from.room} to room ${to.room} of ${stageName(from.stage)}`);
    }
  }

  // (b) no cycle, type arrows included
  const files = new Set(graph.files);
  const next = new Map<string, string[]>();
  for (const arrow of graph.arrows) {
    if (!files.has(arrow.to)) continue;
    const list = next.get(arrow.from) ?? [];
    if (!list.includes(arrow.to)) list.push(arrow.to);
    next.set(arrow.from, list);
  }
  const state = new Map<string, 'open' | 'done'>();
  const visit = (file: string, path: string[]): void => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'open') {
      problems.push(`cycle: ${[...path.slice(path.indexOf(file)), file].join(' -> ')}`);
      return;
    }
    state.set(file, 'open');
    for (const to of next.get(file) ?? []) visit(to, [...path, file]);
    state.set(file, 'done');
  };
  for (const file of graph.files) visit(file, []);

  // which rooms may import a Node module (any arrow, type-only too)
  for (const rule of list.rules.touch) {
    for (const arrow of graph.arrows) {
      if (!rule.modules.includes(arrow.to)) continue;
      const from = places.get(arrow.from);
      if (from && !rule.only.includes(from.room)) {
        problems.push(`${arrow.from} -> ${arrow.to}${tag(arrow)}: room ${from.room} may not import ${arrow.to} (only ${rule.only.join(', ') || 'no room'})`);
      }
    }
  }

  // what a room never imports (any arrow), and (c) never reaches at runtime through others
  for (const rule of list.rules.never) {
    const inFrom = (file: string): boolean => rule.from.some((p) => under(file, p));
    const inTo = (file: string): boolean => rule.to.some((p) => under(file, p));
    for (const arrow of graph.arrows) {
      if (inFrom(arrow.from) && inTo(arrow.to)) problems.push(`${arrow.from} -> ${arrow.to}${tag(arrow)}: ${rule.from.join(', ')} never import ${rule.to.join(', ')}`);
    }
    // one line per forbidden file reached (its shortest path), a path of one arrow being the line above
    const reached = new Set<string>();
    for (const path of runtimeReach(graph, graph.files.filter(inFrom), inTo)) {
      const target = path[path.length - 1]!;
      if (reached.has(target)) continue;
      reached.add(target);
      if (path.length > 2) problems.push(`runtime: ${rule.from.join(', ')} reach ${target} (${path.join(' -> ')})`);
    }
  }

  // (c) the pure rooms' runtime closure reaches no file system and no process
  const pure = list.rules.pure;
  const starts = graph.files.filter((file) => pure.paths.some((p) => under(file, p)));
  // one line per file that imports the module, named with the shortest path from a pure room
  for (const path of runtimeReach(graph, starts, (to) => pure.modules.includes(to))) {
    const module = path[path.length - 1]!;
    problems.push(`runtime: a pure room reaches ${module} through ${path[path.length - 2]} (${path.join(' -> ')})`);
  }

  const word = new RegExp(`\\b${list.rules.noGlobal.word}\\b`);
  for (const [file, text] of graph.texts) {
    if (list.rules.noGlobal.paths.some((p) => under(file, p)) && word.test(text)) problems.push(`${file}: uses ${list.rules.noGlobal.word}`);
  }
  return problems;
}
