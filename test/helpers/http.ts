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
  let body: any = undefined;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

/** Asserts the AppResponseError envelope shape; returns it for further checks. */
export function isEnvelope(body: any): body is { kind: string; error_message: string; code: number | null; details: string[][] } {
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
