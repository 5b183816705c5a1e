// Assembles the envelope RepairResponse from the scanner's and the schema pass's findings, and
// derives the overall confidence (spec: "monotonic pessimistic" — the worst of its parts).
import type { Confidence, RepairDetail, RepairError, RepairResponse, Warning } from './types.js';

const RANK: Record<Confidence, number> = { high: 0, medium: 1, low: 2 };

export function worstConfidence(details: readonly RepairDetail[], warnings: readonly Warning[]): Confidence {
  let worst: Confidence = warnings.length > 0 ? 'medium' : 'high';
  for (let i = 0; i < details.length; i++) {
    const c = details[i]!.confidence;
    if (RANK[c] > RANK[worst]) worst = c;
  }
  return worst;
}

export function successResponse(
  value: unknown,
  syntaxRepairs: RepairDetail[],
  schemaRepairs: RepairDetail[],
  warnings: Warning[],
): RepairResponse {
  const applied = schemaRepairs.length === 0 ? syntaxRepairs.slice() : syntaxRepairs.concat(schemaRepairs);
  return {
    success: true,
    repaired: value,
    metadata: {
      confidence: worstConfidence(applied, warnings),
      was_repaired: applied.length > 0,
      output_valid_json: true,
      syntax_repairs: syntaxRepairs,
      schema_repairs: schemaRepairs,
      repairs_applied: applied,
      warnings,
      errors: [],
    },
  };
}

/** Failure shape per spec: success false, repaired null, confidence low, was_repaired false. */
export function failureResponse(
  errors: RepairError[],
  syntaxRepairs: RepairDetail[] = [],
  schemaRepairs: RepairDetail[] = [],
  warnings: Warning[] = [],
): RepairResponse {
  return {
    success: false,
    repaired: null,
    metadata: {
      confidence: 'low',
      was_repaired: false,
      output_valid_json: false,
      syntax_repairs: syntaxRepairs,
      schema_repairs: schemaRepairs,
      repairs_applied: schemaRepairs.length === 0 ? syntaxRepairs.slice() : syntaxRepairs.concat(schemaRepairs),
      warnings,
      errors,
    },
  };
}
