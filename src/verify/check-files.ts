/**
 * Steps over the bundle's files: non-regular entries, the manifest (its
 * schema, id, list rules and paths), and listed files against disk.
 */
import { DIGEST_PATTERN, selfId } from '../json/canonical.ts';
import { collisionKey, quotePath, unsafePathReason } from '../evidence/paths.ts';
import { compareUtf8 } from '../json/compare.ts';
import { Manifest } from '../schema/index.ts';
import { contentOf, addFinding, type VerifyContext } from './context.ts';
import { parseJsonFile } from './parse-evidence.ts';

/** Files every bundle must hold besides manifest.json (FORMAT.md section 2). */
export const REQUIRED_FILES = ['attempts.jsonl', 'ledger.jsonl', 'plan.json'] as const;

const KIND_NAMES: Record<string, string> = {
  symlink: 'symbolic link',
  fifo: 'FIFO (named pipe)',
  socket: 'socket',
  'block-device': 'block device',
  'char-device': 'character device',
  unknown: 'entry of unknown type',
};

/**
 * NOT_REGULAR_FILE for every symlink, FIFO, socket, device or unknown entry
 * (such entries are never opened); MISSING_FILE for a directory that cannot
 * be listed.
 */
export function checkEntries(ctx: VerifyContext): void {
  for (const entry of ctx.snapshot.entries) {
    if (entry.badName) {
      addFinding(ctx, entry.kind === 'file' ? 'UNLISTED_FILE' : 'NOT_REGULAR_FILE', entry.path, `the name ${quotePath(entry.path)} on disk is not valid UTF-8, so no manifest can list it`);
      continue;
    }
    if (entry.kind === 'directory' && entry.unreadable !== undefined) {
      // What it holds is unknown (a listed file, an unlisted one): the bundle cannot be judged.
      addFinding(ctx, 'MISSING_FILE', entry.path, `the directory ${quotePath(entry.path)} ${entry.unreadable}: the files in it cannot be checked`);
      continue;
    }
    if (entry.kind === 'file' || entry.kind === 'directory') continue;
    addFinding(ctx, 'NOT_REGULAR_FILE', entry.path, `${quotePath(entry.path)} is a ${KIND_NAMES[entry.kind]}, not a regular file; it was not followed or opened`);
  }
}

/** A name that case folding or normalisation may change: an upper-case ASCII letter, or any non-ASCII character. */
// eslint-disable-next-line no-control-regex
const MAY_FOLD = /[A-Z]|[^\x00-\x7f]/;

/** At most this many colliding groups of names are listed one by one; the rest are counted in one more finding. */
export const COLLISIONS_LISTED = 100;

/**
 * PATH_COLLISION (warning): entries whose names are equal after Unicode
 * normalisation or case folding (see collisionKey), such as `Notes.md` and
 * `notes.md`, or `é` written precomposed and decomposed. Valid here, but on a
 * macOS or Windows checkout one replaces the other, so the bundle cannot be
 * copied there intact. One finding per group of colliding names; entries
 * below colliding directories are not reported again.
 */
export function checkNameCollisions(ctx: VerifyContext): void {
  // A name of lower-case ASCII only is its own key, so two such names never collide: only names with an upper-case
  // letter or a non-ASCII character are keyed (most bundles have none), and each key is looked up among the names.
  const groups = new Map<string, string[]>();
  for (const entry of ctx.snapshot.entries) {
    if (entry.badName || !MAY_FOLD.test(entry.path)) continue;
    const key = collisionKey(entry.path);
    const group = groups.get(key);
    if (group === undefined) groups.set(key, [entry.path]);
    else group.push(entry.path);
  }
  for (const [key, group] of groups) {
    // The one lower-case ASCII name with this key, if any, is the key itself.
    if (!MAY_FOLD.test(key) && ctx.disk.has(key)) {
      group.push(key);
      group.sort(compareUtf8);
    }
  }
  let listed = 0;
  let more = 0;
  for (const [key, paths] of groups) {
    if (paths.length < 2) continue;
    // Below a colliding directory every name collides again: the directory's finding says it.
    const slash = key.lastIndexOf('/');
    if (slash !== -1 && (groups.get(key.slice(0, slash))?.length ?? 0) > 1) continue;
    if (listed === COLLISIONS_LISTED) {
      more++;
      continue;
    }
    listed++;
    const shown = paths.slice(0, 10).map(quotePath).join(', ') + (paths.length > 10 ? ` and ${paths.length - 10} more` : '');
    addFinding(ctx, 'PATH_COLLISION', paths[0]!, `${shown} are one name after Unicode normalisation or case folding: on a macOS or Windows checkout one replaces the other`);
  }
  if (more > 0) addFinding(ctx, 'PATH_COLLISION', '.', `and ${more} more groups of names collide after normalisation or case folding (only the first ${listed} are listed)`);
}

/** manifest.json: present, strict JSON, integer numbers, schema, and its bundle_id re-derives. */
export function readManifest(ctx: VerifyContext): void {
  const entry = ctx.disk.get('manifest.json');
  if (!entry) {
    addFinding(ctx, 'MISSING_FILE', 'manifest.json', 'manifest.json is absent: nothing in the bundle can be checked against it');
    return;
  }
  if (entry.kind === 'directory') {
    addFinding(ctx, 'MISSING_FILE', 'manifest.json', 'manifest.json is a directory, not a file: nothing in the bundle can be checked against it');
    return;
  }
  if (entry.kind !== 'file') return; // NOT_REGULAR_FILE already reported.
  const bytes = contentOf(ctx, 'manifest.json');
  if (bytes === undefined) {
    addFinding(ctx, 'MISSING_FILE', 'manifest.json', `manifest.json ${entry.unreadable ?? 'cannot be read'}`);
    return;
  }
  const parsed = parseJsonFile(ctx, 'manifest.json', bytes, Manifest, true);
  if (!parsed) return;
  const raw = parsed.raw;
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    if (typeof raw.bundle_id === 'string') ctx.bundleIdRead = raw.bundle_id;
    // The id re-derives from the bytes whatever the schema says of them.
    if (ctx.bundleIdRead !== undefined && DIGEST_PATTERN.test(ctx.bundleIdRead) && parsed.nonIntegerTokens === 0) {
      const derived = selfId(raw, 'bundle_id');
      if (derived !== ctx.bundleIdRead) {
        addFinding(ctx, 'BUNDLE_ID_MISMATCH', 'manifest.json', `bundle_id is ${ctx.bundleIdRead} but the manifest re-derives to ${derived}`);
      }
    }
  }
  ctx.manifest = parsed.data;
}

/** The file list: sorted by path (byte order), unique, never manifest.json; every path safe (UNSAFE_PATH). */
export function checkManifestList(ctx: VerifyContext): void {
  const files = ctx.manifest?.files;
  if (!files) return;
  for (let i = 0; i < files.length; i++) {
    const { path } = files[i]!;
    if (path === 'manifest.json') {
      addFinding(ctx, 'SCHEMA_VIOLATION', 'manifest.json', `files[${i}]: the manifest must not list manifest.json itself`);
    }
    if (i > 0) {
      const order = compareUtf8(files[i - 1]!.path, path);
      if (order === 0) addFinding(ctx, 'SCHEMA_VIOLATION', 'manifest.json', `files[${i}]: ${quotePath(path)} is listed twice`);
      else if (order > 0) {
        addFinding(ctx, 'SCHEMA_VIOLATION', 'manifest.json', `files[${i}]: ${quotePath(path)} is out of order (files must be sorted by path, byte order)`);
      }
    }
    const unsafe = unsafePathReason(path);
    if (unsafe !== null) {
      addFinding(ctx, 'UNSAFE_PATH', 'manifest.json', `files[${i}]: ${quotePath(path)}: ${unsafe}`);
      // Never used; remembered only so a file on disk under that exact name is not also UNLISTED_FILE.
      ctx.unsafeListed.add(path);
      continue;
    }
    if (path !== 'manifest.json' && !ctx.listed.has(path)) ctx.listed.set(path, files[i]!);
  }
}

/** Listed files against disk (MISSING_FILE, FILE_DIGEST_MISMATCH, UNLISTED_FILE), and the required files. */
export function checkFiles(ctx: VerifyContext): void {
  const haveManifest = ctx.manifest !== undefined;
  for (const [path, listed] of ctx.listed) {
    const entry = ctx.disk.get(path);
    if (!entry || entry.kind === 'directory') {
      addFinding(ctx, 'MISSING_FILE', path, `${quotePath(path)} is listed in the manifest but absent`);
      continue;
    }
    if (entry.kind !== 'file') continue; // NOT_REGULAR_FILE already reported.
    if (entry.unreadable !== undefined || entry.sha256 === undefined) {
      addFinding(ctx, 'MISSING_FILE', path, `${quotePath(path)} ${entry.unreadable ?? 'cannot be read'}`);
      continue;
    }
    // The file is there: references to its listed digest have a file (wrong bytes are FILE_DIGEST_MISMATCH, not also MISSING_ARTIFACT).
    ctx.presentDigests.add(listed.sha256);
    if (entry.bytes !== listed.bytes) {
      addFinding(ctx, 'FILE_DIGEST_MISMATCH', path, `${quotePath(path)} is ${entry.bytes} bytes; the manifest says ${listed.bytes}`);
    } else if (entry.sha256 !== listed.sha256) {
      addFinding(ctx, 'FILE_DIGEST_MISMATCH', path, `${quotePath(path)} hashes to ${entry.sha256}; the manifest says ${listed.sha256}`);
    }
  }
  if (haveManifest) {
    for (const entry of ctx.snapshot.entries) {
      if (entry.kind !== 'file' || entry.badName || entry.path === 'manifest.json' || ctx.listed.has(entry.path) || ctx.unsafeListed.has(entry.path)) continue;
      addFinding(ctx, 'UNLISTED_FILE', entry.path, `${quotePath(entry.path)} is on disk but not listed in the manifest`);
    }
  }
  for (const path of REQUIRED_FILES) {
    if (ctx.listed.has(path)) continue; // A listed required file was checked above.
    const entry = ctx.disk.get(path);
    if (!entry || entry.kind === 'directory') {
      addFinding(ctx, 'MISSING_FILE', path, `${path} is required in every bundle and is absent`);
    } else if (entry.kind === 'file' && entry.unreadable !== undefined) {
      addFinding(ctx, 'MISSING_FILE', path, `${path} ${entry.unreadable}`);
    }
  }
}
