/** I1 (Nano Banana), I2 (Grok image), I3 (Z-Image), I4 (GPT Image), I5 (Seedream), I6 (Qwen Image), I7 (Wan 2.7 image). */
import { bool, choice, imageUrls, int, prompt, seed } from '../dsl/fields.ts';
import { defineFamily, enumDimension } from '../dsl/family.ts';
import { imageOutput } from '../dsl/output.ts';
import { has, numberOf, refuse, str, together } from '../dsl/rules.ts';

const t2i = prompt({ required: true, caps: ['text-to-image'] });

export const NANO_BANANA = defineFamily({
  id: 'I1',
  type: 'IMAGE',
  fields: [
    t2i,
    imageUrls('urls', { caps: ['editing', 'reference-images'], description: 'Reference images (editing and composition).' }),
    choice('size', ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9', '1:4', '1:8', '4:1', '8:1'], {
      default: '16:9',
      description: 'Aspect ratio of the image.',
    }),
    choice('resolution', ['512px', '1K', '2K', '4K'], { default: '1K', description: 'Output resolution; selects the price tier.' }),
  ],
  billing: { unit: 'generation', dimensions: { resolution: enumDimension('resolution') } },
  output: (input) => imageOutput({ tier: String(input.resolution), aspect: str(input, 'size') }),
});

export const GROK_IMAGE = defineFamily({
  id: 'I2',
  type: 'IMAGE',
  fields: [
    t2i,
    choice('size', ['1:1', '16:9', '9:16', '3:2', '2:3'], { default: '1:1', description: 'Aspect ratio of the image.' }),
    imageUrls('urls', { maxItems: 1, caps: ['editing'], description: 'One image to edit.' }),
  ],
  billing: { unit: 'generation' },
  output: (input) => imageOutput({ tier: '1K', aspect: str(input, 'size') }),
});

export const Z_IMAGE = defineFamily({
  id: 'I3',
  type: 'IMAGE',
  fields: [t2i, choice('size', ['1:1', '2:3', '3:2', '3:4', '4:3', '9:16', '16:9'], { default: '1:1', description: 'Aspect ratio of the image.' })],
  billing: { unit: 'generation' },
  output: (input) => imageOutput({ tier: '1K', aspect: str(input, 'size') }),
});

export const GPT_IMAGE = defineFamily({
  id: 'I4',
  type: 'IMAGE',
  fields: [
    t2i,
    imageUrls('urls', { dataUri: true, caps: ['editing', 'reference-images'], description: 'Reference images as URLs or base64 data URIs.' }),
    choice('size', ['auto', '1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '5:4', '4:5', '2:1', '1:2', '3:1', '1:3', '21:9', '9:21'], {
      default: '1:1',
      description: 'Aspect ratio; 1:3 and 3:1 need resolution 2k or 4k on gpt-image-2-official.',
    }),
    choice('resolution', ['1k', '2k', '4k'], { default: '1k', description: 'Output resolution; selects the price tier.' }),
  ],
  /**
   * `wide-needs-2k`: the models on which 1:3 and 3:1 need 2k or 4k (gpt-image-2-official). Not
   * gpt-image-2: its relay (kie) makes 1:3 and 3:1 at 1K only (docs/decisions.md, issue 30).
   */
  variants: { 'wide-needs-2k': {} },
  rules: [
    ({ input, variant }) => {
      if (variant === 'wide-needs-2k' && (input.size === '1:3' || input.size === '3:1') && input.resolution === '1k') {
        throw refuse('resolution', `must be "2k" or "4k" when size is ${String(input.size)} (got "1k")`);
      }
    },
  ],
  billing: { unit: 'generation', dimensions: { resolution: enumDimension('resolution') } },
  output: (input) => imageOutput({ tier: String(input.resolution), aspect: input.size === 'auto' ? '1:1' : str(input, 'size') }),
});

export const SEEDREAM = defineFamily({
  id: 'I5',
  type: 'IMAGE',
  fields: [
    t2i,
    imageUrls('urls', { maxItems: 14, dataUri: true, caps: ['editing', 'reference-images'], description: 'Up to 14 reference images (URLs or base64 data URIs).' }),
    choice('size', ['1:1', '4:3', '3:4', '16:9', '9:16', '3:2', '2:3', '21:9', '9:21', 'auto'], { default: '1:1', description: 'Aspect ratio of the image.' }),
    choice('resolution', ['1K', '2K', '3K', '4K'], { default: '2K', description: 'Output resolution.' }),
    choice('outputFormat', ['jpeg', 'png'], { default: 'jpeg', description: 'File format of the image.' }),
    choice('promptOptimizeMode', ['standard', 'fast'], { default: 'standard', description: 'How the prompt is rewritten before generating.' }),
    bool('watermark', { default: false, description: 'Add the vendor watermark.' }),
  ],
  variants: {
    'prompt-optimize': { ignore: ['outputFormat'] },
    'output-format': { ignore: ['promptOptimizeMode'] },
    plain: { ignore: ['outputFormat', 'promptOptimizeMode'] },
  },
  billing: { unit: 'generation', dimensions: { resolution: enumDimension('resolution') } },
  output: (input) =>
    imageOutput({ tier: String(input.resolution), aspect: input.size === 'auto' ? '1:1' : str(input, 'size'), format: input.outputFormat === 'png' ? 'png' : 'jpeg' }),
});

export const QWEN_IMAGE = defineFamily({
  id: 'I6',
  type: 'IMAGE',
  fields: [
    prompt({ required: true, maxLength: 1000, caps: ['text-to-image'] }),
    imageUrls('urls', { minItems: 1, maxItems: 1, caps: ['editing'], description: 'Exactly one image; switches the request to editing.' }),
    choice('size', ['1:1', '4:3', '3:4', '16:9', '9:16'], {
      default: '1:1',
      description: 'Aspect ratio; for editing it follows the reference unless given.',
    }),
    bool('enableSafetyChecker', { default: true, caps: ['safety-checker'], description: 'Check the prompt and result for unsafe content.' }),
  ],
  /** The 1:1 default applies to text-to-image only: an edit follows its reference unless size is given. */
  normalize: ({ input, given }) => {
    if (has(input, 'urls') && !given.has('size')) delete input.size;
  },
  billing: { unit: 'generation' },
  output: (input) => imageOutput({ tier: '1K', aspect: str(input, 'size') ?? '1:1' }),
});

export const WAN_IMAGE = defineFamily({
  id: 'I7',
  type: 'IMAGE',
  fields: [
    prompt({ required: true, maxLength: 5000, caps: ['text-to-image'] }),
    imageUrls('urls', {
      minItems: 1,
      maxItems: 4,
      caps: ['editing', 'reference-images'],
      description: '1 to 4 images; switches to edit mode; referred to by position in the prompt ("image 1", ...).',
    }),
    choice('size', ['1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3'], { default: '1:1', description: 'Aspect ratio; ignored when width and height are given.' }),
    int('width', { minimum: 256, maximum: 4096, caps: ['custom-size'], description: 'Width in pixels; requires height; overrides size.' }),
    int('height', { minimum: 256, maximum: 4096, description: 'Height in pixels; requires width; overrides size.' }),
    seed({ maximum: 2_147_483_647 }),
  ],
  rules: [together('width', 'height')],
  billing: { unit: 'generation' },
  output: (input) => {
    const width = numberOf(input, 'width');
    const height = numberOf(input, 'height');
    if (width !== undefined && height !== undefined) return { kind: 'image', count: 1, width, height, format: 'png' };
    return imageOutput({ tier: '1K', aspect: str(input, 'size') });
  },
});
