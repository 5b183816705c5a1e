// The repair vocabulary (docs/design.md "Repair vocabulary"): every RepairDetail.type the engine can emit,
// its confidence, and its compact-contract name. docs/repairs.md lists the same table; a test checks both.
import type { Confidence } from './types.js';

interface RepairKind {
  confidence: Confidence;
  category: 'syntax' | 'schema';
  /** Name in the compact contract's `repairs` list, where it differs. */
  compactName?: string;
}

export const REPAIR_KINDS = {
  // Syntax, high confidence: structural fixes whose result is unambiguous.
  removed_markdown_fence: { confidence: 'high', category: 'syntax' },
  stripped_leading_text: { confidence: 'high', category: 'syntax' },
  stripped_trailing_text: { confidence: 'high', category: 'syntax' },
  closed_object_bracket: { confidence: 'high', category: 'syntax' },
  closed_array_bracket: { confidence: 'high', category: 'syntax' },
  closed_string: { confidence: 'high', category: 'syntax' },
  quoted_unquoted_keys: { confidence: 'high', category: 'syntax', compactName: 'quoted_keys' },
  converted_single_quotes: { confidence: 'high', category: 'syntax' },
  removed_trailing_comma: { confidence: 'high', category: 'syntax' },
  removed_duplicate_comma: { confidence: 'high', category: 'syntax' },
  replaced_nan: { confidence: 'high', category: 'syntax' },
  removed_comments: { confidence: 'high', category: 'syntax' },
  normalized_decimal: { confidence: 'high', category: 'syntax' },
  // A number cut after its point or exponent (`12.`, `2e-`): where it would have ended is a guess.
  completed_truncated_number: { confidence: 'medium', category: 'syntax' },
  completed_truncated_literal: { confidence: 'high', category: 'syntax' },
  replaced_python_literal: { confidence: 'high', category: 'syntax' },
  converted_smart_quotes: { confidence: 'high', category: 'syntax' },
  inserted_missing_comma: { confidence: 'high', category: 'syntax' },
  inserted_missing_colon: { confidence: 'high', category: 'syntax' },
  escaped_control_character: { confidence: 'high', category: 'syntax' },
  removed_truncated_member: { confidence: 'high', category: 'syntax' },
  // Added by jsonmend (docs/design.md allows new kinds; each is in docs/repairs.md).
  removed_invalid_escape: { confidence: 'high', category: 'syntax' },
  escaped_backslash: { confidence: 'high', category: 'syntax' },
  // A quote that could end its string read as text: a choice between two readings.
  escaped_inner_quote: { confidence: 'medium', category: 'syntax' },
  replaced_undefined: { confidence: 'high', category: 'syntax' },
  removed_extra_closing_bracket: { confidence: 'high', category: 'syntax' },
  concatenated_strings: { confidence: 'high', category: 'syntax' },
  // A `"""…"""` string or a code block as a value: one string; medium when a tag or indentation was taken off.
  converted_multiline_string: { confidence: 'high', category: 'syntax' },
  removed_ellipsis: { confidence: 'high', category: 'syntax' },
  removed_jsonp_wrapper: { confidence: 'high', category: 'syntax' },
  removed_function_wrapper: { confidence: 'high', category: 'syntax' },
  normalized_whitespace: { confidence: 'high', category: 'syntax' },
  removed_invalid_character: { confidence: 'medium', category: 'syntax' },
  // Syntax, low: input was dropped in the middle of the document, where the author's intent is unclear.
  removed_member_without_value: { confidence: 'low', category: 'syntax' },
  // Words written inside the JSON are missing from the value (content-check.ts): never silent.
  dropped_value_text: { confidence: 'low', category: 'syntax' },
  wrapped_multiple_values: { confidence: 'medium', category: 'syntax' },
  inserted_missing_opening_bracket: { confidence: 'medium', category: 'syntax' },
  closed_mismatched_bracket: { confidence: 'medium', category: 'syntax' },
  converted_array_to_object: { confidence: 'medium', category: 'syntax' },
  // A Python set (`{1, 2}`) read as the array of its items: JSON has no sets, and the braces say object.
  converted_set_to_array: { confidence: 'medium', category: 'syntax' },
  merged_thousands_separator: { confidence: 'medium', category: 'syntax' },
  unescaped_json_text: { confidence: 'medium', category: 'syntax' },
  // Syntax, medium: the text was a guess at the author's intent.
  quoted_bare_string: { confidence: 'medium', category: 'syntax' },
  // Schema-aligned reading (align.ts): the text read as the root value the schema asks for (high when
  // it is that value exactly, medium folded or taken whole), an enum member found in prose (low),
  // one of several JSON values chosen because it fits (medium; low among equal fits).
  read_text_as_value: { confidence: 'high', category: 'syntax' },
  found_value_in_prose: { confidence: 'low', category: 'syntax' },
  selected_candidate: { confidence: 'medium', category: 'syntax' },
  // Self-correction (corrections.ts): the answer written after a retraction; low when only a member followed it.
  selected_corrected_answer: { confidence: 'medium', category: 'syntax' },
  // Schema: `key: value` lines or a markdown list read as the object or array the schema asks for (schema/lines.ts).
  read_lines_as_value: { confidence: 'medium', category: 'syntax' },
  // Healing (engine/heal/): empty tool-call arguments read as `{}` where the schema accepts it as is.
  empty_input_as_object: { confidence: 'medium', category: 'syntax' },
  // Schema.
  type_coercion: { confidence: 'medium', category: 'schema' },
  removed_extra_field: { confidence: 'medium', category: 'schema' },
  injected_required_field: { confidence: 'medium', category: 'schema' },
  enum_coercion: { confidence: 'low', category: 'schema' },
  // A member renamed to the one declared property its name matches ignoring case and word joins.
  matched_field_name: { confidence: 'medium', category: 'schema' },
} as const satisfies Record<string, RepairKind>;

export type RepairType = keyof typeof REPAIR_KINDS;

export function compactRepairName(type: string): string {
  const kind: RepairKind | undefined = (REPAIR_KINDS as Record<string, RepairKind>)[type];
  return kind?.compactName ?? type;
}
