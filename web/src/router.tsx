import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useSyncExternalStore } from 'react';

/** A small history-API router: the gateway answers every dashboard path with index.html. */
const listeners = new Set<() => void>();

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  const onPop = () => listener();
  window.addEventListener('popstate', onPop);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', onPop);
  };
}

const currentLocation = () => window.location.pathname + window.location.search;

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === currentLocation()) return;
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

export function useLocation(): { path: string; search: URLSearchParams } {
  const location = useSyncExternalStore(subscribe, currentLocation);
  const [path = '/', query = ''] = location.split('?');
  return { path, search: new URLSearchParams(query) };
}

/** Matches `/generations/:id` style patterns; returns the parameters or undefined. */
export function matchPath(pattern: string, path: string): Record<string, string> | undefined {
  const a = pattern.split('/').filter(Boolean);
  const b = path.split('/').filter(Boolean);
  if (a.length !== b.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < a.length; i++) {
    const part = a[i] ?? '';
    const value = b[i] ?? '';
    if (part.startsWith(':')) params[part.slice(1)] = decodeURIComponent(value);
    else if (part !== value) return undefined;
  }
  return params;
}

export function Link(props: AnchorHTMLAttributes<HTMLAnchorElement> & { to: string }) {
  const { to, onClick, ...rest } = props;
  const click = (event: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={click} {...rest} />;
}

/** Sets the document title and moves focus to the page heading, so a screen reader announces the new page. */
export function usePageTitle(title: string, headingId = 'page-title'): void {
  useEffect(() => {
    document.title = `${title} · Switchboard`;
    const heading = document.getElementById(headingId);
    if (heading && document.activeElement !== heading && !heading.contains(document.activeElement)) heading.focus({ preventScroll: false });
  }, [title, headingId]);
}
