// Small fetch wrappers for tests.
export interface JsonResponse<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function request<T = any>(url: string, init: RequestInit = {}): Promise<JsonResponse<T>> {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Asserts the AppResponseError envelope shape; returns it for further checks. */
export function isEnvelope(
  body: any,
): body is { kind: string; error_message: string; code: number | null; details: string[][] } {
  return (
    body !== null &&
    typeof body === 'object' &&
    typeof body.kind === 'string' &&
    typeof body.error_message === 'string' &&
    'code' in body &&
    Array.isArray(body.details) &&
    body.details.every((d: unknown) => Array.isArray(d) && d.length === 2)
  );
}

/**
 * Sends a GET and closes the connection at once, before any answer: the server handles a
 * request whose client is already gone (its 'close' fires during the handler's first awaits).
 */
export async function abandonRequest(url: string, headers: Record<string, string> = {}): Promise<void> {
  const { connect } = await import('node:net');
  const u = new URL(url);
  const head = Object.entries({ host: u.host, ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  await new Promise<void>((resolve, reject) => {
    const socket = connect(Number(u.port), u.hostname, () => {
      socket.write(`GET ${u.pathname}${u.search} HTTP/1.1\r\n${head}\r\n`, () => {
        socket.destroy();
        resolve();
      });
    });
    socket.on('error', reject);
  });
}
