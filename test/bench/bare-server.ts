/**
 * The baseline: a bare node:http handler answering the same JSON body the shim returns, with the same headers.
 * Usage: tsx test/bench/bare-server.ts <port> <body-file>
 */
import http from "node:http";
import { readFileSync } from "node:fs";

const [port, bodyFile] = process.argv.slice(2);
const body = readFileSync(bodyFile!);
http
  .createServer((_req, res) => {
    res.writeHead(200, {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "content-length": body.length,
    });
    res.end(body);
  })
  .listen(Number(port), "127.0.0.1", () => console.error("ready"));
