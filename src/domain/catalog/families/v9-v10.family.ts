/** V9 (Kling motion control: motion transfer) and V10 (PixVerse). */
import { invalidInput } from '../../errors.ts';
import type { ValidatedInput } from '../catalog.types.ts';
import { bool, choice, imageUrls, int, mediaUrl, mediaUrls, prompt, seed, taskId, text } from '../dsl/fields.ts';
import { billedSeconds, defineFamily, enumDimension, flagDimension, IMAGE_FORMATS, MIB, probe, urlsOf, VIDEO_FORMATS } from '../dsl/family.ts';
import { videoOutput } from '../dsl/output.ts';
import { has, refuse, str, together } from '../dsl/rules.ts';

export const V9 = defineFamily({
  id: 'V9',
  type: 'VIDEO',
  fields: [
    prompt({ description: 'Optional guidance for the scene.' }),
    imageUrls('imageUrls', {
      required: true,
      minItems: 1,
      maxItems: 1,
      caps: ['motion-transfer'],
      description: 'Exactly one image of the character (JPG or PNG, at most 10 MB).',
    }),
    mediaUrls('videoUrls', 'video', {
      required: true,
      minItems: 1,
      maxItems: 1,
      description: 'Exactly one video whose motion is transferred (MP4 or MOV, at most 100 MB); its length is billed.',
    }),
    choice('characterOrientation', ['image', 'video'], { required: true, description: 'Whose orientation drives the motion: the image or the video.' }),
    choice('resolution', ['720p', '1080p'], { default: '720p', description: 'Output resolution; selects the per-second rate.' }),
  ],
  billing: {
    unit: 'second',
    dimensions: { resolution: enumDimension('resolution') },
    units: (input, ctx) => billedSeconds(ctx.measured.totalMs(urlsOf(input, 'videoUrls'))),
  },
  probes: (input) => [...probe(input, 'imageUrls', 'image', 10 * MIB, IMAGE_FORMATS), ...probe(input, 'videoUrls', 'video', 100 * MIB, VIDEO_FORMATS)],
  /** The vendor accepts motion references of 3 to 30 s; refused here, before charging. */
  checkMeasured: (input, measured) => {
    for (const v of urlsOf(input, 'videoUrls')) {
      const ms = measured.durationMs(v.url, v.field);
      if (ms < 3000 || ms > 30_000) throw invalidInput(`input.${v.field} must last 3 to 30 s (measured ${ms / 1000} s)`, `input.${v.field}`);
    }
  },
  output: (input, ctx) => {
    const video = urlsOf(input, 'videoUrls')[0];
    const measured = video ? ctx.measured.find(video.url)?.durationS : undefined;
    return videoOutput({ resolution: String(input.resolution), aspect: '16:9', durationS: measured ?? 5, withAudio: false });
  },
});

/** The PixVerse mode a request selects. */
export type V10Mode = 'text-to-video' | 'image-to-video' | 'transition' | 'fusion' | 'extend';

export function v10Mode(input: ValidatedInput): V10Mode {
  if (has(input, 'extendFromTaskId')) return 'extend';
  if (has(input, 'firstFrameImage') || has(input, 'lastFrameImage')) return 'transition';
  if (has(input, 'imgReferences')) return 'fusion';
  if (has(input, 'imageUrls')) return 'image-to-video';
  return 'text-to-video';
}

const MODE_FIELDS = ['imageUrls', 'firstFrameImage', 'imgReferences', 'extendFromTaskId'] as const;

export const V10 = defineFamily({
  id: 'V10',
  type: 'VIDEO',
  fields: [
    prompt({ required: true, maxLength: 5000, caps: ['text-to-video'] }),
    choice('resolution', ['360p', '540p', '720p', '1080p'], { default: '360p', description: 'Output resolution; selects the per-second rate.' }),
    int('duration', { minimum: 1, maximum: 15, default: 5, description: 'Length in seconds (transition mode: 5 or 8); billed per second.' }),
    choice('size', ['16:9', '4:3', '1:1', '3:4', '9:16', '2:3', '3:2', '21:9'], {
      default: '16:9',
      description: 'Aspect ratio; used only in text-to-video and multi-reference fusion.',
    }),
    seed({ default: 0, maximum: 2_147_483_647 }),
    text('negativePrompt', { maxLength: 2048, multiline: true, caps: ['negative-prompt'], description: 'What to keep out of the video.' }),
    bool('audio', { default: false, caps: ['audio-generation'], description: 'Generate sound with the video (raises the price).' }),
    bool('watermark', { default: false, description: 'Add the vendor watermark.' }),
    choice('motionMode', ['normal', 'fast'], { description: 'Motion mode.' }),
    bool('generateMultiClipSwitch', { default: false, caps: ['multi-shot'], description: 'Cut between several shots (text-to-video and image-to-video only).' }),
    imageUrls('imageUrls', { caps: ['image-to-video'], description: 'Image to animate; only the first is used.' }),
    mediaUrl('firstFrameImage', 'image', { caps: ['first-last-frame'], description: 'First frame (transition mode); requires lastFrameImage.' }),
    mediaUrl('lastFrameImage', 'image', { description: 'Last frame (transition mode); requires firstFrameImage.' }),
    imageUrls('imgReferences', { minItems: 1, maxItems: 7, caps: ['reference-images'], description: '1 to 7 reference images (multi-reference fusion).' }),
    taskId('extendFromTaskId', { caps: ['video-extension'], description: 'Task id of an earlier video of this family to extend.' }),
  ],
  variants: {
    'normal-motion': { fields: { motionMode: { options: ['normal'] } } },
  },
  rules: [
    together('firstFrameImage', 'lastFrameImage'),
    ({ input }) => {
      const present = MODE_FIELDS.filter((f) => has(input, f));
      if (present.length > 1) {
        throw refuse(present[1] ?? '', `cannot be combined with input.${present[0]} (image-to-video, transition, fusion and extension are separate modes)`);
      }
    },
    ({ input }) => {
      const mode = v10Mode(input);
      if (mode === 'transition' && input.duration !== 5 && input.duration !== 8) {
        throw refuse('duration', `must be 5 or 8 in transition mode (firstFrameImage and lastFrameImage) (got ${String(input.duration)})`);
      }
      if (input.generateMultiClipSwitch === true && mode !== 'text-to-video' && mode !== 'image-to-video') {
        throw refuse('generateMultiClipSwitch', `is only available for text-to-video and image-to-video (this request is ${mode})`);
      }
    },
  ],
  billing: {
    unit: 'second',
    dimensions: { resolution: enumDimension('resolution'), audio: flagDimension(['silent', 'audio'], (input) => input.audio === true) },
    units: (input) => Number(input.duration),
  },
  output: (input) =>
    videoOutput({ resolution: String(input.resolution), aspect: str(input, 'size'), durationS: Number(input.duration), withAudio: input.audio === true }),
});
