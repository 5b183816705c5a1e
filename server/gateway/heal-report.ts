// The `jsonmend` report of one answer: per choice, the healed content and each healed tool call
// (confidence, whether it was repaired, the repairs in /v1/repair's shapes, warnings, errors), the
// worst confidence over them, and whether it meets the caller's X-Jsonmend-Min-Confidence.
import type { Confidence } from '../../engine/types.js';
import type { HealReport } from '../../engine/heal/index.js';
import { detailsJson } from '../contracts/envelope-json.js';
import { serializeErrors, serializeWarnings } from '../contracts/serializers.js';

export interface PartReport {
  confidence: Confidence;
  repaired: boolean;
  success: boolean;
  syntax_repairs: HealReport['syntax_repairs'];
  schema_repairs: HealReport['schema_repairs'];
  warnings: HealReport['warnings'];
  errors: HealReport['errors'];
}

export interface ToolCallReport extends PartReport {
  index: number;
  id: string | null;
  name: string | null;
}

export interface ChoiceReport {
  index: number;
  content?: PartReport;
  tool_calls?: ToolCallReport[];
}

export interface AnswerReport {
  /** Worst over the healed parts; `high` when nothing was healed or everything was valid as written. */
  confidence: Confidence;
  min_confidence: Confidence | null;
  meets_min_confidence: boolean;
  choices: ChoiceReport[];
}

const RANK: Readonly<Record<Confidence, number>> = { high: 2, medium: 1, low: 0 };

export function partReport(report: HealReport): PartReport {
  return {
    confidence: report.confidence,
    repaired: report.was_repaired,
    success: report.success,
    syntax_repairs: report.syntax_repairs,
    schema_repairs: report.schema_repairs,
    warnings: report.warnings,
    errors: report.errors,
  };
}

/** X-Jsonmend-Min-Confidence: `medium` or `high` (`low` asks for nothing); anything else is ignored as absent. */
export function minConfidenceOf(header: string): Confidence | null {
  const value = header.trim().toLowerCase();
  return value === 'medium' || value === 'high' ? value : null;
}

/** Builds the report of the choices healed so far, in choice order. */
export class ReportBuilder {
  readonly #choices = new Map<number, ChoiceReport>();
  #worst: Confidence = 'high';
  #healed = 0;

  constructor(readonly minConfidence: Confidence | null) {}

  /** Parts healed: 0 when the answer had nothing to heal. */
  get healedParts(): number {
    return this.#healed;
  }

  get confidence(): Confidence {
    return this.#worst;
  }

  addContent(choice: number, report: HealReport): void {
    this.#choice(choice).content = partReport(report);
    this.#note(report.confidence);
  }

  addToolCall(choice: number, index: number, id: string | null, name: string | null, report: HealReport): void {
    const entry = this.#choice(choice);
    (entry.tool_calls ??= []).push({ index, id, name, ...partReport(report) });
    this.#note(report.confidence);
  }

  build(): AnswerReport {
    const choices = [...this.#choices.values()].sort((a, b) => a.index - b.index);
    for (const c of choices) c.tool_calls?.sort((a, b) => a.index - b.index);
    return { confidence: this.#worst, min_confidence: this.minConfidence, meets_min_confidence: this.meetsMinimum(), choices };
  }

  meetsMinimum(): boolean {
    return this.minConfidence === null || RANK[this.#worst] >= RANK[this.minConfidence];
  }

  #choice(index: number): ChoiceReport {
    let entry = this.#choices.get(index);
    if (entry === undefined) this.#choices.set(index, (entry = { index }));
    return entry;
  }

  #note(confidence: Confidence): void {
    this.#healed++;
    if (RANK[confidence] < RANK[this.#worst]) this.#worst = confidence;
  }
}

/**
 * The report as JSON text, written by hand around /v1/repair's own writers for its repair
 * details, warnings and errors (contracts/envelope-json.ts), so each has the shape it has there.
 */
export function reportJson(report: AnswerReport): string {
  let json = '{"confidence":"' + report.confidence + '","min_confidence":' + (report.min_confidence === null ? 'null' : '"' + report.min_confidence + '"') +
    ',"meets_min_confidence":' + (report.meets_min_confidence ? 'true' : 'false') + ',"choices":[';
  for (let c = 0; c < report.choices.length; c++) {
    const choice = report.choices[c]!;
    json += (c > 0 ? ',{"index":' : '{"index":') + choice.index;
    if (choice.content !== undefined) json += ',"content":' + partJson('{', choice.content);
    if (choice.tool_calls !== undefined) {
      json += ',"tool_calls":[';
      for (let k = 0; k < choice.tool_calls.length; k++) {
        const call = choice.tool_calls[k]!;
        const head = '{"index":' + call.index + ',"id":' + JSON.stringify(call.id) + ',"name":' + JSON.stringify(call.name) + ',';
        json += (k > 0 ? ',' : '') + partJson(head, call);
      }
      json += ']';
    }
    json += '}';
  }
  return json + ']}';
}

function partJson(head: string, part: PartReport): string {
  return head + '"confidence":"' + part.confidence + '","repaired":' + (part.repaired ? 'true' : 'false') +
    ',"success":' + (part.success ? 'true' : 'false') +
    ',"syntax_repairs":' + detailsJson(part.syntax_repairs) + ',"schema_repairs":' + detailsJson(part.schema_repairs) +
    ',"warnings":' + (part.warnings.length === 0 ? '[]' : serializeWarnings(part.warnings)) +
    ',"errors":' + (part.errors.length === 0 ? '[]' : serializeErrors(part.errors)) + '}';
}
