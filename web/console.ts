// The console at /console: sign up, sign in and out; once signed in, the API Keys section and the
// usage panel (console-keys.ts). The session lives in an HttpOnly cookie the page never sees; the
// page keeps only the CSRF token the server gives it.
import { api, rememberSession, type ApiResult, type SessionInfo } from './console-api.js';
import { initKeysPanel, refresh } from './console-keys.js';
import { announce, byId } from './dom.js';

const signedOut = byId('signed-out');
const signedIn = byId('signed-in');

function showSignedOut(message?: string): void {
  byId('loading').hidden = true;
  signedIn.hidden = true;
  signedOut.hidden = false;
  if (message !== undefined) {
    const box = byId('signin-error');
    box.textContent = message;
    box.hidden = false;
  }
}

async function showSignedIn(info: SessionInfo): Promise<void> {
  byId('loading').hidden = true;
  signedOut.hidden = true;
  signedIn.hidden = false;
  byId('account-email').textContent = info.email ?? '';
  byId('account-tier').textContent = info.tier === 'free' ? 'Free' : (info.tier ?? '');
  await refresh();
}

/** Sign-up and sign-in forms share their handling: errors go to the form's alert and focus returns to the field. */
function wireAuthForm(kind: 'signup' | 'signin', send: (email: string, password: string) => Promise<ApiResult<SessionInfo>>): void {
  const form = byId<HTMLFormElement>(`${kind}-form`);
  const email = byId<HTMLInputElement>(`${kind}-email`);
  const password = byId<HTMLInputElement>(`${kind}-password`);
  const error = byId(`${kind}-error`);
  const button = form.querySelector<HTMLButtonElement>('button[type="submit"]')!;
  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.hidden = true;
    if (email.value.trim() === '' || password.value === '') {
      error.textContent = 'Enter your email and a password.';
      error.hidden = false;
      (email.value.trim() === '' ? email : password).focus();
      return;
    }
    button.disabled = true;
    let result = await send(email.value, password.value);
    if (!result.ok && result.error.code === 'CSRF_REJECTED') {
      // The token went stale (another tab signed in or out): fetch a fresh one and try once more.
      const session = await api.session();
      if (session.ok) rememberSession(session.data);
      result = await send(email.value, password.value);
    }
    button.disabled = false;
    if (!result.ok) {
      error.textContent = result.error.message;
      error.hidden = false;
      (result.error.code === 'WEAK_PASSWORD' ? password : email).focus();
      return;
    }
    password.value = '';
    rememberSession(result.data);
    await showSignedIn(result.data);
    byId('keys-heading').focus();
    announce(kind === 'signup' ? 'Account created. You are signed in.' : 'Signed in.');
  });
}

async function start(): Promise<void> {
  initKeysPanel({ onSignedOut: () => void restart('Your session ended; sign in again.') });
  wireAuthForm('signup', api.signUp);
  wireAuthForm('signin', api.signIn);
  byId('signout').addEventListener('click', async () => {
    const result = await api.signOut();
    if (result.ok) rememberSession(result.data);
    showSignedOut();
    byId('signin-email').focus();
    announce('Signed out.');
  });
  await restart();
}

async function restart(message?: string): Promise<void> {
  const session = await api.session();
  if (!session.ok) {
    byId('loading').textContent = `The console is unavailable: ${session.error.message}`;
    return;
  }
  rememberSession(session.data);
  if (session.data.signed_in) await showSignedIn(session.data);
  else showSignedOut(message);
}

void start();
