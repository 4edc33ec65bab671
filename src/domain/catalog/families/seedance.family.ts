/** V6 (Seedance 2.0, and its "mini" variant), V7 (Seedance 2.5), V8 (Seedance 1.5 Pro). */
import { invalidInput } from '../../errors.ts';
import type { FieldDef } from '../dsl/field.types.ts';
import { bool, choice, imageUrls, int, mediaUrl, mediaUrls, objects, prompt, seed } from '../dsl/fields.ts';
import {
  AUDIO_FORMATS,
  billedSeconds,
  defineFamily,
  enumDimension,
  flagDimension,
  type Measurements,
  MIB,
  probe,
  urlsOf,
  VIDEO_FORMATS,
} from '../dsl/family.ts';
import { videoOutput } from '../dsl/output.ts';
import { count, frameRoles, has, needsOneOf, notWith, refuse, requiredUnless, roleItems, str } from '../dsl/rules.ts';
import type { ValidatedInput } from '../catalog.types.ts';

function withRoles(maxItems: number, roles: readonly string[]): FieldDef {
  const caps = { first_frame: ['image-to-video'], last_frame: ['first-last-frame'], reference_image: ['reference-images'] } as const;
  return objects(
    'imageWithRoles',
    [
      mediaUrl('url', 'image', { required: true, label: 'URL', description: 'Image URL.' }),
      choice(
        'role',
        roles.map((r) => ({ value: r, caps: caps[r as keyof typeof caps] })),
        { required: true, description: 'What the image is used for.' },
      ),
    ],
    { maxItems, description: `Images with an explicit role (${roles.join(', ')}).` },
  );
}

const tools = objects(
  'tools',
  [choice('type', [{ value: 'web_search', label: 'Web search', caps: ['web-search'] }], { required: true, description: 'Tool type.' })],
  { maxItems: 1, description: 'Tools the model may use while planning the video: [{"type": "web_search"}].' },
);

const generateAudio = bool('generateAudio', { default: true, caps: ['audio-generation'], description: 'Generate a soundtrack with the video.' });
const nsfwCheck = bool('nsfwCheck', { default: false, caps: ['safety-checker'], description: 'Moderate the prompt and images before generating.' });
const returnLastFrame = bool('returnLastFrame', { default: false, caps: ['return-last-frame'], description: 'Also return the last frame as an image.' });

/** Output seconds, plus the measured reference-video seconds (rounded up) when videos are given. */
function outputPlusReferenceSeconds(input: ValidatedInput, measured: Measurements): number {
  const videos = urlsOf(input, 'videoUrls');
  return Number(input.duration) + (videos.length > 0 ? billedSeconds(measured.totalMs(videos)) : 0);
}

const refInputDimension = flagDimension(['standard', 'refInput'], (input) => has(input, 'videoUrls'));

function seedanceOutput(input: ValidatedInput) {
  return videoOutput({
    resolution: String(input.resolution),
    aspect: str(input, 'size'),
    durationS: Number(input.duration),
    withAudio: input.generateAudio === true,
    format: input.outputFormat === 'mov' ? 'mov' : 'mp4',
  });
}

export const SEEDANCE_2 = defineFamily({
  id: 'V6',
  type: 'VIDEO',
  fields: [
    prompt({ maxLength: 4000, caps: ['text-to-video'], description: 'What to generate; required unless image or video reference media is given.' }),
    int('duration', { minimum: 4, maximum: 15, default: 5, description: 'Length of the video in seconds; billed per second.' }),
    choice('size', ['adaptive', '16:9', '9:16', '1:1', '4:3', '3:4', '21:9'], { default: '16:9', description: 'Aspect ratio; adaptive follows the input image or video.' }),
    choice('resolution', ['480p', '720p', '1080p', '4k'], { default: '480p', description: 'Output resolution; selects the per-second rate.' }),
    seed(),
    generateAudio,
    nsfwCheck,
    returnLastFrame,
    imageUrls('imageUrls', { maxItems: 9, caps: ['image-to-video', 'reference-images'], description: 'Reference images.' }),
    withRoles(2, ['first_frame', 'last_frame']),
    mediaUrls('videoUrls', 'video', { maxItems: 3, caps: ['video-reference'], description: 'Reference videos, more than 1.8 s and less than 15.2 s in total; their seconds are billed.' }),
    mediaUrls('audioUrls', 'audio', { maxItems: 3, caps: ['audio-reference'], description: 'Reference audio, at most 15 s in total; requires imageUrls or videoUrls.' }),
    tools,
  ],
  variants: {
    mini: { fields: { resolution: { options: ['480p', '720p'], default: '720p' } } },
  },
  rules: [
    notWith('imageWithRoles', ['imageUrls', 'videoUrls', 'audioUrls'], ' (imageWithRoles cannot be combined with other reference media)'),
    needsOneOf('audioUrls', ['imageUrls', 'videoUrls']),
    requiredUnless('prompt', ['imageUrls', 'imageWithRoles', 'videoUrls']),
    frameRoles(),
  ],
  billing: {
    unit: 'second',
    dimensions: { resolution: enumDimension('resolution'), input: refInputDimension },
    units: (input, ctx) => outputPlusReferenceSeconds(input, ctx.measured),
  },
  probes: (input) => [...probe(input, 'videoUrls', 'video', 50 * MIB, VIDEO_FORMATS), ...probe(input, 'audioUrls', 'audio', 15 * MIB, AUDIO_FORMATS)],
  checkMeasured: (input, measured) => {
    const videos = urlsOf(input, 'videoUrls');
    if (videos.length > 0) {
      const total = measured.totalMs(videos);
      if (total <= 1800 || total >= 15_200) {
        throw invalidInput(`input.videoUrls must last more than 1.8 s and less than 15.2 s in total (measured ${total / 1000} s)`, 'input.videoUrls');
      }
    }
    const audio = urlsOf(input, 'audioUrls');
    if (audio.length > 0 && measured.totalMs(audio) > 15_000) {
      throw invalidInput(`input.audioUrls must last at most 15 s in total (measured ${measured.totalMs(audio) / 1000} s)`, 'input.audioUrls');
    }
  },
  output: seedanceOutput,
});

export const SEEDANCE_2_5 = defineFamily({
  id: 'V7',
  type: 'VIDEO',
  fields: [
    prompt({ required: true, caps: ['text-to-video'] }),
    int('duration', { minimum: 4, maximum: 30, default: 5, description: 'Length of the video in seconds; billed per second.' }),
    choice('size', ['adaptive', '16:9', '4:3', '1:1', '3:4', '9:16', '21:9'], {
      default: 'adaptive',
      description: 'Aspect ratio; adaptive follows the input media. First/last-frame and extend jobs require adaptive.',
    }),
    choice('resolution', ['480p', '720p', '1080p'], { default: '480p', description: 'Output resolution; selects the per-second rate.' }),
    generateAudio,
    nsfwCheck,
    bool('watermark', { default: false, description: 'Add the vendor watermark.' }),
    seed(),
    choice('outputFormat', ['mp4', 'mov'], { default: 'mp4', description: 'Container of the video.' }),
    choice('omniReferenceTaskType', ['auto', 'reference', { value: 'extend', caps: ['video-extension'] }], {
      default: 'auto',
      unavailable: { edit: 'is unavailable for this model' },
      description: 'How references are used: auto, reference, or extend (continue the reference video).',
    }),
    imageUrls('imageUrls', { maxItems: 30, caps: ['image-to-video', 'reference-images'], description: 'Reference images; at most 30 across imageUrls and imageWithRoles.' }),
    withRoles(30, ['first_frame', 'last_frame', 'reference_image']),
    mediaUrls('videoUrls', 'video', { maxItems: 10, caps: ['video-reference'], description: 'Reference videos, 2 to 30 s each and 30 s in total; their seconds are billed.' }),
    mediaUrls('audioUrls', 'audio', { maxItems: 10, caps: ['audio-reference'], description: 'Reference audio, at most 30 s in total.' }),
    returnLastFrame,
    tools,
  ],
  rules: [
    ({ input }) => {
      const images = count(input, 'imageUrls') + count(input, 'imageWithRoles');
      if (images > 30) throw refuse('imageUrls', `and input.imageWithRoles together must have at most 30 images (got ${images})`);
    },
    frameRoles(),
    ({ input }) => {
      if (input.size === 'adaptive') return;
      const frame = roleItems(input).findIndex((i) => i.role === 'first_frame' || i.role === 'last_frame');
      if (frame >= 0) throw refuse('size', `must be "adaptive" for first/last-frame jobs (input.imageWithRoles[${frame}] is a frame)`);
      if (input.omniReferenceTaskType === 'extend') throw refuse('size', 'must be "adaptive" for extend jobs (omniReferenceTaskType extend)');
    },
    ({ input }) => {
      if (input.omniReferenceTaskType === 'extend' && !has(input, 'videoUrls')) throw refuse('videoUrls', 'is required when omniReferenceTaskType is extend');
    },
  ],
  billing: {
    unit: 'second',
    dimensions: { resolution: enumDimension('resolution'), input: refInputDimension },
    units: (input, ctx) => outputPlusReferenceSeconds(input, ctx.measured),
  },
  probes: (input) => [...probe(input, 'videoUrls', 'video', 50 * MIB, VIDEO_FORMATS), ...probe(input, 'audioUrls', 'audio', 15 * MIB, AUDIO_FORMATS)],
  checkMeasured: (input, measured) => {
    for (const v of urlsOf(input, 'videoUrls')) {
      const ms = measured.durationMs(v.url, v.field);
      if (ms < 2000 || ms > 30_000) throw invalidInput(`input.${v.field} must last 2 to 30 s (measured ${ms / 1000} s)`, `input.${v.field}`);
    }
    const videoTotal = measured.totalMs(urlsOf(input, 'videoUrls'));
    if (videoTotal > 30_000) throw invalidInput(`input.videoUrls must last at most 30 s in total (measured ${videoTotal / 1000} s)`, 'input.videoUrls');
    const audioTotal = measured.totalMs(urlsOf(input, 'audioUrls'));
    if (audioTotal > 30_000) throw invalidInput(`input.audioUrls must last at most 30 s in total (measured ${audioTotal / 1000} s)`, 'input.audioUrls');
  },
  output: seedanceOutput,
});

export const SEEDANCE_1_5_PRO = defineFamily({
  id: 'V8',
  type: 'VIDEO',
  fields: [
    prompt({ maxLength: 4000, caps: ['text-to-video'], description: 'What to generate; required for text-to-video, optional with image input.' }),
    int('duration', { minimum: 4, maximum: 15, default: 4, description: 'Length of the video in seconds (usually 4, 8 or 12); billed per second.' }),
    choice('size', ['16:9', '9:16', '1:1', '4:3', '3:4', '21:9'], { default: '16:9', description: 'Aspect ratio of the video.' }),
    choice('resolution', ['480p', '720p', '1080p'], { default: '480p', description: 'Output resolution; selects the per-second rate.' }),
    seed(),
    generateAudio,
    imageUrls('imageUrls', { maxItems: 9, caps: ['image-to-video'], description: 'Input images (image-to-video).' }),
    withRoles(2, ['first_frame', 'last_frame']),
    bool('cameraFixed', { default: false, description: 'Keep the camera still.' }),
  ],
  rules: [
    requiredUnless('prompt', ['imageUrls', 'imageWithRoles']),
    notWith('imageWithRoles', ['imageUrls'], ' (imageWithRoles cannot be combined with other reference media)'),
    frameRoles(),
  ],
  billing: {
    unit: 'second',
    dimensions: { resolution: enumDimension('resolution'), audio: flagDimension(['silent', 'audio'], (input) => input.generateAudio === true) },
    units: (input) => Number(input.duration),
  },
  output: seedanceOutput,
});
