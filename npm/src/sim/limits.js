// Limits on what one call may ask of the simulator's module.

/** Deepest nesting a scenario, template or scope may have (a scenario needs four levels). */
export const MAX_DEPTH = 16;
/** Most values (objects, arrays and leaves) one of them may hold. */
export const MAX_VALUES = 100_000;
/** Longest string in one of them. */
export const MAX_STRING = 1 << 20;
/** Most events a recorded run may have. */
export const MAX_RUN_EVENTS = 1_000_000;
/** Events of the first attempt at a run (see `run`). */
export const FIRST_EVENTS = 10_000;
/** Above the most events per sweep run and states per search that fit in the module's memory:
 * where `sweepEventsThatFit` and `statesThatFit` start looking. */
export const MAX_SWEEP_EVENTS = 10_000_000;
export const MAX_SEARCH_STATES = 5_000_000;
/** Longest history text `checkHistory` reads at once, in characters. */
export const MAX_HISTORY = 256 * 1024 * 1024;
