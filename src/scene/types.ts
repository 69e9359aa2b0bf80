/**
 * Scene description types: the plain-data form of a scene file (after validation and
 * defaulting). They live with the rest of the descriptions in src/world/types.ts.
 */
export type * from '../world/types';
