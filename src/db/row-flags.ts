// 0/1 flags of the extra ZoneMinder tables (Menu_Items.Enabled, AI_Detection_Settings.Enabled…):
// sent as 0/1 integers like every v3 flag; JSON booleans are accepted on input too.

/**
 * 0 or 1.
 * @isInt
 * @minimum 0
 * @maximum 1
 */
export type ZeroOrOne = number;

/** A 0/1 flag; true/false are accepted too. Optional fields say `null | ZeroOrOneFlag`, null first (see storage). */
export type ZeroOrOneFlag = ZeroOrOne | boolean;

/** Input flag → 0/1; null/undefined → undefined (no change). */
export const toBit = (v: number | boolean | null | undefined): number | undefined =>
  v == null ? undefined : v === true || v === 1 ? 1 : 0;
