export { type CatalogOverrides, Catalog } from './catalog.ts';
export type * from './catalog.types.ts';
export { CAPABILITIES, type Capability } from './dsl/capabilities.ts';
export { type V10Mode, v10Mode } from './families/v9-v10.family.ts';
export { type V11Workflow, v11Duration, v11Workflow, v12GenerationType } from './families/wan-video.family.ts';
export { PARAM_FIELD_JSON_SCHEMA } from './param-field.schema.ts';
