/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface AgentProjectsResponses {
  /** Copy an artifact, a generation's file or an upload into the project's assets (202: accepted, not yet copied) */
  'POST /api/v1/agent/projects/{projectId}/assets/import': {
    code: number;
    data: {
      operationId: string;
      status: 'pending' | 'completed' | 'failed';
      type: 'retain' | 'import';
    };
  };
  /** Your projects on this storefront, most recently updated first */
  'GET /api/v1/agent/projects': {
    code: number;
    data: {
      items: {
        projectId: string;
        version: number;
        name: string;
        instructions: string;
        brand: {
          name: string | null;
          /** How the brand speaks (tone, words to use and avoid) */
          voice: string | null;
          /** Brand colours as "#RRGGBB" (upper case), in the order given */
          colors: string[];
          /** An asset of this project (GET /agent/projects/{projectId}/assets) */
          logoAssetId: string | null;
        };
        modelDefaults: {
          /** The text model that plans and calls tools; null: your setting applies */
          orchestratorModelId: string | null;
          /** Soft default for images; null: your setting applies */
          imageModelId: string | null;
          /** Soft default for videos; null: your setting applies */
          videoModelId: string | null;
          /** Soft default for music; null: your setting applies */
          musicModelId: string | null;
        };
        createdAt: string;
        updatedAt: string;
      }[];
      nextCursor: string | null;
    };
  };
  /** Create a brand project */
  'POST /api/v1/agent/projects': {
    code: number;
    data: {
      projectId: string;
      version: number;
      name: string;
      instructions: string;
      brand: {
        name: string | null;
        /** How the brand speaks (tone, words to use and avoid) */
        voice: string | null;
        /** Brand colours as "#RRGGBB" (upper case), in the order given */
        colors: string[];
        /** An asset of this project (GET /agent/projects/{projectId}/assets) */
        logoAssetId: string | null;
      };
      modelDefaults: {
        /** The text model that plans and calls tools; null: your setting applies */
        orchestratorModelId: string | null;
        /** Soft default for images; null: your setting applies */
        imageModelId: string | null;
        /** Soft default for videos; null: your setting applies */
        videoModelId: string | null;
        /** Soft default for music; null: your setting applies */
        musicModelId: string | null;
      };
      createdAt: string;
      updatedAt: string;
    };
  };
  /** One project at its current version */
  'GET /api/v1/agent/projects/{projectId}': {
    code: number;
    data: {
      projectId: string;
      version: number;
      name: string;
      instructions: string;
      brand: {
        name: string | null;
        /** How the brand speaks (tone, words to use and avoid) */
        voice: string | null;
        /** Brand colours as "#RRGGBB" (upper case), in the order given */
        colors: string[];
        /** An asset of this project (GET /agent/projects/{projectId}/assets) */
        logoAssetId: string | null;
      };
      modelDefaults: {
        /** The text model that plans and calls tools; null: your setting applies */
        orchestratorModelId: string | null;
        /** Soft default for images; null: your setting applies */
        imageModelId: string | null;
        /** Soft default for videos; null: your setting applies */
        videoModelId: string | null;
        /** Soft default for music; null: your setting applies */
        musicModelId: string | null;
      };
      createdAt: string;
      updatedAt: string;
    };
  };
  /** Update a project (optimistic versioning; a new immutable version) */
  'PATCH /api/v1/agent/projects/{projectId}': {
    code: number;
    data: {
      projectId: string;
      version: number;
      name: string;
      instructions: string;
      brand: {
        name: string | null;
        /** How the brand speaks (tone, words to use and avoid) */
        voice: string | null;
        /** Brand colours as "#RRGGBB" (upper case), in the order given */
        colors: string[];
        /** An asset of this project (GET /agent/projects/{projectId}/assets) */
        logoAssetId: string | null;
      };
      modelDefaults: {
        /** The text model that plans and calls tools; null: your setting applies */
        orchestratorModelId: string | null;
        /** Soft default for images; null: your setting applies */
        imageModelId: string | null;
        /** Soft default for videos; null: your setting applies */
        videoModelId: string | null;
        /** Soft default for music; null: your setting applies */
        musicModelId: string | null;
      };
      createdAt: string;
      updatedAt: string;
    };
  };
  /** The versions of a project, newest first (immutable) */
  'GET /api/v1/agent/projects/{projectId}/versions': {
    code: number;
    data: {
      items: {
        projectId: string;
        version: number;
        name: string;
        instructions: string;
        brand: {
          name: string | null;
          /** How the brand speaks (tone, words to use and avoid) */
          voice: string | null;
          /** Brand colours as "#RRGGBB" (upper case), in the order given */
          colors: string[];
          /** An asset of this project (GET /agent/projects/{projectId}/assets) */
          logoAssetId: string | null;
        };
        modelDefaults: {
          /** The text model that plans and calls tools; null: your setting applies */
          orchestratorModelId: string | null;
          /** Soft default for images; null: your setting applies */
          imageModelId: string | null;
          /** Soft default for videos; null: your setting applies */
          videoModelId: string | null;
          /** Soft default for music; null: your setting applies */
          musicModelId: string | null;
        };
        createdAt: string;
      }[];
      nextCursor: string | null;
    };
  };
  /** One version of a project */
  'GET /api/v1/agent/projects/{projectId}/versions/{version}': {
    code: number;
    data: {
      projectId: string;
      version: number;
      name: string;
      instructions: string;
      brand: {
        name: string | null;
        /** How the brand speaks (tone, words to use and avoid) */
        voice: string | null;
        /** Brand colours as "#RRGGBB" (upper case), in the order given */
        colors: string[];
        /** An asset of this project (GET /agent/projects/{projectId}/assets) */
        logoAssetId: string | null;
      };
      modelDefaults: {
        /** The text model that plans and calls tools; null: your setting applies */
        orchestratorModelId: string | null;
        /** Soft default for images; null: your setting applies */
        imageModelId: string | null;
        /** Soft default for videos; null: your setting applies */
        videoModelId: string | null;
        /** Soft default for music; null: your setting applies */
        musicModelId: string | null;
      };
      createdAt: string;
    };
  };
  /** The files of a project, newest first */
  'GET /api/v1/agent/projects/{projectId}/assets': {
    code: number;
    data: {
      items: {
        assetId: string;
        projectId: string;
        role: string;
        name: string;
        mime: string;
        sizeBytes: number;
        sourceArtifactId: string | null;
        createdAt: string;
      }[];
      nextCursor: string | null;
    };
  };
}
