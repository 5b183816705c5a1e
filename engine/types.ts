// The public shapes of the engine: the envelope contract's RepairResponse and its parts (spec:
// "Resources and their fields"). The server maps these to the compact contract; the engine never does.

export type Confidence = 'high' | 'medium' | 'low';
export type ResponseConfidence = Confidence | 'n/a';
export type Mode = 'strict' | 'lenient';
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface RepairDetail {
  type: string;
  confidence: Confidence;
  safe: boolean;
  /** Character offset (UTF-16 code units) in the input of the first occurrence. Syntax repairs. */
  position?: number;
  /** How many times this repair was made. Syntax repairs carry one detail per type. */
  count?: number;
  /** JSON Pointer of the value a schema repair changed, e.g. `/items/0/qty`. */
  field?: string;
  original_value?: unknown;
  repaired_value?: unknown;
}

export type WarningSeverity = 'low' | 'medium' | 'high';
export interface Warning {
  code: string;
  message: string;
  field?: string;
  severity: WarningSeverity;
  suggestion?: string;
  position?: number;
}

export type ErrorSeverity = 'critical' | 'high' | 'medium';
export interface RepairError {
  code: string;
  message: string;
  field?: string;
  severity: ErrorSeverity;
  recoverable: boolean;
  suggestion?: string;
  /** Compact-contract code when it is finer than `code` (MISSING_REQUIRED_FIELD, TYPE_COERCION_FAILED). */
  compact_code?: string;
}

export interface RepairMetadata {
  confidence: ResponseConfidence;
  was_repaired: boolean;
  output_valid_json: boolean;
  syntax_repairs: RepairDetail[];
  schema_repairs: RepairDetail[];
  repairs_applied: RepairDetail[];
  warnings: Warning[];
  errors: RepairError[];
}

export interface RepairResponse {
  success: boolean;
  repaired: unknown;
  metadata: RepairMetadata;
}

export interface RepairOptions {
  /** A JSON Schema (draft-07 or 2020-12, chosen by `$schema`). */
  schema?: unknown;
  /** `strict` (default) removes members the schema does not declare; `lenient` keeps them. */
  mode?: Mode;
  /**
   * A time limit for this call, as a `Date.now()` time: work past it stops and the call answers
   * `WORK_DEADLINE_EXCEEDED` (engine/deadline.ts). Undefined: no limit.
   */
  deadline?: number;
}

/** How a stream's states show the value so far (docs/streaming.md "Preview modes"). */
export type PreviewMode = 'complete' | 'progressive' | 'patch';

/**
 * One step from a preview to the next: JSON Patch (RFC 6902) `add` and `replace`, and `append`, which
 * adds `value` (text) to the end of the string at `path` (RFC 6902 has no such operation). An `append`
 * leaves `path` out when it continues the string the session's previous operation named (that
 * operation may be in an earlier state), so a push into a deeply nested string costs its text.
 */
export type PatchOperation =
  | {
    op: 'add' | 'replace';
    /** JSON Pointer (RFC 6901); `""` is the whole preview. */
    path: string;
    value: unknown;
  }
  | {
    op: 'append';
    /** JSON Pointer of the string; left out: the path of the session's previous operation. */
    path?: string;
    value: string;
  };

/** The envelope streaming state object (spec: "Streaming state object"). */
export interface StreamState {
  structurally_complete: boolean;
  json_parseable: boolean;
  safe_to_emit: boolean;
  /** The preview; left out (undefined) in patch mode, whose states carry `partial_patch` instead. */
  partial: unknown;
  /** Patch mode: the operations that turn the previous state's preview into this one's. */
  partial_patch?: PatchOperation[];
  /** Progressive and patch modes: JSON Pointers of the values that became final in this push. */
  settled?: string[];
  /** Everything pushed so far; left out when the stream was created with `echoBuffer: false`. */
  buffered?: string;
  incomplete_token: string;
  brace_depth: number;
  in_string: boolean;
  expected_next: string[];
}
