// The randomness seed Core derives for a run, so Math.random() and uuid4() in workflow code draw
// the same values live and on replay: SipHash-1-3 (keys 0, 0) of the run's original run id, fed
// as Rust's `str::hash` feeds it (the UTF-8 bytes, then one 0xff byte).
import Long from 'long';

// The four 64-bit state words as 32-bit halves, high first: v0 = [0], [1]; v1 = [2], [3]; ...
// Plain 32-bit arithmetic, as BigInt allocated some 13 kB per run started.
const v = new Uint32Array(8);
const V0 = 0;
const V1 = 2;
const V2 = 4;
const V3 = 6;

function add(a: number, b: number): void {
  const low = v[a + 1]! + v[b + 1]!;
  v[a] = v[a]! + v[b]! + (low > 0xffffffff ? 1 : 0);
  v[a + 1] = low;
}

function xor(a: number, b: number): void {
  v[a] = v[a]! ^ v[b]!;
  v[a + 1] = v[a + 1]! ^ v[b + 1]!;
}

/** Rotates left by `bits`, 0 < bits < 32, or exactly 32. */
function rotl(a: number, bits: number): void {
  const high = v[a]!;
  const low = v[a + 1]!;
  if (bits === 32) {
    v[a] = low;
    v[a + 1] = high;
    return;
  }
  v[a] = (high << bits) | (low >>> (32 - bits));
  v[a + 1] = (low << bits) | (high >>> (32 - bits));
}

function round(): void {
  add(V0, V1); rotl(V1, 13); xor(V1, V0); rotl(V0, 32);
  add(V2, V3); rotl(V3, 16); xor(V3, V2);
  add(V0, V3); rotl(V3, 21); xor(V3, V0);
  add(V2, V1); rotl(V1, 17); xor(V1, V2); rotl(V2, 32);
}

// The message: a run id's UTF-8 bytes and 0xff, written here (ids longer than this get their own).
let message = Buffer.alloc(128);

const byteAt = (length: number, i: number): number => (i < length ? message[i]! : 0);

/** One message word, little-endian: bytes [from, from + 8) of `length`, zero past the end. */
function compress(length: number, from: number, top: number): void {
  const low = (byteAt(length, from) | (byteAt(length, from + 1) << 8) | (byteAt(length, from + 2) << 16) | (byteAt(length, from + 3) << 24)) >>> 0;
  const high = (byteAt(length, from + 4) | (byteAt(length, from + 5) << 8) | (byteAt(length, from + 6) << 16) | (top << 24)) >>> 0;
  v[V3] = v[V3]! ^ high;
  v[V3 + 1] = v[V3 + 1]! ^ low;
  round();
  v[V0] = v[V0]! ^ high;
  v[V0 + 1] = v[V0 + 1]! ^ low;
}

/** The seed as protobuf takes a uint64. */
export function randomnessSeed(originalRunId: string): Long {
  const needed = Buffer.byteLength(originalRunId) + 1;
  if (needed > message.length) message = Buffer.alloc(needed);
  const length = message.write(originalRunId, 0, 'utf8') + 1;
  message[length - 1] = 0xff;
  v[0] = 0x736f6d65; v[1] = 0x70736575; v[2] = 0x646f7261; v[3] = 0x6e646f6d;
  v[4] = 0x6c796765; v[5] = 0x6e657261; v[6] = 0x74656462; v[7] = 0x79746573;
  const full = length - (length % 8);
  for (let i = 0; i < full; i += 8) compress(length, i, byteAt(length, i + 7));
  // The last word: the remaining bytes, and the length's low byte at the top.
  compress(length, full, length & 0xff);
  v[V2 + 1] = v[V2 + 1]! ^ 0xff;
  round();
  round();
  round();
  return Long.fromBits(v[1]! ^ v[3]! ^ v[5]! ^ v[7]!, v[0]! ^ v[2]! ^ v[4]! ^ v[6]!, true);
}

/** The seed's eight bytes, most significant first (what Long.toBytes() gives the SDK). */
export function seedBytes(seed: Long): number[] {
  return seed.toBytesBE();
}
