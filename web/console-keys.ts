// The signed-in half of the console: the API Keys section (create, list, revoke) and the usage
// panel. A new key is shown once, with a copy button; revoking asks for confirmation in the row.
import { api, type ApiError, type KeyView, type UsageView } from './console-api.js';
import { announce, byId, clear, el, formatTime, wireCopyButton } from './dom.js';

export interface KeysPanelHooks {
  /** The session ended (expired, or signed out elsewhere). */
  onSignedOut(): void;
}

let hooks: KeysPanelHooks;
let newKey = '';

export function initKeysPanel(panelHooks: KeysPanelHooks): void {
  hooks = panelHooks;
  byId('base-url').textContent = window.location.origin;
  const form = byId<HTMLFormElement>('create-key-form');
  const name = byId<HTMLInputElement>('key-name');
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    void createKey(name);
  });
  wireCopyButton(byId<HTMLButtonElement>('copy-key'), () => newKey);
  byId('dismiss-key').addEventListener('click', () => {
    newKey = '';
    byId('new-key-value').textContent = '';
    byId('new-key').hidden = true;
    name.focus();
  });
}

function showError(error: ApiError | null, status = 0): boolean {
  if (status === 401) {
    hooks.onSignedOut();
    return true;
  }
  const box = byId('keys-error');
  box.hidden = error === null;
  box.textContent = error?.message ?? '';
  return error !== null;
}

async function createKey(name: HTMLInputElement): Promise<void> {
  const value = name.value.trim();
  if (value === '') {
    showError({ code: 'INVALID_KEY_NAME', message: 'Give the key a name first.' });
    name.focus();
    return;
  }
  const result = await api.createKey(value);
  if (!result.ok) {
    showError(result.error, result.status);
    name.focus();
    return;
  }
  showError(null);
  name.value = '';
  newKey = result.data.key;
  byId('new-key-value').textContent = newKey;
  byId('new-key').hidden = false;
  byId('new-key-heading').focus();
  announce(`Key ${result.data.record.name} created. Copy it now; it is shown only once.`);
  await refresh();
}

export async function refresh(): Promise<void> {
  const [keys, usage] = await Promise.all([api.keys(), api.usage()]);
  if (!keys.ok) {
    showError(keys.error, keys.status);
    return;
  }
  renderKeys(keys.data.keys);
  if (usage.ok) renderUsage(usage.data);
  else showError(usage.error, usage.status);
}

function renderKeys(keys: readonly KeyView[]): void {
  const body = byId('keys');
  clear(body);
  byId('keys-empty').hidden = keys.length > 0;
  byId('keys-table').hidden = keys.length === 0;
  // Newest first: the key just created is at the top.
  for (const key of [...keys].reverse()) {
    const actions = el('td', { 'data-label': 'Actions' });
    if (key.revoked_at === null) actions.append(revokeButton(key, actions));
    body.append(el('tr', { 'data-key-id': key.id, class: key.revoked_at === null ? '' : 'revoked' },
      el('td', { 'data-label': 'Name' }, key.name),
      el('td', { 'data-label': 'Prefix' }, el('code', {}, `${key.prefix}…`)),
      el('td', { 'data-label': 'Created' }, formatTime(key.created_at)),
      el('td', { 'data-label': 'Last used' }, formatTime(key.last_used_at)),
      el('td', { 'data-label': 'Status' }, key.revoked_at === null ? 'Active' : `Revoked ${formatTime(key.revoked_at)}`),
      actions));
  }
}

function revokeButton(key: KeyView, cell: HTMLElement): HTMLButtonElement {
  const button = el('button', { type: 'button', class: 'small danger', 'aria-label': `Revoke ${key.name} (${key.prefix}…)` }, 'Revoke');
  button.addEventListener('click', () => confirmRevoke(key, cell));
  return button;
}

function confirmRevoke(key: KeyView, cell: HTMLElement): void {
  const yes = el('button', { type: 'button', class: 'small danger' }, 'Yes, revoke');
  const no = el('button', { type: 'button', class: 'small' }, 'Cancel');
  clear(cell);
  cell.append(el('span', { class: 'confirm' }, `Revoke ${key.prefix}…? Requests with it will be refused.`), ' ', yes, ' ', no);
  yes.focus();
  no.addEventListener('click', () => {
    clear(cell);
    const again = revokeButton(key, cell);
    cell.append(again);
    again.focus();
  });
  yes.addEventListener('click', async () => {
    yes.disabled = true;
    const result = await api.revokeKey(key.id);
    if (!result.ok) {
      showError(result.error, result.status);
      yes.disabled = false;
      return;
    }
    showError(null);
    await refresh();
    byId('keys-heading').focus();
    announce(`Key ${key.name} (${key.prefix}…) revoked.`);
  });
}

function renderUsage(usage: UsageView): void {
  const count = usage.count.toLocaleString();
  const quota = usage.quota === null ? 'unlimited' : usage.quota.toLocaleString();
  const resets = new Date(usage.resets_at).toLocaleDateString(undefined, { dateStyle: 'long' });
  byId('usage-summary').textContent = `${count} of ${quota} repairs used in ${usage.month} (UTC). The count resets on ${resets}.`;
  const bar = byId<HTMLProgressElement>('usage-bar');
  bar.max = usage.quota ?? Math.max(1, usage.count);
  bar.value = Math.min(usage.count, bar.max);
  const list = byId('usage-keys');
  clear(list);
  for (const k of usage.keys) {
    if (k.count > 0) list.append(el('li', {}, el('code', {}, `${k.prefix}…`), ` ${k.name}: ${k.count.toLocaleString()}`));
  }
}
