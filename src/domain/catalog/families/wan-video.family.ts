/** V11 (Wan 2.7: five workflows) and V12 (Wan 3.0). */
import { invalidInput } from '../../errors.ts';
import type { ValidatedInput } from '../catalog.types.ts';
import { bool, choice, imageUrls, int, link, mediaUrl, mediaUrls, objects, prompt, seed, text } from '../dsl/fields.ts';
import { AUDIO_FORMATS, billedSeconds, defineFamily, enumDimension, type FamilyContext, MIB, probe, urlsOf, VIDEO_FORMATS } from '../dsl/family.ts';
import { videoOutput } from '../dsl/output.ts';
import { count, frameRoles, has, notWith, numberOf, refuse, requiredUnless, roleItems, str } from '../dsl/rules.ts';

// ---------------------------------------------------------------------------------------------- V11

export type Wan27Workflow = 'text-to-video' | 'image-to-video' | 'reference-to-video' | 'edit-video' | 'continuation';

/** Workflow selection, in SPEC's order of precedence. */
export function wan27Workflow(input: ValidatedInput): Wan27Workflow {
  if (has(input, 'imageUrls')) return 'image-to-video';
  if (has(input, 'referenceImageUrls') || has(input, 'referenceVideoUrls')) return 'reference-to-video';
  if (has(input, 'editVideoUrl')) return 'edit-video';
  if (has(input, 'continueVideoUrl')) return 'continuation';
  return 'text-to-video';
}

const WORKFLOW_FIELDS: ReadonlyArray<readonly [Wan27Workflow, readonly string[]]> = [
  ['image-to-video', ['imageUrls']],
  ['reference-to-video', ['referenceImageUrls', 'referenceVideoUrls']],
  ['edit-video', ['editVideoUrl']],
  ['continuation', ['continueVideoUrl']],
];

/** Allowed `duration` per workflow (continuation is our choice: 2 to 15 s, like image-to-video). */
const DURATIONS: Record<Wan27Workflow, { allowed: (d: number) => boolean; says: string }> = {
  'text-to-video': { allowed: (d) => d === 5 || d === 10 || d === 15, says: '5, 10 or 15' },
  'image-to-video': { allowed: (d) => d >= 2 && d <= 15, says: '2 to 15' },
  'reference-to-video': { allowed: (d) => d >= 2 && d <= 10, says: '2 to 10' },
  'edit-video': { allowed: (d) => d === 0 || (d >= 2 && d <= 10), says: '0 (follow the source video) or 2 to 10' },
  continuation: { allowed: (d) => d >= 2 && d <= 15, says: '2 to 15' },
};

/**
 * `duration` has no default. Without it, text-, image- and reference-to-video and continuation
 * generate 5 s; edit-video follows the source video (as duration 0 does). Returns 0 for "source".
 */
export function wan27Duration(input: ValidatedInput): number {
  const d = numberOf(input, 'duration');
  if (d !== undefined) return d;
  return wan27Workflow(input) === 'edit-video' ? 0 : 5;
}

function v11Seconds(input: ValidatedInput, ctx: FamilyContext): { inputMs: number; outputS: number } {
  const workflow = wan27Workflow(input);
  const source = workflow === 'edit-video' ? 'editVideoUrl' : workflow === 'continuation' ? 'continueVideoUrl' : undefined;
  const inputMs = source ? ctx.measured.totalMs(urlsOf(input, source)) : 0;
  const d = wan27Duration(input);
  return { inputMs, outputS: d === 0 ? billedSeconds(inputMs) : d };
}

export const WAN_2_7_VIDEO = defineFamily({
  id: 'V11',
  type: 'VIDEO',
  fields: [
    prompt({ caps: ['text-to-video'], description: 'Required for text-to-video, reference-to-video and edit-video; optional otherwise.' }),
    imageUrls('imageUrls', { maxItems: 2, caps: ['image-to-video', 'first-last-frame'], description: 'Start frame and optional end frame (image-to-video).' }),
    imageUrls('referenceImageUrls', { caps: ['reference-images'], description: 'Reference images (reference-to-video; requires a prompt).' }),
    mediaUrls('referenceVideoUrls', 'video', { caps: ['video-reference'], description: 'Reference videos (reference-to-video; requires a prompt).' }),
    mediaUrl('editVideoUrl', 'video', { caps: ['video-editing'], description: 'Video to edit (edit-video; requires a prompt); its seconds are billed.' }),
    mediaUrl('referenceImageUrl', 'image', { description: 'Optional guide image for edit-video.' }),
    mediaUrl('continueVideoUrl', 'video', { caps: ['video-extension'], description: 'Video of 2 to 10 s to continue; its seconds are billed.' }),
    mediaUrl('audioUrl', 'audio', { caps: ['audio-reference'], description: 'Soundtrack to follow (text-to-video and image-to-video only).' }),
    choice('size', ['16:9', '9:16', '1:1', '4:3', '3:4'], { default: '16:9', description: 'Aspect ratio; ignored for image-to-video, where the frames decide.' }),
    choice('resolution', ['720p', '1080p'], { default: '720p', description: 'Output resolution; selects the per-second rate.' }),
    int('duration', {
      minimum: 0,
      maximum: 15,
      description: 'Seconds: text-to-video 5, 10 or 15; image-to-video 2-15; reference-to-video 2-10; edit-video 0 or 2-10; continuation 2-15. No default (see docs).',
    }),
    bool('multiShots', { caps: ['multi-shot'], description: 'Several shots (image, reference and edit workflows).' }),
    text('audioSetting', { maxLength: 32, description: 'Audio handling of edit-video (e.g. auto, origin).' }),
    seed({ maximum: 2_147_483_647 }),
    bool('enableSafetyChecker', { caps: ['safety-checker'], description: 'Check the prompt and media for unsafe content.' }),
  ],
  rules: [
    notWith('continueVideoUrl', ['imageUrls', 'audioUrl']),
    ({ input }) => {
      const groups = WORKFLOW_FIELDS.map(([w, fields]) => [w, fields.find((f) => has(input, f))] as const).filter(([, f]) => f !== undefined);
      const [first, second] = groups;
      if (first && second) throw refuse(second[1] ?? '', `cannot be combined with input.${first[1]} (${second[0]} and ${first[0]} are separate workflows)`);
    },
    ({ input }) => {
      const workflow = wan27Workflow(input);
      if (has(input, 'audioUrl') && workflow !== 'text-to-video' && workflow !== 'image-to-video') {
        throw refuse('audioUrl', `is only available for text-to-video and image-to-video (this request is ${workflow})`);
      }
      if (has(input, 'referenceImageUrl') && workflow !== 'edit-video') throw refuse('referenceImageUrl', `is only available for edit-video (this request is ${workflow})`);
      if (has(input, 'audioSetting') && workflow !== 'edit-video') throw refuse('audioSetting', `is only available for edit-video (this request is ${workflow})`);
      if (input.multiShots !== undefined && (workflow === 'text-to-video' || workflow === 'continuation')) {
        throw refuse('multiShots', `is only available for image-to-video, reference-to-video and edit-video (this request is ${workflow})`);
      }
      if (!has(input, 'prompt') && (workflow === 'text-to-video' || workflow === 'reference-to-video' || workflow === 'edit-video')) {
        throw refuse('prompt', `is required for ${workflow}`);
      }
      const d = numberOf(input, 'duration');
      if (d !== undefined && !DURATIONS[workflow].allowed(d)) throw refuse('duration', `must be ${DURATIONS[workflow].says} for ${workflow} (got ${d})`);
    },
  ],
  billing: {
    unit: 'second',
    dimensions: { resolution: enumDimension('resolution') },
    units: (input, ctx) => {
      const { inputMs, outputS } = v11Seconds(input, ctx);
      return billedSeconds(inputMs) + outputS;
    },
  },
  probes: (input) => [...probe(input, 'editVideoUrl', 'video', 100 * MIB, VIDEO_FORMATS), ...probe(input, 'continueVideoUrl', 'video', 100 * MIB, VIDEO_FORMATS)],
  checkMeasured: (input, measured) => {
    for (const v of urlsOf(input, 'continueVideoUrl')) {
      const ms = measured.durationMs(v.url, v.field);
      if (ms < 2000 || ms > 10_000) throw invalidInput(`input.continueVideoUrl must last 2 to 10 s (measured ${ms / 1000} s)`, 'input.continueVideoUrl');
    }
    if (wan27Duration(input) === 0) {
      for (const v of urlsOf(input, 'editVideoUrl')) {
        const ms = measured.durationMs(v.url, v.field);
        if (ms < 2000 || ms > 10_000) {
          throw invalidInput(`input.editVideoUrl must last 2 to 10 s when the output follows its length (duration 0 or omitted) (measured ${ms / 1000} s)`, 'input.editVideoUrl');
        }
      }
    }
  },
  output: (input, ctx) => {
    const workflow = wan27Workflow(input);
    const d = wan27Duration(input);
    let durationS = d;
    if (workflow === 'edit-video' && d === 0) durationS = (ctx.measured.find(str(input, 'editVideoUrl') ?? '')?.durationS ?? 5);
    if (workflow === 'continuation') durationS = d + (ctx.measured.find(str(input, 'continueVideoUrl') ?? '')?.durationS ?? 0);
    const aspect = workflow === 'image-to-video' ? '16:9' : str(input, 'size');
    return videoOutput({ resolution: String(input.resolution), aspect, durationS, withAudio: true });
  },
});

// ---------------------------------------------------------------------------------------------- V12

const FRAME_ROLES = new Set(['first_frame', 'last_frame']);

/** The V12 family a request belongs to: generationType, or inferred from reference-family inputs. */
export function wan3GenerationType(input: ValidatedInput): 'frame' | 'reference' {
  const given = str(input, 'generationType');
  if (given === 'frame' || given === 'reference') return given;
  const referenceRoles = roleItems(input).some((i) => i.role === 'reference_image');
  return referenceRoles || has(input, 'videoUrls') || has(input, 'audioUrls') ? 'reference' : 'frame';
}

export const WAN_3_VIDEO = defineFamily({
  id: 'V12',
  type: 'VIDEO',
  fields: [
    prompt({ maxLength: 20_000, caps: ['text-to-video'], description: 'What to generate; required unless a media input or fileUrl is given.' }),
    imageUrls('imageUrls', {
      maxItems: 10,
      caps: ['image-to-video', 'first-last-frame', 'reference-images'],
      description: 'Frame family: start frame and optional end frame. Reference family: reference images.',
    }),
    objects(
      'imageWithRoles',
      [
        mediaUrl('url', 'image', { required: true, dataUri: true, label: 'URL', description: 'Public image URL or data:image base64 URI.' }),
        choice('role', ['first_frame', 'last_frame', 'reference_image'], { required: true, description: 'Frame roles and reference_image cannot be mixed.' }),
      ],
      { maxItems: 10, description: 'Images with an explicit role.' },
    ),
    mediaUrls('videoUrls', 'video', { maxItems: 5, caps: ['video-reference'], description: 'Up to 5 clips of 1 to 15 s, 15 s in total; their seconds are billed.' }),
    mediaUrls('audioUrls', 'audio', { maxItems: 5, caps: ['audio-reference'], description: 'Up to 5 clips of 1 to 15 s, 15 s in total.' }),
    link('fileUrl', { caps: ['document-reference'], description: 'Reference document (up to 100 MB and 50 pages); not with linkUrl.' }),
    link('linkUrl', { description: 'Public web page to draw on; not with fileUrl.' }),
    choice('generationType', ['frame', 'reference'], { description: 'Classifies bare imageUrls; inferred when omitted.' }),
    choice('size', ['adaptive', '16:9', '4:3', '1:1', '3:4', '9:16'], { default: 'adaptive', description: 'Aspect ratio; adaptive follows the input media.' }),
    choice('resolution', ['480p', '720p', '1080p'], { default: '480p', description: 'Output resolution; each tier has its own per-second rate.' }),
    int('duration', { minimum: 2, maximum: 30, default: 5, description: 'Length in seconds; input video plus output at most 30 s; billed per second.' }),
    bool('audio', { default: true, caps: ['audio-generation'], description: 'Generate sound.' }),
    bool('watermark', { default: false, description: 'Add the vendor watermark.' }),
    seed({ maximum: 2_147_483_647 }),
  ],
  rules: [
    notWith('fileUrl', ['linkUrl']),
    requiredUnless('prompt', ['imageUrls', 'imageWithRoles', 'videoUrls', 'audioUrls', 'fileUrl']),
    ({ input }) => {
      const items = roleItems(input);
      const firstFrame = items.findIndex((i) => FRAME_ROLES.has(i.role));
      const firstRef = items.findIndex((i) => i.role === 'reference_image');
      if (firstFrame >= 0 && firstRef >= 0) {
        throw refuse(`imageWithRoles[${Math.max(firstFrame, firstRef)}].role`, 'mixes frame roles (first_frame, last_frame) with reference_image; the frame and reference families cannot be mixed');
      }
      const type = wan3GenerationType(input);
      if (type === 'frame') {
        for (const f of ['videoUrls', 'audioUrls']) {
          if (has(input, f)) throw refuse(f, 'belongs to the reference family and cannot be used with generationType frame');
        }
        if (firstRef >= 0) throw refuse(`imageWithRoles[${firstRef}].role`, 'reference_image cannot be used with generationType frame');
        const frames = count(input, 'imageUrls') + items.length;
        if (frames > 2) throw refuse('imageUrls', `can hold at most 2 frames (start and end) in the frame family, counting imageWithRoles (got ${frames})`);
      } else if (firstFrame >= 0) {
        throw refuse(`imageWithRoles[${firstFrame}].role`, `${items[firstFrame]?.role} belongs to the frame family and cannot be used with reference inputs`);
      }
    },
    frameRoles('imageWithRoles', 'imageUrls'),
  ],
  billing: {
    unit: 'second',
    dimensions: { resolution: enumDimension('resolution') },
    units: (input, ctx) => Number(input.duration) + billedSeconds(ctx.measured.totalMs(urlsOf(input, 'videoUrls'))),
  },
  probes: (input) => [...probe(input, 'videoUrls', 'video', 100 * MIB, VIDEO_FORMATS), ...probe(input, 'audioUrls', 'audio', 15 * MIB, AUDIO_FORMATS)],
  checkMeasured: (input, measured) => {
    for (const name of ['videoUrls', 'audioUrls']) {
      const clips = urlsOf(input, name);
      for (const c of clips) {
        const ms = measured.durationMs(c.url, c.field);
        if (ms < 1000 || ms > 15_000) throw invalidInput(`input.${c.field} must last 1 to 15 s (measured ${ms / 1000} s)`, `input.${c.field}`);
      }
      const total = measured.totalMs(clips);
      if (total > 15_000) throw invalidInput(`input.${name} must last at most 15 s in total (measured ${total / 1000} s)`, `input.${name}`);
    }
    const videoMs = measured.totalMs(urlsOf(input, 'videoUrls'));
    if (videoMs > 0 && videoMs + Number(input.duration) * 1000 > 30_000) {
      throw invalidInput(
        `input.duration plus the input video length must be at most 30 s (${Number(input.duration)} s + ${videoMs / 1000} s)`,
        'input.duration',
      );
    }
  },
  output: (input) =>
    videoOutput({ resolution: String(input.resolution), aspect: str(input, 'size'), durationS: Number(input.duration), withAudio: input.audio === true }),
});
