// A refused WebSocket upgrade (WebRTC signalling, the push socket): the socket is still raw HTTP,
// so the refusal is written as a whole HTTP response carrying the error envelope, then closed.
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ApiError } from '../errors.js';

/** Answers a refused upgrade with a JSON error envelope and closes the connection. */
export function refuseUpgrade(socket: Duplex, error: ApiError): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(error.toEnvelope());
  socket.end(
    `HTTP/1.1 ${error.status} ${STATUS_CODES[error.status] ?? 'Error'}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Cache-Control: no-store\r\n' +
      'Connection: close\r\n\r\n' +
      body,
  );
}
