import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { REQUIRE_SERVICES } from '../../support/services.ts';

/** Debian's Chromium (installed by .ci/run); never a downloaded browser. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
export const SCREENSHOT_DIR = resolve(import.meta.dirname, '../../../test-output/screenshots');
/** The two sizes a page is checked at: a laptop, and a phone that must never scroll sideways. */
export const WIDE = { width: 1366, height: 900 };
export const PHONE = { width: 390, height: 844 };
const ROOT = resolve(import.meta.dirname, '../../..');

/**
 * Why the browser tests cannot run here, or undefined when they can. Without Chromium they are skipped
 * (and say so), unless SWITCHBOARD_REQUIRE_SERVICES=1 (CI), where a missing browser is a failure.
 */
export function browserSkipReason(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  const message = `Chromium is not installed at ${CHROMIUM_PATH} (apt-get install -y chromium)`;
  if (REQUIRE_SERVICES) throw new Error(`${message} and SWITCHBOARD_REQUIRE_SERVICES=1`);
  console.log(`# SKIPPED: ${message}; the dashboard's browser tests are skipped`);
  return message;
}

/** Builds web/dist when it is missing or older than its sources (the same script as `npm start`). */
export function ensureWebBuilt(): void {
  const result = spawnSync(process.execPath, ['scripts/build-web.ts'], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(result.status, 0, `building the dashboard failed:\n${result.stdout}\n${result.stderr}`);
}

export async function launchChromium(): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_FLAGS, headless: true });
}

/** Saves a full-page screenshot as test-output/screenshots/<name>.png and returns its path. */
export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIR, { recursive: true });
  const file = join(SCREENSHOT_DIR, `${name}.png`);
  await page.screenshot({ path: file, fullPage: true });
  return relative(ROOT, file);
}

/**
 * Screenshots as <name>-wide.png and <name>-phone.png, their paths pushed on `shots`; at the phone's
 * width the page may not scroll sideways. The page is left at the laptop's width.
 */
export async function shootBothWidths(page: Page, name: string, shots: string[]): Promise<void> {
  await page.setViewportSize(WIDE);
  shots.push(await screenshot(page, `${name}-wide`));
  await page.setViewportSize(PHONE);
  const widths = await page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    // What to fix when it scrolls: the innermost elements that reach past the page's right edge, and
    // those whose own text does (an unbroken word is no element of its own).
    const past = (element: Element) => element.getBoundingClientRect().right > root.clientWidth + 0.5;
    const textPast = (element: Element) => [...element.childNodes].some((node) => node.nodeType === Node.TEXT_NODE && (() => {
      const range = document.createRange();
      range.selectNodeContents(node);
      return range.getBoundingClientRect().right > root.clientWidth + 0.5;
    })());
    const culprits = [...document.body.querySelectorAll('*')]
      .filter((element) => (past(element) && ![...element.children].some(past)) || textPast(element))
      .slice(0, 3)
      .map((element) => `<${element.tagName.toLowerCase()}${element.className ? ` class="${String(element.className)}"` : ''}> right ${element.getBoundingClientRect().right.toFixed(1)}: ${(element.textContent ?? '').trim().slice(0, 60)}`);
    return { scroll: root.scrollWidth, client: root.clientWidth, culprits };
  });
  assert.ok(widths.scroll <= widths.client, `${name} scrolls sideways at ${PHONE.width} px (${widths.scroll} > ${widths.client}): ${widths.culprits.join('; ')}`);
  shots.push(await screenshot(page, `${name}-phone`));
  await page.setViewportSize(WIDE);
}

/**
 * Basic checks every page passes: one h1, a main landmark, every form control labelled, every image
 * with alternative text, every button named.
 */
export async function assertAccessibleBasics(page: Page, where: string): Promise<void> {
  const problems = await page.evaluate(() => {
    const found: string[] = [];
    if (document.querySelectorAll('h1').length !== 1) found.push(`${document.querySelectorAll('h1').length} h1 elements`);
    if (!document.querySelector('main')) found.push('no main landmark');
    for (const control of document.querySelectorAll('input, select, textarea')) {
      const el = control as HTMLInputElement;
      if (el.type === 'hidden') continue;
      const named = (el.labels?.length ?? 0) > 0 || el.getAttribute('aria-label') || el.getAttribute('aria-labelledby');
      if (!named) found.push(`unlabelled ${el.tagName.toLowerCase()}#${el.id || '?'}`);
    }
    for (const img of document.querySelectorAll('img')) if (!img.hasAttribute('alt')) found.push(`img without alt: ${img.src}`);
    for (const button of document.querySelectorAll('button')) {
      if (!(button.textContent ?? '').trim() && !button.getAttribute('aria-label')) found.push('button without a name');
    }
    return found;
  });
  assert.deepEqual(problems, [], `accessibility basics on ${where}`);
}

/**
 * The API as the dashboard calls it: the page's session cookie and its CSRF token. Returns the
 * envelope's `data` (or the bare body of endpoints without one).
 */
export async function pageApi<T>(page: Page, method: string, path: string, body?: unknown): Promise<T> {
  return page.evaluate(
    async ({ method, path, body }) => {
      const session = (await (await fetch('/api/v1/auth/session')).json()) as { data: { csrfToken: string } };
      const response = await fetch(path, {
        method,
        headers: { 'content-type': 'application/json', 'x-csrf-token': session.data.csrfToken },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await response.text();
      const parsed = text ? (JSON.parse(text) as { data?: unknown }) : {};
      return (parsed.data ?? parsed) as unknown;
    },
    { method, path, body },
  ) as Promise<T>;
}

/** Signs up a new account with the page's own form; resolves with its user id once the overview shows. */
export async function signUpInBrowser(page: Page, baseUrl: string, email: string, password: string): Promise<string> {
  await page.goto(`${baseUrl}/signup`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: /Create account|Sign up/ }).click();
  await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor();
  return (await pageApi<{ user: { id: string } }>(page, 'GET', '/api/v1/auth/session')).user.id;
}
