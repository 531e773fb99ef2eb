// One datagram to a unix SOCK_DGRAM socket, e.g. the systemd journal's native socket (Node's
// dgram module has no unix datagrams). Non-blocking: a full socket buffer throws.
import { callNative, loadBinding } from './load.js';

/**
 * @throws TypeError for a bad path or payload (before any native work)
 * @throws ZmNativeError ERR_ZM_DGRAM_SEND (no listener, buffer full, permission)
 */
export function sendUnixDatagram(path: string, bytes: Buffer): number {
  if (typeof path !== 'string' || path === '' || Buffer.byteLength(path) >= 108) {
    throw new TypeError('path must be a non-empty unix socket path shorter than 108 bytes');
  }
  if (!Buffer.isBuffer(bytes)) throw new TypeError('bytes must be a Buffer');
  const binding = loadBinding();
  return callNative(sendUnixDatagram, () => binding.sendUnixDatagram(path, bytes));
}
