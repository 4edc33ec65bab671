/** What a model makes: the orchestrator's text, or one of the media the tools generate. */
export type Modality = 'text' | 'image' | 'video' | 'music';
