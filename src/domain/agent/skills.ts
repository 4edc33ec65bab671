/**
 * Built-in skills (SPEC rule 15): instructions the orchestrator gets when a request in automatic mode
 * needs them. Each has a version; a run freezes the versions (and texts) it applied, so a later edit of
 * a skill never changes a run that already used it. A skill is chosen by the words of the request (and
 * its files: a mask calls for image editing), not by a model call: it costs nothing and is predictable.
 */

export interface Skill {
  id: string;
  version: string;
  name: string;
  /** Words or phrases of a request that call for the skill. */
  triggers: RegExp;
  instructions: string;
}

export const SKILLS: readonly Skill[] = [
  {
    id: 'advertising-visuals',
    version: '1.0.0',
    name: 'Advertising visuals',
    triggers: /\b(ads?|adverts?|advertis\w*|commercials?|banners?|billboards?|product (?:shots?|photos?|images?|videos?)|packshots?|promo\w*|brand\w*)\b/i,
    instructions:
      'Lead with the product: one clear subject, clean background or a setting that shows its use, light that shows material and colour, space for a headline when a layout is implied. Keep the brand\'s colours consistent across pieces; prefer 1:1 and 9:16 for social, 16:9 for web banners unless the user says otherwise.',
  },
  {
    id: 'image-editing',
    version: '1.0.0',
    name: 'Image editing',
    triggers: /\b(edit\w*|retouch\w*|remove|replace|erase|inpaint\w*|background|recolou?r\w*|touch up|fix the|change the (?:colou?r|sky|background))\b/i,
    instructions:
      'Edit rather than regenerate: pass the original (and its mask, if any) as referenceArtifactIds, describe only the change in the prompt, and say what must stay the same. With a mask, the white region is the only one to change. Use a model that takes enough reference images.',
  },
  {
    id: 'video-storyboards',
    version: '1.0.0',
    name: 'Video storyboards',
    triggers: /\b(storyboards?|scenes?|shots?|shot list|trailer|sequence|cinematic|camera (?:move|angle)s?|cuts?)\b/i,
    instructions:
      'Plan the video as numbered shots (subject, action, camera, length) before generating; keep characters, colours and light consistent between shots by reusing the first shot\'s image as a reference; match clip lengths to the total the user asked for.',
  },
  {
    id: 'campaign-planning',
    version: '1.0.0',
    name: 'Campaign planning',
    triggers: /\b(campaigns?|launch\w*|social media|posts?|content (?:plan|calendar)|series|channels?|audience)\b/i,
    instructions:
      'State the campaign\'s message and audience in one line, then plan a small set of pieces per channel (format, aspect ratio, length) that share one visual identity; make the key visual first and derive the others from it; keep within the spending limit and say what each piece costs.',
  },
];

/** The skills a request calls for, in the order above. */
export function skillsFor(requestText: string, options: { hasMask: boolean }): Skill[] {
  return SKILLS.filter((skill) => skill.triggers.test(requestText) || (skill.id === 'image-editing' && options.hasMask));
}
