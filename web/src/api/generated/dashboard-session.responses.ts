/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface DashboardSessionResponses {
  /** Create an account with email and password and sign in (sets the session cookie) */
  'POST /api/v1/auth/signup': {
    code: number;
    data: {
      user: {
        id: string;
        email: string | null;
        /** USD cents, rounded down */
        balance: number;
        createdAt: string;
        /** Administers the gateway (may use the admin API) */
        isAdmin: boolean;
        /** False for an account that has only signed in by link: it sets a first password without a current one */
        hasPassword: boolean;
      };
      /** Send it as x-csrf-token on POST, PUT, PATCH and DELETE requests made with the session cookie */
      csrfToken: string;
      /** When the session ends if unused (it slides with use) */
      expiresAt: string;
    };
  };
  /** Sign in with email and password (sets the session cookie) */
  'POST /api/v1/auth/login': {
    code: number;
    data: {
      user: {
        id: string;
        email: string | null;
        /** USD cents, rounded down */
        balance: number;
        createdAt: string;
        /** Administers the gateway (may use the admin API) */
        isAdmin: boolean;
        /** False for an account that has only signed in by link: it sets a first password without a current one */
        hasPassword: boolean;
      };
      /** Send it as x-csrf-token on POST, PUT, PATCH and DELETE requests made with the session cookie */
      csrfToken: string;
      /** When the session ends if unused (it slides with use) */
      expiresAt: string;
    };
  };
  /** The signed-in user and the CSRF token of the session */
  'GET /api/v1/auth/session': {
    code: number;
    data: {
      user: {
        id: string;
        email: string | null;
        /** USD cents, rounded down */
        balance: number;
        createdAt: string;
        /** Administers the gateway (may use the admin API) */
        isAdmin: boolean;
        /** False for an account that has only signed in by link: it sets a first password without a current one */
        hasPassword: boolean;
      };
      /** Send it as x-csrf-token on POST, PUT, PATCH and DELETE requests made with the session cookie */
      csrfToken: string;
      /** When the session ends if unused (it slides with use) */
      expiresAt: string;
    };
  };
  /** Change the password (requires the current one), or set a first one on an account that has none; signs out every other session */
  'POST /api/v1/auth/password': {
    code: number;
    data: {
      /** Other sessions of this user signed out */
      otherSessionsEnded: number;
    };
  };
  /** Sign in with a one-time sign-in link (sets the session cookie); the dashboard sends it when you confirm */
  'POST /api/v1/auth/link': {
    code: number;
    data: {
      user: {
        id: string;
        email: string | null;
        /** USD cents, rounded down */
        balance: number;
        createdAt: string;
        /** Administers the gateway (may use the admin API) */
        isAdmin: boolean;
        /** False for an account that has only signed in by link: it sets a first password without a current one */
        hasPassword: boolean;
      };
      /** Send it as x-csrf-token on POST, PUT, PATCH and DELETE requests made with the session cookie */
      csrfToken: string;
      /** When the session ends if unused (it slides with use) */
      expiresAt: string;
    };
  };
  /** The single sign-on providers the operator configured (the sign-in page shows a button for each) */
  'GET /api/v1/auth/oidc/providers': {
    code: number;
    data: {
      name: string;
      /** The button says "Continue with {label}" */
      label: string;
      /** Open it in the browser (a top-level navigation) to sign in at the provider */
      startUrl: string;
    }[];
  };
  /** Become an administrator with the operator's ADMIN_TOKEN (signed in to the dashboard; needs the CSRF header) */
  'POST /api/v1/auth/claim-admin': {
    code: number;
    data: {
      id: string;
      email: string | null;
      /** USD cents, rounded down */
      balance: number;
      createdAt: string;
      /** Administers the gateway (may use the admin API) */
      isAdmin: boolean;
    };
  };
}
