// Server-sent events as the upstream writes them, whatever its framing: an event split across TCP
// chunks (and a UTF-8 character across two), lines ended by CRLF, LF or CR, comment lines, several
// `data:` lines joined by newlines (the SSE standard, html.spec.whatwg.org "Parsing an event stream").
// Memory is bounded by the longest event the upstream sends.
import { StringDecoder } from 'node:string_decoder';

export interface SseEvent {
  /** The `event:` field; '' when the event named none (a `message`). */
  event: string;
  data: string;
}

export class SseParser {
  readonly #decoder = new StringDecoder('utf8');
  #pending = '';
  /** A CR ended the last chunk: an LF that starts the next one belongs to it. */
  #afterCr = false;
  #data: string[] = [];
  #event = '';

  /** The events completed by this chunk, in order. */
  push(chunk: Uint8Array): SseEvent[] {
    let text = this.#decoder.write(chunk as Buffer);
    if (this.#afterCr && text.charCodeAt(0) === 0x0a) text = text.slice(1); // LF of a CRLF split in two
    this.#afterCr = false;
    const events: SseEvent[] = [];
    let start = 0;
    const buffered = this.#pending + text;
    const offset = this.#pending.length;
    for (let i = offset; i < buffered.length; i++) {
      const c = buffered.charCodeAt(i);
      if (c !== 0x0a && c !== 0x0d) continue; // line feed, carriage return
      this.#line(buffered.slice(start, i), events);
      if (c === 0x0d) {
        if (i + 1 === buffered.length) this.#afterCr = true;
        else if (buffered.charCodeAt(i + 1) === 0x0a) i++; // CRLF
      }
      start = i + 1;
    }
    this.#pending = buffered.slice(start);
    return events;
  }

  /** One line: a blank line dispatches the event gathered so far. */
  #line(line: string, events: SseEvent[]): void {
    if (line.length === 0) {
      if (this.#data.length > 0) events.push({ event: this.#event, data: this.#data.join('\n') });
      this.#data = [];
      this.#event = '';
      return;
    }
    if (line.charCodeAt(0) === 0x3a) return; // `:` a comment (keep-alive pings)
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.charCodeAt(0) === 0x20) value = value.slice(1); // one space after the colon is not part of the value
    if (field === 'data') this.#data.push(value);
    else if (field === 'event') this.#event = value;
    // `id:` and `retry:` mean nothing to a Chat Completions client: dropped.
  }
}
