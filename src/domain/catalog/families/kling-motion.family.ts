/** Kling motion control (motion transfer): V9. */
import { invalidInput } from '../../errors.ts';
import { choice, imageUrls, mediaUrls, prompt, } from '../dsl/fields.ts';
import { billedSeconds, defineFamily, enumDimension, IMAGE_FORMATS, MIB, probe, urlsOf, VIDEO_FORMATS } from '../dsl/family.ts';
import { videoOutput } from '../dsl/output.ts';

export const KLING_MOTION_CONTROL = defineFamily({
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
