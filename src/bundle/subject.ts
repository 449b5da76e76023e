/**
 * The subject identity key of FORMAT.md 7.1 (model + agent name + agent
 * version), made once per distinct subject: the verifier asks for it on
 * every attempt line, analysis on every row.
 */

/** Subject keys already made, by model, agent name and agent version; emptied when it grows past its bound. */
const subjectKeys = new Map<string, Map<string, Map<string, string>>>();
let subjectKeysSize = 0;
const SUBJECT_KEYS_MAX = 10_000;
/** The last subject asked for and its key. */
const last = { model: '', name: '', version: '', key: JSON.stringify(['', '', '']) };

/** The subject identity key: model + agent name + agent version (JSON text of the three). */
export function subjectKey(model: string, agent: { name: string; version: string }): string {
  // Every attempt asks, with the few subjects of its plan: remembered, not re-serialized; and attempts
  // come in runs of one subject, so the last answer is checked first (no hashing).
  if (model === last.model && agent.name === last.name && agent.version === last.version) return last.key;
  let byName = subjectKeys.get(model);
  if (byName === undefined) {
    byName = new Map();
    subjectKeys.set(model, byName);
  }
  let byVersion = byName.get(agent.name);
  if (byVersion === undefined) {
    byVersion = new Map();
    byName.set(agent.name, byVersion);
  }
  let key = byVersion.get(agent.version);
  if (key === undefined) {
    key = JSON.stringify([model, agent.name, agent.version]);
    if (subjectKeysSize >= SUBJECT_KEYS_MAX) {
      subjectKeys.clear();
      subjectKeysSize = 0;
    } else {
      byVersion.set(agent.version, key);
      subjectKeysSize++;
    }
  }
  last.model = model;
  last.name = agent.name;
  last.version = agent.version;
  last.key = key;
  return key;
}
