// Test helper: re-seals a snapshot after its bytes were changed, so the module reads the changed
// fields instead of refusing a damaged checksum.

/** CRC-32 (IEEE, reflected), as a snapshot's last 4 bytes hold it (big-endian). */
function crc32(b) {
  let c = ~0 >>> 0;
  for (const x of b) {
    c ^= x;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
    c >>>= 0;
  }
  return ~c >>> 0;
}

/** Writes the checksum of every byte before the last 4 into the last 4 of `b` (in place). */
export function resealed(b) {
  new DataView(b.buffer, b.byteOffset, b.byteLength).setUint32(b.length - 4, crc32(b.subarray(0, b.length - 4)));
  return b;
}
