// A self-signed EC certificate made with openssl, for the TLS tests and the TLS bench.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** Writes `<name>.crt` and `<name>.key` into `dir`; `san` e.g. 'DNS:a.test' or 'IP:127.0.0.1,DNS:localhost'. */
export function selfSignedCert(dir: string, name: string, cn: string, san?: string): { cert: string; key: string } {
  const cert = join(dir, `${name}.crt`);
  const key = join(dir, `${name}.key`);
  const ext = san ? ['-addext', `subjectAltName=${san}`] : [];
  const curve = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256'];
  execFileSync(
    'openssl',
    ['req', '-x509', ...curve, '-nodes', '-days', '2', '-subj', `/CN=${cn}`, ...ext, '-keyout', key, '-out', cert],
    {
      stdio: 'ignore',
    },
  );
  return { cert, key };
}
