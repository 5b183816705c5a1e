// Small DOM helpers shared by the playground and the console. Text always goes in as text nodes
// (never innerHTML), so nothing a server or a user typed can become markup.

export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const found = document.getElementById(id);
  if (found === null) throw new Error(`missing #${id}`);
  return found as T;
}

type Child = Node | string | null | undefined | false;

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Record<string, string> = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
}

export function clear(node: Element): void {
  node.replaceChildren();
}

/** Copies `text`; falls back to a hidden textarea where the async clipboard is unavailable (plain HTTP). */
export async function copyText(text: string): Promise<boolean> {
  try {
    if (navigator.clipboard !== undefined && window.isSecureContext) {
      await navigator.clipboard.writeText(text);
      return true;
    }
  } catch {
    // fall through to the legacy path
  }
  const area = el('textarea', { readonly: '', 'aria-hidden': 'true', class: 'offscreen' }, text);
  document.body.append(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  return copied;
}

/** A copy button: copies what `source()` returns and says so in its label for a moment. */
export function wireCopyButton(button: HTMLButtonElement, source: () => string): void {
  const idle = button.textContent ?? 'Copy';
  button.addEventListener('click', async () => {
    const copied = await copyText(source());
    button.textContent = copied ? 'Copied' : 'Copy failed: select and copy by hand';
    announce(copied ? 'Copied to the clipboard.' : 'Copy failed; select the text and copy it by hand.');
    setTimeout(() => { button.textContent = idle; }, 2000);
  });
}

export function formatTime(iso: string | null): string {
  if (iso === null) return 'never';
  const date = new Date(iso);
  return date.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** Says something to screen readers through the page's polite #announcer region. */
export function announce(text: string): void {
  const region = document.getElementById('announcer');
  if (region === null) return;
  region.textContent = '';
  // A new text node after a tick makes screen readers announce a repeated message too.
  setTimeout(() => { region.textContent = text; }, 50);
}
