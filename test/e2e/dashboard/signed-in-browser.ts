import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { startTestGateway, type TestGateway, type TestGatewayOptions } from '../../support/gateway.ts';
import { ensureWebBuilt, launchChromium, pageApi, SCREENSHOT_DIR, shootBothWidths, signUpInBrowser, WIDE } from './browser.ts';

const PASSWORD = 'a long e2e passphrase';

export interface DashboardBrowserOptions {
  /** The test's name: it starts the account's email and every screenshot's file name. */
  name: string;
  gateway?: TestGatewayOptions;
  /** Beside the laptop-sized viewport, for this context and every one from newContext (a time zone, downloads). */
  context?: BrowserContextOptions;
}

export interface SignedInBrowserOptions extends DashboardBrowserOptions {
  /** Credited to the new account by the admin API once it is signed up. */
  creditCents?: number;
  creditNote?: string;
}

/** An embedded gateway with the built dashboard, Chromium, and a page on no account yet. */
export interface DashboardBrowser {
  gw: TestGateway;
  browser: Browser;
  context: BrowserContext;
  page: Page;
  /** The page's uncaught errors: a test asserts this stays empty. */
  pageErrors: string[];
  /** Every screenshot taken, listed when it closes. */
  shots: string[];
  /** The API as the page calls it, with its session. */
  api<T>(method: string, path: string, body?: unknown): Promise<T>;
  /** Another context with the same options, for a second visitor. */
  newContext(): Promise<BrowserContext>;
  /** Opens a gateway path and waits for its heading. */
  go(on: Page, path: string): Promise<void>;
  /** Screenshots of a page at laptop and phone widths, named after the test; see shootBothWidths. */
  shootBoth(on: Page, name: string): Promise<void>;
  close(): Promise<void>;
}

/** A dashboard browser whose page is signed up as a new account. */
export interface SignedInBrowser extends DashboardBrowser {
  userId: string;
}

/** A page with the tests' 30 s wait for elements, its uncaught errors pushed on `errors` when given. */
export async function openPage(context: BrowserContext, errors?: string[]): Promise<Page> {
  const page = await context.newPage();
  page.setDefaultTimeout(30_000);
  if (errors) page.on('pageerror', (error) => errors.push(error.message));
  return page;
}

/**
 * Starts everything a dashboard test needs but an account, for a test whose subject is signing up;
 * what it opened is closed again if a step fails.
 */
export async function openDashboardBrowser(options: DashboardBrowserOptions): Promise<DashboardBrowser> {
  ensureWebBuilt();
  const opened: Array<{ close(): Promise<void> }> = [];
  const closeAll = async () => {
    for (const resource of opened.reverse()) await resource.close();
  };
  try {
    const gw = await startTestGateway('embedded', options.gateway);
    opened.push(gw);
    const browser = await launchChromium();
    opened.push(browser);
    const newContext = () => browser.newContext({ viewport: WIDE, ...options.context });
    const context = await newContext();
    opened.push(context);
    const pageErrors: string[] = [];
    const page = await openPage(context, pageErrors);
    const shots: string[] = [];
    return {
      gw,
      browser,
      context,
      page,
      pageErrors,
      shots,
      api: <T>(method: string, path: string, body?: unknown) => pageApi<T>(page, method, path, body),
      newContext,
      go: async (on, path) => {
        await on.goto(gw.url + path);
        await on.locator('h1').first().waitFor();
      },
      shootBoth: (on, name) => shootBothWidths(on, `${options.name}-${name}`, shots),
      close: async () => {
        await closeAll();
        console.log(`# ${options.name} screenshots (${shots.length}) in ${SCREENSHOT_DIR}: ${shots.map((s) => s.split('/').pop()).join(', ')}`);
      },
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/** Starts everything a dashboard test needs and signs up a new account on its page. */
export async function openSignedInBrowser(options: SignedInBrowserOptions): Promise<SignedInBrowser> {
  const opened = await openDashboardBrowser(options);
  try {
    const { gw, page } = opened;
    const userId = await signUpInBrowser(page, gw.url, `${options.name}.${Date.now()}@example.com`, PASSWORD);
    if (options.creditCents) {
      await gw.admin('POST', `/admin/v1/users/${userId}/credits`, { amountCents: options.creditCents, note: options.creditNote ?? `${options.name} e2e` }, { 'idempotency-key': `${options.name}-e2e-${userId}` });
    }
    return { ...opened, userId };
  } catch (error) {
    await opened.close();
    throw error;
  }
}
