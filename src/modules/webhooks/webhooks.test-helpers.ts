/** A real HTTP receiver on loopback whose answers the test controls, and a silent logger. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../platform/logger.js';

export interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export type Answer = number | 'hang';

export async function startReceiver(answer: (req: Received, n: number) => Answer = () => 200) {
  const received: Received[] = [];
  const sockets = new Set<import('node:net').Socket>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      const a = state.answer(r, received.length);
      if (a === 'hang') return;
      res.writeHead(a, { 'content-type': 'text/plain' }).end(`answer ${a}`);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const state = {
    answer,
    received,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return state;
}

export const silentLogger = new Proxy({}, { get: (_t, prop) => (prop === 'child' ? () => silentLogger : () => undefined) }) as unknown as Logger;
