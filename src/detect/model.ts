// The language-identification model: a sparse multinomial naive Bayes over hashed character n-grams and words
// (features.ts), trained by scripts/train-lid.ts on FLORES-200 (see model/README.md for licence and attribution).
//
// log P(text | class c) = sum over features f of the text of log P(f | c). Most (f, c) pairs were never seen,
// so it is stored as  L * unseen[c] + bias[c] + sum over f of w(f, c),  where L is the number of features,
// unseen[c] the log-probability of an unseen feature and w(f, c) = log P(f | c) - unseen[c] >= 0, kept only for
// the pairs seen often enough in training ("postings"); features too common to help are kept with no postings
// and not counted in L. The trainer then adjusts w and bias discriminatively
// (softmax loss on the training text) so close neighbours are told apart better than counts alone manage.
// Scoring a text is one hash lookup per feature and a few additions.
//
// File (gzip of): "DLID" | u32 version | u32 header length | header JSON | u32 V | V x u32 key deltas (sorted
// feature hashes) | V x u8 posting lengths | P x u8 class indices | P x u8 weights (w * weightScale, rounded).
import { gunzipSync, gzipSync } from 'node:zlib';

export interface LidModelHeader {
  /** Class index -> FLORES code. */
  classes: string[];
  /** Per class: log-probability of a feature it never showed in training. */
  unseen: number[];
  /** Per class: added to the total score (discriminative correction). */
  bias: number[];
  /** Stored weight = round(w * weightScale), 0..255. */
  weightScale: number;
  /** Softmax temperature on total log-likelihood differences: confidence calibration (fitted on held-out text). */
  tau: number;
  /** Characters only simplified / only traditional Chinese training text used (han.ts). */
  han?: { Hans: string; Hant: string };
  /** Per FLORES code: the distinct letters its training text uses (letters.ts), sorted, as one string. */
  letters?: Record<string, string>;
  /** How the model was trained (for people, not code). */
  trained: Record<string, unknown>;
}

const MAGIC = 0x44494c44; // "DLID" read as little-endian u32
const VERSION = 1;

export class LidModel {
  readonly header: LidModelHeader;
  /** Sorted feature hashes. */
  readonly keys: Uint32Array;
  /** Postings of feature i: starts[i] .. starts[i + 1] - 1 in postClass / postWeight. */
  readonly starts: Uint32Array;
  readonly postClass: Uint8Array;
  /** w(f, c); the trainer adjusts these in place before encoding. */
  readonly postWeight: Float32Array;
  /**
   * Open-addressing table, 3 words per slot: feature hash, first posting, posting count + 1 (0 = empty slot).
   * Everything a lookup needs sits in one cache line, which matters more than anything else for speed.
   */
  private readonly slots: Uint32Array;
  private readonly shift: number;

  constructor(header: LidModelHeader, keys: Uint32Array, lengths: Uint8Array, postClass: Uint8Array, postWeight: Float32Array) {
    this.header = header;
    this.keys = keys;
    this.starts = new Uint32Array(keys.length + 1);
    for (let i = 0; i < keys.length; i++) this.starts[i + 1] = this.starts[i]! + lengths[i]!;
    this.postClass = new Uint8Array(postClass); // a plain copy: element access on Buffer views is slower
    this.postWeight = postWeight;
    // Load factor <= 1/2.
    let bits = 1;
    while (1 << bits < keys.length * 2) bits++;
    this.shift = 32 - bits;
    this.slots = new Uint32Array(3 << bits);
    const mask = (1 << bits) - 1;
    for (let i = 0; i < keys.length; i++) {
      let s = Math.imul(keys[i]!, 0x9e3779b1) >>> this.shift;
      while (this.slots[3 * s + 2] !== 0) s = (s + 1) & mask;
      this.slots[3 * s] = keys[i]!;
      this.slots[3 * s + 1] = this.starts[i]!;
      this.slots[3 * s + 2] = lengths[i]! + 1;
    }
  }

  get classCount(): number {
    return this.header.classes.length;
  }

  get featureCount(): number {
    return this.keys.length;
  }

  get postingCount(): number {
    return this.postClass.length;
  }

  /** Index of the feature with this hash, or -1. */
  find(hash: number): number {
    const keys = this.keys;
    let lo = 0;
    let hi = keys.length - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >>> 1;
      const k = keys[mid]!;
      if (k === hash) return mid;
      if (k < hash) lo = mid + 1;
      else hi = mid - 1;
    }
    return -1;
  }

  /**
   * Adds w(f, c) of feature `hash` to scores[c] for every class it has a posting for. Returns false for an
   * ignored feature (in the table with no postings: too common to tell varieties apart), which the caller must
   * not count; true otherwise (known or unseen).
   */
  addFeature(hash: number, scores: Float64Array): boolean {
    const slots = this.slots;
    const mask = slots.length / 3 - 1;
    let s = Math.imul(hash, 0x9e3779b1) >>> this.shift;
    for (;;) {
      const at = 3 * s;
      const count = slots[at + 2]!;
      if (count === 0) return true;
      if (slots[at] === hash) {
        const cls = this.postClass;
        const weight = this.postWeight;
        const start = slots[at + 1]!;
        const end = start + count - 1;
        for (let p = start; p < end; p++) scores[cls[p]!]! += weight[p]!;
        return end > start;
      }
      s = (s + 1) & mask;
    }
  }

  static decode(gzipped: Uint8Array): LidModel {
    const buf = gunzipSync(gzipped);
    const view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
    if (view.getUint32(0, true) !== MAGIC) throw new Error('not a Dragoman LID model');
    if (view.getUint32(4, true) !== VERSION) throw new Error(`unsupported LID model version ${view.getUint32(4, true)}`);
    const headerLength = view.getUint32(8, true);
    let at = 12;
    const header = JSON.parse(buf.subarray(at, at + headerLength).toString('utf8')) as LidModelHeader;
    header.bias ??= header.classes.map(() => 0);
    at += headerLength;
    const v = view.getUint32(at, true);
    at += 4;
    const keys = new Uint32Array(v);
    let key = 0;
    for (let i = 0; i < v; i++, at += 4) keys[i] = key = (key + view.getUint32(at, true)) >>> 0;
    const lengths = buf.subarray(at, at + v);
    at += v;
    let p = 0;
    for (let i = 0; i < v; i++) p += lengths[i]!;
    const postClass = buf.subarray(at, at + p);
    const stored = buf.subarray(at + p, at + 2 * p);
    if (at + 2 * p !== buf.length) throw new Error('LID model file has the wrong length');
    const postWeight = new Float32Array(p);
    for (let i = 0; i < p; i++) postWeight[i] = stored[i]! / header.weightScale;
    return new LidModel(header, keys, lengths, postClass, postWeight);
  }

  /** Serialises the model; weights are rounded to 1 / weightScale and clamped to 0..255 / weightScale. */
  encode(): Buffer {
    const { header, keys, starts, postClass, postWeight } = this;
    const json = Buffer.from(JSON.stringify(header), 'utf8');
    const p = postClass.length;
    const buf = Buffer.alloc(16 + json.length + keys.length * 5 + 2 * p);
    let at = 0;
    buf.writeUInt32LE(MAGIC, at);
    buf.writeUInt32LE(VERSION, (at += 4));
    buf.writeUInt32LE(json.length, (at += 4));
    json.copy(buf, (at += 4));
    buf.writeUInt32LE(keys.length, (at += json.length));
    at += 4;
    let prev = 0;
    for (const k of keys) {
      buf.writeUInt32LE((k - prev) >>> 0, at);
      prev = k;
      at += 4;
    }
    for (let i = 0; i < keys.length; i++) buf[at++] = starts[i + 1]! - starts[i]!;
    buf.set(postClass, at);
    at += p;
    for (let i = 0; i < p; i++) buf[at++] = Math.max(0, Math.min(255, Math.round(postWeight[i]! * header.weightScale)));
    return gzipSync(buf, { level: 9 });
  }
}
