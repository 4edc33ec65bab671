/** I8 (Midjourney images) and V13 (Midjourney video). */
import type { ValidatedInput } from '../catalog.types.ts';
import type { OptionDef } from '../dsl/field.types.ts';
import { bool, choice, imageUrls, int, mediaUrl, num, prompt, seed, taskId, text } from '../dsl/fields.ts';
import { defineFamily, enumDimension } from '../dsl/family.ts';
import { imageOutput, videoOutput } from '../dsl/output.ts';
import { count, exactlyOneOf, has, refuse, str } from '../dsl/rules.ts';

// ---------------------------------------------------------------------------------------------- I8

const ACTIONS: OptionDef[] = [
  { value: 'imagine', caps: ['text-to-image'] },
  { value: 'edits', caps: ['editing'] },
  { value: 'blend', caps: ['blend'] },
  { value: 'describe', caps: ['describe'] },
  { value: 'upscale', caps: ['upscale'] },
  { value: 'variation', caps: ['variation'] },
  { value: 'high-variation', caps: ['variation'] },
  { value: 'low-variation', caps: ['variation'] },
  { value: 'reroll', caps: ['variation'] },
  { value: 'zoom', caps: ['outpainting'] },
  { value: 'pan', caps: ['outpainting'] },
  { value: 'inpaint', caps: ['inpainting'] },
  { value: 'modal', caps: ['inpainting'] },
  { value: 'remix-strong', caps: ['variation'] },
  { value: 'remix-subtle', caps: ['variation'] },
];

/** Actions on an earlier generation (they need parentTaskId). */
export const MIDJOURNEY_FOLLOW_UPS: ReadonlySet<string> = new Set(ACTIONS.map((a) => String(a.value)).filter((a) => !['imagine', 'edits', 'blend', 'describe'].includes(a)));
/** Follow-ups that pick one tile of the parent grid (index or customId). */
const TILE_ACTIONS = new Set(['upscale', 'variation', 'high-variation', 'low-variation']);
const PROMPT_ACTIONS = new Set(['imagine', 'edits']);

/** `version` when omitted is taken as the latest, 8.1, for the flag checks. */
function effectiveVersion(input: ValidatedInput): string {
  return str(input, 'version') ?? '8.1';
}

function action(input: ValidatedInput): string {
  return String(input.action);
}

const ACTION_ONLY: ReadonlyArray<readonly [string, readonly string[]]> = [
  ['direction', ['pan']],
  ['zoomRatio', ['zoom']],
  ['maskUrl', ['inpaint', 'modal']],
  ['dimensions', ['blend']],
  ['imageUrls', ['imagine', 'edits', 'blend', 'describe']],
];

export const MIDJOURNEY_IMAGE = defineFamily({
  id: 'I8',
  type: 'IMAGE',
  fields: [
    choice('action', ACTIONS, { default: 'imagine', description: 'Operation: imagine, edits, blend, describe, or a follow-up on parentTaskId.' }),
    prompt({ description: 'Prompt (required for imagine and edits); native --flags are allowed, structured fields override them.' }),
    imageUrls('imageUrls', {
      maxItems: 16,
      dataUri: true,
      description: 'Image prompts for imagine, the source for edits, 2 to 4 images for blend, one image for describe.',
    }),
    taskId('parentTaskId', { caps: ['follow-up'], description: 'Task id of an earlier generation of this family (follow-up actions).' }),
    int('index', { minimum: 1, maximum: 4, description: 'Tile of the parent grid (when customId is absent).' }),
    text('customId', { maxLength: 200, description: 'Raw button id; skips index and direction matching.' }),
    choice('speed', ['relax', 'fast', 'turbo'], { default: 'relax', description: 'Queue speed; selects the price.' }),
    choice('direction', ['left', 'right', 'up', 'down'], { description: 'Pan direction (pan).' }),
    num('zoomRatio', { minimum: 1, maximum: 10, description: 'Zoom out: below 2 gives 1.5x, omitted or 2 and above gives 2x (zoom).' }),
    mediaUrl('maskUrl', 'image', { dataUri: true, description: 'Mask: white repaints, transparent keeps (inpaint, modal).' }),
    choice('dimensions', ['SQUARE', 'PORTRAIT', 'LANDSCAPE'], { default: 'SQUARE', description: 'Shape of a blend (blend only; size overrides it).' }),
    text('size', { format: 'aspect-ratio', description: 'Aspect ratio w:h (--ar).' }),
    choice('quality', [0.25, 0.5, 1, 2], { description: 'Quality (--q).' }),
    text('style', { maxLength: 100, description: 'Style (--style).' }),
    choice('version', ['8.1', '7', '6.1', '5.2', '5.1'], { description: 'Model version (a string); with niji true, 7 and 6.x select the niji line.' }),
    seed(),
    text('negativePrompt', { maxLength: 2000, caps: ['negative-prompt'], description: 'What to leave out (--no).' }),
    int('stylize', { minimum: 0, maximum: 1000, description: '--stylize, 0 to 1000.' }),
    int('chaos', { minimum: 0, maximum: 100, description: '--chaos, 0 to 100.' }),
    int('weird', { minimum: 0, maximum: 3000, description: '--weird, 0 to 3000.' }),
    bool('tile', { description: 'Seamless tile (--tile).' }),
    bool('niji', { description: 'Use the niji (anime) line.' }),
    num('iw', { label: 'Image weight (iw)', minimum: 0, maximum: 3, description: 'Image prompt weight, 0 to 3.' }),
    int('cw', { label: 'Character weight (cw)', minimum: 0, maximum: 100, description: 'Character reference weight, 0 to 100.' }),
    int('sw', { label: 'Style weight (sw)', minimum: 0, maximum: 1000, description: 'Style reference weight, 0 to 1000.' }),
    mediaUrl('cref', 'image', { label: 'Character reference (cref)', caps: ['style-reference'], description: 'Character reference image URL.' }),
    mediaUrl('sref', 'image', { label: 'Style reference (sref)', caps: ['style-reference'], description: 'Style reference image URL.' }),
    mediaUrl('dref', 'image', { label: 'Omni reference (dref)', description: 'Draft/omni reference image URL.' }),
    int('dw', { label: 'Omni reference weight (dw)', minimum: 0, maximum: 100, description: 'dref weight, 0 to 100.' }),
    int('repeat', { minimum: 2, maximum: 40, description: 'Run the job this many times (each run is billed).' }),
    bool('raw', { description: 'Raw mode (v5.1 and later).' }),
    bool('draft', { description: 'Draft mode (v7 and later).' }),
    bool('hd', { label: 'HD', description: 'HD mode (v8.1 only).' }),
    int('stop', { minimum: 10, maximum: 100, description: 'Stop early, 10 to 100 (v5.1 to 6.1 and niji 5 to 6 only).' }),
    text('extra', { maxLength: 2000, description: 'Appended to the prompt verbatim.' }),
  ],
  rules: [
    ({ input, given }) => {
      const a = action(input);
      if (PROMPT_ACTIONS.has(a) && !has(input, 'prompt')) throw refuse('prompt', `is required for action ${a}`);
      if (a === 'edits' && !has(input, 'imageUrls')) throw refuse('imageUrls', 'is required for action edits (the image to edit)');
      if (a === 'blend' && (count(input, 'imageUrls') < 2 || count(input, 'imageUrls') > 4)) {
        throw refuse('imageUrls', `must hold 2 to 4 images for action blend (got ${count(input, 'imageUrls')})`);
      }
      if (a === 'describe' && count(input, 'imageUrls') !== 1) throw refuse('imageUrls', `must hold exactly 1 image for action describe (got ${count(input, 'imageUrls')})`);
      for (const [field, actions] of ACTION_ONLY) {
        if (given.has(field) && !actions.includes(a)) throw refuse(field, `is only used by action ${actions.join(' or ')} (action is ${a})`);
      }
      const followUp = MIDJOURNEY_FOLLOW_UPS.has(a);
      if (followUp && !has(input, 'parentTaskId')) throw refuse('parentTaskId', `is required for action ${a}`);
      if (!followUp) {
        for (const f of ['parentTaskId', 'index', 'customId']) if (given.has(f)) throw refuse(f, `is only used by follow-up actions (action is ${a})`);
      }
      if (TILE_ACTIONS.has(a) && !has(input, 'index') && !has(input, 'customId')) throw refuse('index', `or input.customId is required for action ${a} (which tile)`);
      if (a === 'pan' && !has(input, 'direction') && !has(input, 'customId')) throw refuse('direction', 'is required for action pan');
      if ((a === 'inpaint' || a === 'modal') && !has(input, 'maskUrl')) throw refuse('maskUrl', `is required for action ${a}`);
    },
    ({ input }) => {
      const v = effectiveVersion(input);
      const niji = input.niji === true;
      if (input.hd === true && (v !== '8.1' || niji)) throw refuse('hd', `requires version 8.1 without niji (got version ${v}${niji ? ' with niji' : ''})`);
      if (input.draft === true && v !== '7' && v !== '8.1') throw refuse('draft', `requires version 7 or later (got version ${v})`);
      if (has(input, 'stop') && !['5.1', '5.2', '6.1'].includes(v)) {
        throw refuse('stop', `requires version 5.1 to 6.1 (or niji 5 to 6) (got version ${v}${str(input, 'version') ? '' : ', the default'})`);
      }
    },
  ],
  normalize: ({ input, given }) => {
    if (input.action !== 'blend' && !given.has('dimensions')) delete input.dimensions;
  },
  billing: {
    unit: 'generation',
    dimensions: { action: enumDimension('action'), speed: enumDimension('speed') },
    units: (input) => (typeof input.repeat === 'number' ? input.repeat : 1),
  },
  output: (input) => {
    const a = action(input);
    if (a === 'describe') return { kind: 'data', dataType: 'image-description', items: 4 };
    const shape: Record<string, string> = { SQUARE: '1:1', PORTRAIT: '2:3', LANDSCAPE: '3:2' };
    const aspect = str(input, 'size') ?? shape[str(input, 'dimensions') ?? 'SQUARE'];
    const repeat = typeof input.repeat === 'number' ? input.repeat : 1;
    if (a === 'upscale') return imageOutput({ tier: '2K', aspect, count: repeat });
    return imageOutput({ tier: '1K', aspect, count: 4 * repeat });
  },
});

// ---------------------------------------------------------------------------------------------- V13

const START_END: Record<string, string> = {
  'vid_1.1_i2v_480': 'vid_1.1_i2v_start_end_480',
  'vid_1.1_i2v_720': 'vid_1.1_i2v_start_end_720',
};

function v13Resolution(input: ValidatedInput): '480p' | '720p' {
  return String(input.videoType).endsWith('720') ? '720p' : '480p';
}

export const MIDJOURNEY_VIDEO = defineFamily({
  id: 'V13',
  type: 'VIDEO',
  fields: [
    prompt({ description: 'What happens in the video; optional when reusing a parent task.' }),
    imageUrls('imageUrls', { maxItems: 1, caps: ['image-to-video'], description: 'First frame; give imageUrls or parentTaskId.' }),
    taskId('parentTaskId', { caps: ['follow-up'], description: 'A finished Midjourney image task whose tile is the first frame.' }),
    int('index', { minimum: 0, maximum: 3, description: 'Tile of the parent grid used as the first frame (0 to 3).' }),
    choice(
      'videoType',
      [
        { value: 'vid_1.1_i2v_480', label: '480p' },
        { value: 'vid_1.1_i2v_720', label: '720p' },
        { value: 'vid_1.1_i2v_start_end_480', label: '480p start/end', caps: ['first-last-frame'] },
        { value: 'vid_1.1_i2v_start_end_720', label: '720p start/end', caps: ['first-last-frame'] },
      ],
      { default: 'vid_1.1_i2v_480', description: 'Tier; 720 tiers bill at the 720p rate. Upgraded to start/end when endUrl is given.' },
    ),
    choice('animateMode', ['manual', 'auto'], { default: 'manual', description: 'auto writes the motion prompt itself; requires parentTaskId and index.' }),
    choice('motion', ['low', 'high'], { default: 'high', description: 'Amount of motion (no billing impact).' }),
    choice('batchSize', [1, 2, 4], { default: 1, caps: ['batch'], description: 'Videos per request; billed times N.' }),
    mediaUrl('endUrl', 'image', { caps: ['first-last-frame'], description: 'End frame; upgrades videoType to its start/end tier.' }),
  ],
  rules: [
    exactlyOneOf(['imageUrls', 'parentTaskId']),
    ({ input, given }) => {
      if (input.animateMode === 'auto') {
        if (!has(input, 'parentTaskId')) throw refuse('parentTaskId', 'is required when animateMode is auto');
        if (!has(input, 'index')) throw refuse('index', 'is required when animateMode is auto');
      }
      if (has(input, 'index') && !has(input, 'parentTaskId')) throw refuse('index', 'requires input.parentTaskId (it picks a tile of the parent grid)');
      if (has(input, 'imageUrls') && !has(input, 'prompt')) throw refuse('prompt', 'is required unless a parent task is reused (parentTaskId)');
      if (given.has('videoType') && String(input.videoType).includes('start_end') && !has(input, 'endUrl')) {
        throw refuse('videoType', `${String(input.videoType)} requires input.endUrl (the end frame)`);
      }
    },
  ],
  normalize: ({ input }) => {
    const upgraded = START_END[String(input.videoType)];
    if (has(input, 'endUrl') && upgraded) input.videoType = upgraded;
  },
  billing: {
    unit: 'generation',
    dimensions: { resolution: { values: () => ['480p', '720p'], select: v13Resolution } },
    units: (input) => Number(input.batchSize),
  },
  output: (input) =>
    videoOutput({ resolution: v13Resolution(input), aspect: '1:1', durationS: 5, withAudio: false, count: Number(input.batchSize) }),
});
