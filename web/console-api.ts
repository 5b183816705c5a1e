// The console page's calls to /console/api/. Every state-changing call carries the CSRF token the
// server handed out with the session (GET /console/api/session, sign-in, sign-out).

export interface ApiError { code: string; message: string }
export type ApiResult<T> = { ok: true; status: number; data: T } | { ok: false; status: number; error: ApiError };

export interface SessionInfo { signed_in: boolean; email?: string; tier?: string; csrf_token: string }
export interface KeyView {
  id: string; prefix: string; name: string; tier: string;
  created_at: string; last_used_at: string | null; revoked_at: string | null;
}
export interface UsageView {
  tier: string; month: string; count: number; quota: number | null; remaining: number | null; resets_at: string;
  keys: Array<{ id: string; prefix: string; name: string; count: number }>;
}

let csrfToken = '';

export function rememberSession(info: SessionInfo): SessionInfo {
  csrfToken = info.csrf_token;
  return info;
}

async function call<T>(method: 'GET' | 'POST', path: string, body?: object): Promise<ApiResult<T>> {
  const headers: Record<string, string> = {};
  if (method === 'POST') {
    headers['content-type'] = 'application/json';
    headers['x-csrf-token'] = csrfToken;
  }
  let response: Response;
  try {
    response = await fetch(`/console/api/${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      body: method === 'POST' ? JSON.stringify(body ?? {}) : null,
    });
  } catch {
    return { ok: false, status: 0, error: { code: 'NETWORK', message: 'The server could not be reached. Check your connection and try again.' } };
  }
  const parsed = (await response.json().catch(() => null)) as unknown;
  if (response.ok) return { ok: true, status: response.status, data: parsed as T };
  const error = (parsed as { error?: ApiError } | null)?.error ?? { code: 'UNKNOWN', message: `Unexpected answer (HTTP ${response.status}).` };
  return { ok: false, status: response.status, error };
}

export const api = {
  session: () => call<SessionInfo>('GET', 'session'),
  signUp: (email: string, password: string) => call<SessionInfo>('POST', 'signup', { email, password }),
  signIn: (email: string, password: string) => call<SessionInfo>('POST', 'signin', { email, password }),
  signOut: () => call<SessionInfo>('POST', 'signout'),
  keys: () => call<{ keys: KeyView[] }>('GET', 'keys'),
  createKey: (name: string) => call<{ key: string; record: KeyView }>('POST', 'keys', { name }),
  revokeKey: (id: string) => call<{ record: KeyView }>('POST', 'keys/revoke', { id }),
  usage: () => call<UsageView>('GET', 'usage'),
};
