/** Content-addressed artifacts of one bundle: identical bytes are stored once, under their digest. */
import { digestBytes, digestHex } from '../../src/json/canonical.ts';

/** Bundle files by path, with a content-addressed area under artifacts/. */
export class ArtifactStore {
  /** Every artifact written so far, by bundle-relative path. */
  readonly files = new Map<string, Buffer>();

  /** Stores bytes as artifacts/<kind>/<hex>.<ext> (once) and returns their digest. */
  put(kind: string, ext: string, content: string | Buffer): string {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const digest = digestBytes(bytes);
    const path = `artifacts/${kind}/${digestHex(digest)}.${ext}`;
    if (!this.files.has(path)) this.files.set(path, bytes);
    return digest;
  }
}
