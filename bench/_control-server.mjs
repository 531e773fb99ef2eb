// A bare node:http server for bench/wrk-control.ts: every request spins a fixed CPU time, then
// answers a fixed body. It records, per connection, the time between one request's arrival and
// the next one's: what the server itself sees of each client's round trip.
//
//   node bench/_control-server.mjs PORT SPIN_US BODY_BYTES
// GET /__gaps answers the gaps recorded since the previous /__gaps (JSON, milliseconds).
import http from 'node:http';

const [port, spinUs, bytes] = process.argv.slice(2).map(Number);
const body = Buffer.alloc(bytes, 'a');
const last = new WeakMap();
let gaps = [];

http
  .createServer((req, res) => {
    const now = performance.now();
    if (req.url === '/__gaps') {
      const sorted = gaps.sort((a, b) => a - b);
      gaps = [];
      const q = (p) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0;
      res.end(JSON.stringify({ n: sorted.length, p50: q(0.5), p99: q(0.99), max: sorted.at(-1) ?? 0 }));
      return;
    }
    const previous = last.get(req.socket);
    if (previous !== undefined) gaps.push(now - previous);
    last.set(req.socket, now);
    while (performance.now() - now < spinUs / 1000);
    res.setHeader('Content-Type', 'application/json');
    res.end(body);
  })
  .listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
