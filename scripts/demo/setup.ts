/**
 * What the demo plans share: harness, grader, environment and budget. The
 * main board's plans differ only in date, subjects and seed; the offline plan
 * differs in its tool policy, so it lands on another board.
 */
import { prettyJson } from '../../src/evidence/seal.ts';
import { digestBytes } from '../../src/json/canonical.ts';
import { fakeSha1 } from './random.ts';

/** The harness that ran every demo plan. */
export const HARNESS = { name: 'yylo-benchmark', version: '0.1.0-rc.7', commit: fakeSha1('yylo-benchmark/0.1.0-rc.7') };

/** A grader identity at a version (the executable digest stands in for the grader binary's hash). */
export function grader(version: string): { id: string; version: string; executable: string } {
  return { id: 'oracle', version, executable: digestBytes(`yylo oracle grader ${version}, linux-x86_64 build\n`) };
}

/** The grader every plan pins. */
export const PLAN_GRADER = { profile: 'pytest-oracle', ...grader('1.2.0') };

/** The regrade's grader. */
export const REGRADER = grader('1.2.1');

/** Aggregate budget of every demo plan, in micro-USD; the per-attempt ceiling is derived from it. */
export const AGGREGATE_MICROS = 40_000_000;

/** Per-attempt timeout of every demo plan. */
export const TIMEOUT_SECONDS = 1800;

/** The budget block of a plan with this many dispatches: per_attempt_micros = floor(aggregate / dispatches). */
export function budgetFor(dispatches: number): { currency: string; aggregate_micros: number; per_attempt_micros: number; timeout_seconds: number } {
  return {
    currency: 'USD',
    aggregate_micros: AGGREGATE_MICROS,
    per_attempt_micros: Math.floor(AGGREGATE_MICROS / dispatches),
    timeout_seconds: TIMEOUT_SECONDS,
  };
}

/** The tool policies: the standard one, and the offline one (no network, no fetch tool). */
export type ToolPolicyName = 'standard' | 'offline';

/** The bytes of a tool policy file (shipped in each bundle as environment/tool-policy.json). */
export function toolPolicyBytes(name: ToolPolicyName): Buffer {
  const tools = ['bash', 'edit_file', 'read_file', 'run_tests'];
  return prettyJson({
    schema: 'yylo.tool-policy.v1',
    name,
    tools: name === 'standard' ? [...tools, 'web_fetch'] : tools,
    network: name === 'standard' ? { mode: 'allow-list', hosts: ['example.com', 'pypi.example.com'] } : { mode: 'none', hosts: [] },
    max_tool_calls: 120,
  });
}

/** The wiki page every agent was given. */
export const WIKI_PAGE = { path: 'docs/widget-contributing.md', text: '# Contributing to widget\n\nRun `pytest -q` before sending a patch. Never edit tests to make them pass.\n' };

/** A plan's environment block for a tool policy. */
export function environmentFor(policy: ToolPolicyName): {
  tool_policy: string;
  wiki: { path: string; sha256: string }[];
  isolation: string;
  session_topology: string;
} {
  return {
    tool_policy: digestBytes(toolPolicyBytes(policy)),
    wiki: [{ path: WIKI_PAGE.path, sha256: digestBytes(WIKI_PAGE.text) }],
    isolation: 'isolated-git-objects; same-user host; no container',
    session_topology: 'single-session',
  };
}
