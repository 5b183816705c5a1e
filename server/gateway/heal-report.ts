// The `jsonmend` report of one answer: per choice, the healed content and each healed tool call
// (confidence, whether it was repaired, the repairs in /v1/repair's shapes, warnings, errors), the
// worst confidence over them, and whether it meets the caller's X-Jsonmend-Min-Confidence.
import type { Confidence } from '../../engine/types.js';
import type { HealReport } from '../../engine/heal/index.js';

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
