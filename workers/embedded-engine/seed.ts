// The randomness seed Core derives for a run, so Math.random() and uuid4() in workflow code draw
// the same values live and on replay: SipHash-1-3 (keys 0, 0) of the run's original run id, fed
// as Rust's `str::hash` feeds it (the UTF-8 bytes, then one 0xff byte).
const MASK = (1n << 64n) - 1n;
const rotl = (x: bigint, b: bigint): bigint => ((x << b) | (x >> (64n - b))) & MASK;

function sipHash13(bytes: Uint8Array): bigint {
  let v0 = 0x736f6d6570736575n;
  let v1 = 0x646f72616e646f6dn;
  let v2 = 0x6c7967656e657261n;
  let v3 = 0x7465646279746573n;
  const round = (): void => {
    v0 = (v0 + v1) & MASK; v1 = rotl(v1, 13n); v1 ^= v0; v0 = rotl(v0, 32n);
    v2 = (v2 + v3) & MASK; v3 = rotl(v3, 16n); v3 ^= v2;
    v0 = (v0 + v3) & MASK; v3 = rotl(v3, 21n); v3 ^= v0;
    v2 = (v2 + v1) & MASK; v1 = rotl(v1, 17n); v1 ^= v2; v2 = rotl(v2, 32n);
  };
  const compress = (m: bigint): void => {
    v3 ^= m;
    round();
    v0 ^= m;
  };
  const full = bytes.length - (bytes.length % 8);
  const word = (from: number, to: number): bigint => {
    let m = 0n;
    for (let i = to - 1; i >= from; i--) m = (m << 8n) | BigInt(bytes[i] ?? 0);
    return m;
  };
  for (let i = 0; i < full; i += 8) compress(word(i, i + 8));
  compress((BigInt(bytes.length & 0xff) << 56n) | word(full, bytes.length));
  v2 ^= 0xffn;
  round();
  round();
  round();
  return v0 ^ v1 ^ v2 ^ v3;
}

/** The seed as the decimal string protobuf accepts for a uint64. */
export function randomnessSeed(originalRunId: string): string {
  const utf8 = new TextEncoder().encode(originalRunId);
  const bytes = new Uint8Array(utf8.length + 1);
  bytes.set(utf8);
  bytes[utf8.length] = 0xff;
  return sipHash13(bytes).toString();
}

/** The seed's eight bytes, most significant first (what Long.toBytes() gives the SDK). */
export function seedBytes(seed: string): number[] {
  let n = BigInt(seed);
  const bytes: number[] = [];
  for (let i = 0; i < 8; i++) {
    bytes.unshift(Number(n & 0xffn));
    n >>= 8n;
  }
  return bytes;
}
