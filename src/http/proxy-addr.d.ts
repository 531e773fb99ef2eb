// The part of `proxy-addr` 2 used here (it ships no types): the call express's req.ip makes.
declare module 'proxy-addr' {
  import type { IncomingMessage } from 'node:http';
  export default function proxyaddr(req: IncomingMessage, trust: (addr: string, i: number) => boolean): string;
}
