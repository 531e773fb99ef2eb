// helmet's headers, worked out once at start-up (src/http/middleware/security-headers.ts): the
// list is what the configuration asks for, with HSTS only when the service speaks TLS.
import test from 'ava';
import { securityHeaderList } from '../../src/http/middleware/security-headers.js';

const off = { enabled: false, cert_path: '', key_path: '' };
const acmeOff = {
  enabled: false,
  domains: [],
  contact_emails: [],
  cache_dir: '',
  production: false,
  challenge: 'tls-alpn-01' as const,
  http_port: 80,
  directory_url: '',
};
const lower = (list: ReadonlyArray<readonly [string, string]>) =>
  new Map(list.map(([name, value]) => [name.toLowerCase(), value]));

test('without TLS: the configured policy, and no HSTS', (t) => {
  const headers = lower(securityHeaderList({ tls: off, acme: acmeOff }));
  t.is(headers.get('content-security-policy'), "default-src 'none';frame-ancestors 'none'");
  t.is(headers.get('x-frame-options'), 'DENY');
  t.is(headers.get('referrer-policy'), 'no-referrer');
  t.is(headers.get('cross-origin-resource-policy'), 'cross-origin');
  t.is(headers.get('x-content-type-options'), 'nosniff');
  t.false(headers.has('strict-transport-security'));
  t.false(headers.has('x-powered-by'));
});

test('with TLS or ACME: HSTS for a year, subdomains included', (t) => {
  for (const server of [
    { tls: { ...off, enabled: true }, acme: acmeOff },
    { tls: off, acme: { ...acmeOff, enabled: true } },
  ]) {
    t.is(lower(securityHeaderList(server)).get('strict-transport-security'), 'max-age=31536000; includeSubDomains');
  }
});
