/**
 * Alias selectors (`:mini`) and their resolution to exact model identities
 * at freeze time (FORMAT.md section 3: `selector` is what the operator asked
 * for, `model` the exact identity it resolved to).
 *
 * The aliases file is a YAML mapping (JSON is accepted too: it is YAML) from
 * alias to exact identity, read with the same strict reader as the plan:
 *
 *     ":mini": acme/mini-2026-08-01
 *     ":base": acme/base-2025-01-01
 *
 * An alias starts with ":"; an exact identity does not (so an alias can never
 * resolve to another alias). A selector starting with ":" must have an entry;
 * any other selector is an exact identity and resolves to itself.
 */
import { type InputProblem, refuse, refuseIfAny } from './problems.ts';
import { describePath, parseStrictYaml, type StrictYaml } from './strict-yaml.ts';
import { didYouMean } from './suggest.ts';
import type { YamlPlan } from './yaml-plan.ts';

/** Alias -> exact identity, and the file it came from (for messages). */
export interface Aliases {
  file: string;
  map: ReadonlyMap<string, string>;
}

/** Whether a selector is an alias (to be resolved) rather than an exact identity. */
export function isAlias(selector: string): boolean {
  return selector.startsWith(':');
}

/** Parses and checks an aliases file; throws AuthorInputError with every problem. */
export function readAliases(bytes: Uint8Array, file: string): Aliases {
  const yaml = parseStrictYaml(bytes, file);
  const value = yaml.value;
  if (value === null) return { file, map: new Map() };
  if (typeof value !== 'object' || Array.isArray(value)) {
    refuse({ file, line: 1, column: 1, message: 'expected a mapping from alias to exact model identity, e.g. ":mini": acme/mini-2026-08-01' });
  }
  const problems: InputProblem[] = [];
  const map = new Map<string, string>();
  for (const [alias, target] of Object.entries(value)) {
    const where = yaml.keyPositionOf([alias]) ?? yaml.positionOf([alias]);
    if (!isAlias(alias) || alias.length < 2) {
      problems.push({ file, ...where, message: `alias ${JSON.stringify(alias)} must start with ":" and name something (e.g. ":mini"); an exact identity needs no alias` });
      continue;
    }
    if (typeof target !== 'string') {
      problems.push({ file, ...yaml.positionOf([alias]), message: `alias ${JSON.stringify(alias)} must map to an exact model identity (text), not ${target === null ? 'an empty value' : typeof target}` });
      continue;
    }
    if (target.trim() === '' || target !== target.trim()) {
      problems.push({ file, ...yaml.positionOf([alias]), message: `alias ${JSON.stringify(alias)} maps to ${JSON.stringify(target)}: an exact identity is not empty and has no leading or trailing space` });
      continue;
    }
    if (isAlias(target)) {
      problems.push({ file, ...yaml.positionOf([alias]), message: `alias ${JSON.stringify(alias)} maps to ${JSON.stringify(target)}, another alias: map every alias to an exact identity` });
      continue;
    }
    map.set(alias, target);
  }
  refuseIfAny(problems);
  return { file, map };
}

/** A plan subject with its selector resolved. */
export interface ResolvedSubject {
  selector: string;
  model: string;
  agent: { name: string; version: string };
  role: 'candidate' | 'baseline';
}

/**
 * Resolves every subject's selector to its exact model. Refused (with every
 * problem): an alias without an entry (or without an aliases file), and two
 * selectors that resolve to one subject (model + agent), naming both.
 */
export function resolveSubjects(plan: YamlPlan, yaml: StrictYaml, aliases: Aliases | null): ResolvedSubject[] {
  const problems: InputProblem[] = [];
  const resolved: ResolvedSubject[] = [];
  const seen = new Map<string, number>();
  plan.subjects.forEach((subject, i) => {
    const path = ['subjects', i, 'selector'];
    const where = yaml.positionOf(path);
    let model: string;
    if (!isAlias(subject.selector)) {
      model = subject.selector;
    } else if (aliases === null) {
      problems.push({ file: yaml.file, ...where, message: `${describePath(path)} ${JSON.stringify(subject.selector)} is an alias, but no --aliases file was given to resolve it` });
      return;
    } else {
      const target = aliases.map.get(subject.selector);
      if (target === undefined) {
        const close = didYouMean(subject.selector, [...aliases.map.keys()]);
        const known = aliases.map.size === 0 ? 'it has no entries' : `entries: ${[...aliases.map.keys()].map((k) => JSON.stringify(k)).join(', ')}`;
        problems.push({
          file: yaml.file,
          ...where,
          message: `${describePath(path)} ${JSON.stringify(subject.selector)} has no entry in ${aliases.file}${close !== null ? `; did you mean ${JSON.stringify(close)}?` : ''} (${known})`,
        });
        return;
      }
      model = target;
    }
    const key = JSON.stringify([model, subject.agent.name, subject.agent.version]);
    const first = seen.get(key);
    if (first !== undefined) {
      const other = plan.subjects[first]!.selector;
      problems.push({
        file: yaml.file,
        ...where,
        message: `subjects[${first}] selector ${JSON.stringify(other)} and subjects[${i}] selector ${JSON.stringify(subject.selector)} both resolve to model ${JSON.stringify(model)} with agent ${JSON.stringify(`${subject.agent.name}@${subject.agent.version}`)}: one subject twice`,
      });
      return;
    }
    seen.set(key, i);
    resolved.push({ selector: subject.selector, model, agent: { name: subject.agent.name, version: subject.agent.version }, role: subject.role });
  });
  refuseIfAny(problems);
  return resolved;
}
