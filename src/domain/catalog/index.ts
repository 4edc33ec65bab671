export { type CatalogOverrides, Catalog } from './catalog.ts';
export type * from './catalog.types.ts';
export { CAPABILITIES, type Capability } from './dsl/capabilities.ts';
export { type PixverseMode, pixverseMode } from './families/pixverse.family.ts';
export { type Wan27Workflow, wan27Duration, wan27Workflow, wan3GenerationType } from './families/wan-video.family.ts';
export { PARAM_FIELD_JSON_SCHEMA } from './param-field.schema.ts';
