/**
 * The plain name an EEE original is kept under when the name the aggregate
 * references is not a plain path (docs/importing.md, "Inputs": letters,
 * digits and `._@+=,-`, a name starting with a letter, digit or `_`). Every
 * ollama model's sidecar is one: the model tag's `:` is in its file name
 * (`ai2_arc_ollama_qwen2.5:0.5b_<id>.jsonl`).
 *
 * The rule, per `/`-separated name: every character a plain name cannot hold
 * (one Unicode code point at a time) becomes `_`, and so does a first
 * character that may not start one (`.`, `-`, `@`, `+`, `=`, `,`). It is a
 * pure function of the reference, so the import and a re-import from the
 * bundle's kept originals (where the sidecar already has its plain name)
 * resolve the aggregate's reference to the same file; the aggregate, kept
 * byte for byte, still names the sidecar as the source wrote it, and the
 * checksum it records is checked against the kept bytes either way.
 */
export { plainPathOf } from '../input-shape.ts';
