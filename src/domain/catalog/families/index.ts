/** Every input family by id: the ids (V1–V13, I1–I8, M1) are data here, the declarations are named after what they hold. */
import type { FamilyId } from '../catalog.types.ts';
import type { FamilyDef } from '../dsl/family.ts';
import { GROK_VIDEO } from './grok-video.family.ts';
import { GPT_IMAGE, GROK_IMAGE, NANO_BANANA, QWEN_IMAGE, SEEDREAM, WAN_IMAGE, Z_IMAGE } from './images.family.ts';
import { KLING_MOTION_CONTROL } from './kling-motion.family.ts';
import { MIDJOURNEY_IMAGE, MIDJOURNEY_VIDEO } from './midjourney.family.ts';
import { PIXVERSE } from './pixverse.family.ts';
import { SEEDANCE_1_5_PRO, SEEDANCE_2, SEEDANCE_2_5 } from './seedance.family.ts';
import { SORA, SORA_RELAY } from './sora.family.ts';
import { SUNO } from './suno.family.ts';
import { VEO, VEO_LITE } from './veo.family.ts';
import { WAN_2_7_VIDEO, WAN_3_VIDEO } from './wan-video.family.ts';

export const FAMILIES: Readonly<Record<FamilyId, FamilyDef>> = {
  V1: SORA_RELAY,
  V2: SORA,
  V3: VEO,
  V4: VEO_LITE,
  V5: GROK_VIDEO,
  V6: SEEDANCE_2,
  V7: SEEDANCE_2_5,
  V8: SEEDANCE_1_5_PRO,
  V9: KLING_MOTION_CONTROL,
  V10: PIXVERSE,
  V11: WAN_2_7_VIDEO,
  V12: WAN_3_VIDEO,
  V13: MIDJOURNEY_VIDEO,
  I1: NANO_BANANA,
  I2: GROK_IMAGE,
  I3: Z_IMAGE,
  I4: GPT_IMAGE,
  I5: SEEDREAM,
  I6: QWEN_IMAGE,
  I7: WAN_IMAGE,
  I8: MIDJOURNEY_IMAGE,
  M1: SUNO,
};
