/**
 * The subjects of the demo plans: exact model identities, the selectors an
 * operator typed, how each provider bills, and per-task quirks (a blind spot
 * a model always fails, a task it always solves) on top of its skill.
 */
import type { Subject } from '../../src/schema/index.ts';

/** How a provider reports money: acme bills per token; orbit exposes no billing; lumen runs on our own hardware. */
export type Provider = 'acme' | 'orbit' | 'lumen';

/** A subject with the simulation's extra facts. */
export interface SubjectDef {
  subject: Subject;
  provider: Provider;
  /** acme prices, in tenths of a micro-dollar per input and output token. */
  price?: { input: number; output: number };
  /** Tasks this model always fails (0) or always solves (1), whatever its skill. */
  quirks?: Readonly<Record<string, 0 | 1>>;
}

const LOOP_310 = { name: 'loop', version: '3.1.0' };
const LOOP_320 = { name: 'loop', version: '3.2.0' };

/** The baseline of every plan: the same model and agent, so its drift between plans shows. */
export const BASE: SubjectDef = {
  subject: { selector: 'acme/base-2025-01-01', model: 'acme/base-2025-01-01', agent: LOOP_310, role: 'baseline' },
  provider: 'acme',
  price: { input: 10, output: 40 },
};

/** acme's small model: clearly better than the baseline, never worse. */
export const MINI: SubjectDef = {
  subject: { selector: ':mini', model: 'acme/mini-2026-08-01', agent: LOOP_310, role: 'candidate' },
  provider: 'acme',
  price: { input: 3, output: 12 },
};

/** The same model under the next agent release (October only): one plan may compare two agents on one model. */
export const MINI_LOOP_320: SubjectDef = {
  subject: { selector: 'acme/mini-2026-08-01', model: 'acme/mini-2026-08-01', agent: LOOP_320, role: 'candidate' },
  provider: 'acme',
  price: { input: 3, output: 12 },
};

/**
 * orbit's 7B coder: about the baseline's level, but it always "fixes" the TTL
 * off-by-one with a patch that shifts the clock (a regression against the
 * baseline) and reliably solves the pool leak (an improvement).
 */
export const CODER: SubjectDef = {
  subject: { selector: ':coder-7b', model: 'orbit/coder-7b-2026-07', agent: LOOP_310, role: 'candidate' },
  provider: 'orbit',
  quirks: { 'widget-0005': 0, 'widget-0012': 1 },
};

/** lumen's May model, self-hosted: roughly the baseline's equal (September only). */
export const SAGE_MAY: SubjectDef = {
  subject: { selector: ':sage', model: 'lumen/sage-2026-05-20', agent: LOOP_310, role: 'candidate' },
  provider: 'lumen',
};

/** What `:sage` resolved to from November on. */
export const SAGE_OCT: SubjectDef = {
  subject: { selector: ':sage', model: 'lumen/sage-2026-10-15', agent: LOOP_310, role: 'candidate' },
  provider: 'lumen',
};

/** A short label for a subject: model, and the agent when it is not loop 3.1.0. */
export function subjectLabel(def: SubjectDef): string {
  const { model, agent } = def.subject;
  return agent.version === LOOP_310.version && agent.name === LOOP_310.name ? model : `${model} (${agent.name} ${agent.version})`;
}
