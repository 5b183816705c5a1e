// The playground at /: sends the input (and optional schema and mode) to POST /v1/demo/repair in
// the envelope contract and shows the answer: the repaired JSON, its confidence, every repair with
// its position (also marked in the input), warnings, errors, and the demo's remaining requests.
import { byId, clear, el, wireCopyButton } from './dom.js';
import { EXAMPLES } from './examples.js';
import { lineAndColumn, segmentsFor, type MarkedRepair } from './highlight.js';

interface Detail {
  type: string;
  confidence: string;
  safe: boolean;
  position?: number;
  count?: number;
  field?: string;
  original_value?: unknown;
  repaired_value?: unknown;
}
interface Message { code: string; message: string; severity: string; field?: string; suggestion?: string }
interface DemoAnswer {
  success: boolean;
  repaired: unknown;
  metadata: { confidence: string; was_repaired: boolean; repairs_applied: Detail[]; warnings: Message[]; errors: Message[] };
  demo?: boolean;
  message?: string;
}
interface Limit { limit: number; remaining: number; reset: number }

const form = byId<HTMLFormElement>('repair-form');
const input = byId<HTMLTextAreaElement>('input');
const schemaInput = byId<HTMLTextAreaElement>('schema');
const schemaError = byId('schema-error');
const exampleSelect = byId<HTMLSelectElement>('example');
const repairButton = byId<HTMLButtonElement>('repair');
const resultSection = byId('result');
const resultStatus = byId('result-status');
const resultBody = byId('result-body');
const output = byId('output');
const limitMessage = byId('limit-message');
let lastOutput = '';

for (const example of EXAMPLES) exampleSelect.append(el('option', { value: example.id }, example.label));

exampleSelect.addEventListener('change', () => {
  const example = EXAMPLES.find((e) => e.id === exampleSelect.value);
  if (example === undefined) return;
  input.value = example.input;
  schemaInput.value = example.schema === undefined ? '' : JSON.stringify(example.schema, null, 2);
  const mode = form.querySelector<HTMLInputElement>(`input[name="mode"][value="${example.mode ?? 'strict'}"]`);
  if (mode !== null) mode.checked = true;
  if (example.schema !== undefined) byId<HTMLDetailsElement>('options').open = true;
});

input.addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && (event.ctrlKey || event.metaKey)) {
    event.preventDefault();
    form.requestSubmit();
  }
});

wireCopyButton(byId<HTMLButtonElement>('copy-output'), () => lastOutput);

form.addEventListener('submit', (event) => {
  event.preventDefault();
  void repair();
});

/** The request body, or null after pointing at the bad schema. */
function requestBody(): Record<string, unknown> | null {
  const body: Record<string, unknown> = { raw_output: input.value };
  const schemaText = schemaInput.value.trim();
  schemaError.hidden = true;
  schemaInput.removeAttribute('aria-invalid');
  if (schemaText !== '') {
    try {
      body['schema'] = JSON.parse(schemaText) as unknown;
    } catch (error) {
      schemaError.textContent = `The schema is not valid JSON: ${(error as Error).message}`;
      schemaError.hidden = false;
      schemaInput.setAttribute('aria-invalid', 'true');
      schemaInput.focus();
      return null;
    }
  }
  body['mode'] = form.querySelector<HTMLInputElement>('input[name="mode"]:checked')?.value ?? 'strict';
  return body;
}

async function repair(): Promise<void> {
  const body = requestBody();
  if (body === null) return;
  const sent = input.value;
  repairButton.disabled = true;
  resultSection.setAttribute('aria-busy', 'true');
  resultStatus.textContent = 'Repairing…';
  try {
    const response = await fetch('/v1/demo/repair', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    showLimit(readLimit(response.headers));
    const answer = (await response.json()) as DemoAnswer;
    render(answer, sent);
  } catch (error) {
    showFailure(`The request failed: ${(error as Error).message}. Check your connection and try again.`);
  } finally {
    repairButton.disabled = false;
    resultSection.removeAttribute('aria-busy');
  }
}

function readLimit(headers: Headers): Limit | null {
  const limit = Number(headers.get('x-ratelimit-limit'));
  const remaining = Number(headers.get('x-ratelimit-remaining'));
  const reset = Number(headers.get('x-ratelimit-reset'));
  if (!headers.has('x-ratelimit-limit') || !Number.isFinite(limit + remaining + reset)) return null;
  return { limit, remaining, reset };
}

function showLimit(limit: Limit | null): void {
  const quota = byId('quota');
  if (limit === null) {
    quota.textContent = '';
    return;
  }
  const resetAt = new Date(limit.reset * 1000).toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  quota.textContent = `${limit.remaining} of ${limit.limit} demo repairs left this hour (resets at ${resetAt}).`;
}

function showFailure(text: string): void {
  resultBody.hidden = true;
  resultStatus.textContent = text;
}

function render(answer: DemoAnswer, sent: string): void {
  const { metadata } = answer;
  const limited = metadata.errors.find((e) => e.code === 'RATE_LIMIT_EXCEEDED');
  limitMessage.hidden = limited === undefined;
  clear(limitMessage);
  if (limited !== undefined) {
    limitMessage.append(
      el('strong', {}, 'Demo limit reached. '),
      limited.message,
      ' ',
      el('a', { href: '/console' }, 'Sign up for a free API key'),
      ' (no payment card) for 1,000 repairs a month.',
    );
  }
  renderMessages('errors', metadata.errors.filter((e) => e !== limited));
  const demoMessage = byId('demo-message');
  demoMessage.hidden = answer.message === undefined;
  clear(demoMessage);
  if (answer.message !== undefined) demoMessage.append(answer.message, ' ', el('a', { href: '/console' }, 'Get a key'));

  if (!answer.success) {
    resultBody.hidden = true;
    resultStatus.textContent = limited !== undefined ? 'Not repaired: the demo limit was reached.' : `Not repaired: ${metadata.errors[0]?.message ?? 'unknown error'}`;
    resultStatus.dataset['confidence'] = 'none';
    return;
  }
  lastOutput = JSON.stringify(answer.repaired, null, 2);
  output.textContent = lastOutput;
  const repairs = metadata.repairs_applied;
  renderRepairs(repairs, sent);
  renderMessages('warnings', metadata.warnings);
  resultBody.hidden = false;
  resultStatus.dataset['confidence'] = metadata.confidence;
  const what = metadata.was_repaired ? `${repairs.length} repair${repairs.length === 1 ? '' : 's'}` : 'the input was already valid JSON';
  if (resultSection.getBoundingClientRect().top > window.innerHeight) resultSection.scrollIntoView({ block: 'start' });
  resultStatus.replaceChildren('Repaired with ', el('span', { class: `badge badge-${metadata.confidence}` }, `${metadata.confidence} confidence`), `: ${what}.`);
}

function renderRepairs(repairs: readonly Detail[], sent: string): void {
  const list = byId('repairs');
  clear(list);
  const marked: MarkedRepair[] = [];
  repairs.forEach((detail, index) => {
    const item = el('li', { id: `repair-${index}` },
      el('code', { class: 'repair-type' }, detail.type), ' ',
      el('span', { class: `badge badge-${detail.confidence}` }, detail.confidence));
    if (detail.position !== undefined) {
      marked.push({ index, type: detail.type, position: detail.position });
      const { line, column } = lineAndColumn(sent, detail.position);
      const times = detail.count !== undefined && detail.count > 1 ? `, ${detail.count} times` : '';
      item.append(' at ', el('a', { href: `#mark-${detail.position}`, class: 'position', 'data-position': String(detail.position) },
        `position ${detail.position} (line ${line}, column ${column})`), times);
    }
    if (detail.field !== undefined) {
      const after = detail.repaired_value === undefined ? 'removed' : JSON.stringify(detail.repaired_value);
      const before = detail.original_value === undefined ? 'missing' : JSON.stringify(detail.original_value);
      item.append(' on ', el('code', {}, detail.field), `: ${before} → ${after}`);
    }
    list.append(item);
  });
  if (repairs.length === 0) list.append(el('li', {}, 'None: the input was valid JSON.'));

  const view = byId('marked-input');
  clear(view);
  byId('marked-hint').hidden = marked.length > 0;
  for (const segment of segmentsFor(sent, marked)) {
    if (segment.repairs === undefined) {
      view.append(segment.text);
      continue;
    }
    const label = segment.repairs.map((r) => r.type).join(', ');
    view.append(el('mark', {
      id: `mark-${segment.position}`,
      tabindex: '-1',
      title: label,
      'aria-label': `${label} at position ${segment.position}`,
      'data-position': String(segment.position),
      // Shown after the mark by CSS, so the numbers match the list without becoming input text.
      'data-n': segment.repairs.map((r) => r.index + 1).join(','),
      class: segment.text === '' ? 'insertion' : '',
    }, segment.text));
  }
}

function renderMessages(kind: 'warnings' | 'errors', messages: readonly Message[]): void {
  const list = byId(kind);
  clear(list);
  byId(`${kind}-block`).hidden = messages.length === 0;
  for (const m of messages) {
    list.append(el('li', {},
      el('code', {}, m.code), ` (${m.severity}) `, m.message,
      m.field === undefined ? null : el('span', {}, ' Field: ', el('code', {}, m.field), '.'),
      m.suggestion === undefined ? null : el('span', { class: 'suggestion' }, ` ${m.suggestion}`)));
  }
}
