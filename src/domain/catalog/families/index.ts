/** Every input family by id. */
import type { FamilyId } from '../catalog.types.ts';
import type { FamilyDef } from '../dsl/family.ts';
import { I1, I2, I3, I4, I5, I6, I7 } from './images.family.ts';
import { M1 } from './m1.family.ts';
import { I8, V13 } from './midjourney.family.ts';
import { V6, V7, V8 } from './seedance.family.ts';
import { V1, V2, V3, V4, V5 } from './v1-v5.family.ts';
import { V9, V10 } from './v9-v10.family.ts';
import { V11, V12 } from './wan-video.family.ts';

export const FAMILIES: Readonly<Record<FamilyId, FamilyDef>> = {
  V1, V2, V3, V4, V5, V6, V7, V8, V9, V10, V11, V12, V13,
  I1, I2, I3, I4, I5, I6, I7, I8,
  M1,
};
