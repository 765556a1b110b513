/**
 * Child of stream-formats.ts: encrypts `<MB>` megabytes generated on the fly (never held whole) with encryptStream,
 * each chunk's ciphertext dropped as a publisher drops it after upload, and prints the process's peak RSS (a
 * high-water mark) at every quarter of the stream as JSON. Flat marks mean memory does not grow with the stream.
 */
import { randomBytes } from "node:crypto";
import nacl from "tweetnacl";
import { encryptStream } from "../../../subgraphs/markets/stream/index.js";
import { peakRssMb } from "../stats.js";

const MB = 1024 * 1024;
const total = Number(process.argv[2] ?? 256) * MB;
const startRssMb = process.memoryUsage().rss / MB;

async function* generated(): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < total; offset += MB) yield new Uint8Array(randomBytes(Math.min(MB, total - offset)));
}

const signing = nacl.sign.keyPair();
const machine = nacl.box.keyPair();
const marks: Array<{ mb: number; peakRssMb: number }> = [];
let done = 0;
let chunks = 0;
const quarter = total / 4;
const start = performance.now();
for await (const chunk of encryptStream(generated(), {
  signer: { machineDid: "did:peaq:0xbench", keyId: "bench", secretKey: signing.secretKey },
  recipients: [{ recipientId: "machine", recipientType: "machine", publicKey: machine.publicKey }],
})) {
  done += chunk.ciphertext.length - 16;
  chunks += 1;
  if (done >= (marks.length + 1) * quarter) marks.push({ mb: Math.round(done / MB), peakRssMb: peakRssMb() });
}
const mbPerS = total / MB / ((performance.now() - start) / 1000);
console.log(JSON.stringify({ startRssMb, marks, chunks, mbPerS }));
